"""`TRTLLM_FORCE_ALLTOALL_METHOD`, graphfit against the restated engine
(tests/oracle/trtllm_reference.py, `ref.cite_fact("moe_a2a_force")`). CutlassFusedMoE reads it
only where it selects its own all-to-all: outside ConfigurableMoE, that is with
ENABLE_CONFIGURABLE_MOE set to something other than "1" (`ref.moe_a2a_selects_itself`,
`ref.cite_fact("moe_configurable")`); by default the line says it is not read. Where
CutlassFusedMoE selects an all-to-all method at all (`ref.moe_a2a_one_sided`: attention DP
over more than one rank, MoE TP 1; MNNVL assumed), a set value is looked up as an
`AlltoallMethodType` name. An unknown name is the engine's KeyError, DeepEP /
DeepEPLowLatency its NotImplementedError, NotEnabled no workspace, NVLinkTwoSided the
two-sided workspaces (`ref.cite_fact("moe_a2a_two_sided")`), NVLinkOneSided the one-sided
workspace, the same bytes as without the variable. Where no method is selected the variable
is never read.

Lines are pasted serving commands read by graphfit's command-line reader; the variable comes
from the environment or from the line's own `VAR=value` prefix, which must agree.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import plan
from graphfit.cli.options import build_config
from tests.oracle import trtllm_reference as ref

WHY = (ref.cite_fact("moe_a2a_force"), ref.cite_fact("moe_a2a_select"))
ENV = "TRTLLM_FORCE_ALLTOALL_METHOD"
CONFIGURABLE = "ENABLE_CONFIGURABLE_MOE"
LEGACY = {CONFIGURABLE: "0"}
MODEL = "meta-llama/Llama-3.1-8B"
VALUES = st.sampled_from(ref.ALLTOALL_METHOD_TYPES) | st.sampled_from(
    ["", "nvlinkonesided", "NVLINKONESIDED", " DeepEP", "MNNVL", "NotAvailable", "1",
     "AllGather"]) | st.text(alphabet="NVLinkOSdeTwbl ", max_size=8)


def line(options: Path, tp: int, adp: bool, ep: int | None, environ: dict[str, str],
         prefix: list[str]) -> str | None:
    """The plan's moe_a2a_workspace line of `[prefix] trtllm-serve MODEL --tp_size tp
    [--ep_size ep] --extra_llm_api_options FILE` (FILE sets enable_attention_dp)."""
    options.write_text(f"enable_attention_dp: {str(adp).lower()}\n")
    argv = [*prefix, "trtllm-serve", MODEL, "--tp_size", str(tp)]
    if ep is not None:
        argv += ["--ep_size", str(ep)]
    config = build_config({}, environ, [*argv, "--extra_llm_api_options", str(options)])
    return dict(plan(config).engine_inputs).get("moe_a2a_workspace")


def _aux(text: str) -> int:
    match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux", text)
    assert match, text
    return int(match[1])


@settings(max_examples=30, deadline=None)
@given(value=VALUES, tp=st.sampled_from([1, 2, 4, 8]), adp=st.booleans(),
       ep_given=st.booleans(), pasted=st.booleans(),
       configurable=st.sampled_from([None, "1", "0", "", "true", " 1"]))
def test_the_forced_method_is_the_engines(tmp_path_factory: Any, value: str, tp: int,
                                          adp: bool, ep_given: bool, pasted: bool,
                                          configurable: str | None) -> None:
    """Per generated value and line: no line where the engine selects no method; on the
    default route (ConfigurableMoE) the line says the variable is not read; else the outcome
    `ref.moe_a2a_forced_method` gives, the same from the environment and from the pasted
    prefix where the value is one shell word (an empty value is set, `is not None`, hence
    KeyError)."""
    options = Path(tmp_path_factory.mktemp("force")) / "adp.yaml"
    ep = tp if ep_given else None
    pasted = pasted and value.split() == [value]  # one non-empty shell word
    environ, prefix = ({}, [f"{ENV}={value}"]) if pasted else ({ENV: value}, [])
    if configurable is not None:
        environ = {**environ, CONFIGURABLE: configurable}
    got = line(options, tp, adp, ep, environ, prefix)
    if not ref.moe_a2a_selected(tp, adp, ep):
        assert got is None, (value, got, WHY)
        return
    assert got is not None
    if not ref.moe_a2a_selects_itself(configurable):
        assert f"{ENV}={value!r} is not read" in got, (got, ref.cite_fact("moe_configurable"))
        unset = line(options, tp, adp, ep, {}, [])
        assert unset is not None  # the factory's fallback clause (s70f) ends both lines
        head = unset.split("; if NVLinkOneSided cannot be built")[0]
        assert got.startswith(head.removesuffix("; TRTLLM_MOE_A2A_WORKSPACE_MB replaces it")), (
            got, unset)
        return
    try:
        method = ref.moe_a2a_forced_method(value)
    except KeyError:
        assert f"{ENV}={value!r} is not an AlltoallMethodType name" in got, (got, WHY)
        assert "KeyError" in got, got
        return
    except NotImplementedError:
        assert "NotImplementedError" in got and value in got, (got, WHY)
        return
    if method == "NotEnabled":
        assert "no all-to-all is built" in got and "bytes" not in got, (got, WHY)
    elif method == "NVLinkTwoSided":
        assert "two-sided" in got and "MnnvlMoe" in got and "bytes" not in got, (got, WHY)
    else:
        unset = line(options, tp, adp, ep, {CONFIGURABLE: configurable or ""}, [])
        assert unset is not None and _aux(got) == _aux(unset), (got, unset, WHY)
        assert f"{ENV}=NVLinkOneSided" in got, got


def test_fixed_cases(tmp_path: Path) -> None:
    """DeepSeek-V3's DEP line (tp 4, ep 4, attention DP) on the legacy route
    (ENABLE_CONFIGURABLE_MOE=0): each member's outcome, and the DeepEP refusal is never shown
    on a line without attention DP; a lower-cased name and an empty value are KeyErrors (the
    lookup is by member name, the test `is not None`). By default (unset, or "1") the
    variable is not read: the unforced line, with that said."""
    options = tmp_path / "adp.yaml"
    one = line(options, 4, True, 4, {ENV: "NVLinkOneSided", **LEGACY}, [])
    assert one is not None and _aux(one) == ref.moe_a2a_offsets(4, 8192)["payload_data"]
    assert "no all-to-all" in str(line(options, 4, True, 4, {ENV: "NotEnabled", **LEGACY}, []))
    assert "MnnvlMoe" in str(line(options, 4, True, 4, {ENV: "NVLinkTwoSided", **LEGACY}, []))
    for name in ("DeepEP", "DeepEPLowLatency"):
        assert "NotImplementedError" in str(line(options, 4, True, 4, {ENV: name, **LEGACY},
                                                 []))
        assert line(options, 4, False, 4, {ENV: name, **LEGACY}, []) is None
    for unknown in ("MNNVL", "nvlinkonesided", ""):  # member names, as spelled; set is read
        assert "KeyError" in str(line(options, 4, True, 4, {ENV: unknown, **LEGACY}, [])), \
            unknown
    for default in ({}, {CONFIGURABLE: "1"}):
        got = str(line(options, 4, True, 4, {ENV: "DeepEP", **default}, []))
        assert "'DeepEP' is not read" in got and "NotImplementedError" not in got, got
        assert _aux(got) == ref.moe_a2a_offsets(4, 8192)["payload_data"]


COMM = "TRTLLM_FORCE_COMM_METHOD"


@settings(max_examples=20, deadline=None)
@given(value=st.sampled_from(ref.COMM_METHODS) | st.sampled_from(
           ["", "nvlink_one_sided", "NVLinkOneSided", "deepep", "NVLINK", "NCCL"]),
       tp=st.sampled_from([1, 2, 4]), adp=st.booleans(),
       configurable=st.sampled_from([None, "1", "0"]))
def test_the_forced_communication_is_the_factorys(tmp_path_factory: Any, value: str, tp: int,
                                                  adp: bool, configurable: str | None) -> None:
    """TRTLLM_FORCE_COMM_METHOD on the default route is `ref.moe_comm_forced`'s strategy
    (`ref.cite_fact("moe_comm_force")`): NVLINK_ONE_SIDED the unforced workspace's bytes,
    another strategy no bytes, an unknown name ValueError; on the legacy route it is not
    read; without a selection there is no line."""
    options = Path(tmp_path_factory.mktemp("comm")) / "adp.yaml"
    environ = {COMM: value, **({} if configurable is None else {CONFIGURABLE: configurable})}
    got = line(options, tp, adp, tp, environ, [])
    if not ref.moe_a2a_selected(tp, adp, tp):
        assert got is None, got
        return
    assert got is not None
    unset = line(options, tp, adp, tp, {} if configurable is None else
                 {CONFIGURABLE: configurable}, [])
    assert unset is not None
    if ref.moe_a2a_selects_itself(configurable):
        assert f"{COMM}={value!r} is not read" in got and _aux(got) == _aux(unset), got
        return
    why = ref.cite_fact("moe_comm_force")
    try:
        method = ref.moe_comm_forced(value)
    except ValueError:
        assert "ValueError (unknown communication method" in got, (got, why)
        assert "bytes" not in got, got
        return
    if method == "NVLINK_ONE_SIDED":
        assert _aux(got) == _aux(unset) and f"{COMM}={value!r}" in got, (got, why)
    else:
        assert method in got and "bytes" not in got and "unknown" not in got, (got, why)


def test_fixed_communication_cases(tmp_path: Path) -> None:
    """The DEP line on the default route: a lower-cased NVLINK_ONE_SIDED is the one-sided
    workspace (the name is upper-cased), ALLGATHER and NCCL_EP are other strategies without
    one, an unknown name and an empty value are ValueErrors."""
    options = tmp_path / "adp.yaml"
    aux = ref.moe_a2a_offsets(4, 8192)["payload_data"]
    assert _aux(str(line(options, 4, True, 4, {COMM: "nvlink_one_sided"}, []))) == aux
    for other in ("ALLGATHER", "nccl_ep", "DeepEPLowLatency"):
        got = str(line(options, 4, True, 4, {COMM: other}, []))
        assert f"the {other.upper()} strategy, no one-sided workspace" in got, got
        assert "bytes" not in got and "unknown" not in got, got
    for unknown in ("NVLinkOneSided_", "", "MNNVL"):
        assert "ValueError (unknown" in str(line(options, 4, True, 4, {COMM: unknown}, []))
