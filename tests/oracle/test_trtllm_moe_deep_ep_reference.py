"""WideEPMoE's DeepEP methods on the WIDEEP all-to-all line against the restated engine
(issue 23, s70f; tests/oracle/trtllm_reference.py, no wheel):

past MNNVL, with TRTLLM_CAN_USE_DEEP_EP "1", `select_alltoall_method_type` picks a DeepEP
method only for a bfloat16 layer with DeepEP installed, then DeepEP where
`is_deepep_feasible(moe_ep_size)` and DeepEPLowLatency otherwise, else NotEnabled
(`ref.cite_fact("moe_wideep_deep_ep")`, `ref.cite_fact("moe_wideep_feasible")`). The line
knows the checkpoint's dtype and the EP size, not whether DeepEP is installed nor the local
MPI size, so the methods it names after MNNVL must be exactly those the reference gives over
every local MPI size (1-16) and both installs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import plan
from graphfit.cli.options import build_config
from graphfit.inputs.trtllm_a2a import dtype_name
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.trtllm_options import A2A_DTYPES, TrtllmOptions
from tests.oracle import trtllm_reference as ref

WHY = (ref.cite_fact("moe_wideep_deep_ep"), ref.cite_fact("moe_wideep_feasible"))
DTYPES = ("bfloat16", "float16", None, "float32")
EP_SIZES = (2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 64)
MPI_SIZES = range(1, 17)
FALLBACK = re.compile(r"where MNNVL is supported, (.*); never this one-sided")
METHODS = ("DeepEP", "DeepEPLowLatency", "NotEnabled")


def wideep_line(folder: Path, ep: int, dtype: str | None, environ: dict[str, str]) -> str:
    """The moe_a2a_workspace line of a DEP WIDEEP line (`--tp_size ep --ep_size ep`,
    attention DP) over a top-1 MixtralForCausalLM checkpoint of `dtype` (None: untyped)."""
    model = folder / "ckpt"
    model.mkdir(exist_ok=True)
    data: dict[str, Any] = {"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
                            "num_experts_per_tok": 1, "num_hidden_layers": 2,
                            "num_attention_heads": 64, "num_local_experts": 128}
    if dtype is not None:
        data["torch_dtype"] = dtype
    (model / "config.json").write_text(json.dumps(data))
    options = folder / "options.yaml"
    options.write_text(json.dumps({"enable_attention_dp": True,
                                   "moe_config": {"backend": "WIDEEP"}}))
    config = build_config({}, environ, ["trtllm-serve", str(model), "--tp_size", str(ep),
                                        "--ep_size", str(ep), "--extra_llm_api_options",
                                        str(options)])
    return str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))


def named(text: str) -> set[str]:
    """The methods the line names after MNNVL."""
    match = FALLBACK.search(text)
    assert match, text
    return {method for method in METHODS if re.search(rf"\b{method}\b", match[1])}


def engines(ep: int, dtype: str | None) -> set[str]:
    """The methods the reference gives over every local MPI size and both installs."""
    return {ref.moe_wideep_deep_ep(ep, dtype, installed, mpi)
            for installed in (True, False) for mpi in MPI_SIZES}


@settings(max_examples=16, deadline=None)
@given(ep=st.sampled_from(EP_SIZES), dtype=st.sampled_from(DTYPES),
       legacy=st.booleans())
def test_deep_ep_methods_are_the_engines(tmp_path_factory: Any, ep: int, dtype: str | None,
                                         legacy: bool) -> None:
    """Drawn EP sizes and dtypes, on both routes (WideEPMoE is never wrapped)."""
    environ = {"TRTLLM_CAN_USE_DEEP_EP": "1", **({"ENABLE_CONFIGURABLE_MOE": "0"}
                                                 if legacy else {})}
    got = wideep_line(tmp_path_factory.mktemp("deep_ep"), ep, dtype, environ)
    assert named(got) == engines(ep, dtype), (ep, dtype, got, WHY)


# (EP size, dtype, the methods after MNNVL): an intranode size, a size no node makes
# feasible, an internode size, and the dtypes that are not bfloat16
FIXED: list[tuple[int, str | None, set[str]]] = [
    (4, "bfloat16", {"DeepEP", "DeepEPLowLatency", "NotEnabled"}),
    (8, "bfloat16", {"DeepEP", "DeepEPLowLatency", "NotEnabled"}),
    (6, "bfloat16", {"DeepEPLowLatency", "NotEnabled"}),
    (12, "bfloat16", {"DeepEPLowLatency", "NotEnabled"}),
    (16, "bfloat16", {"DeepEP", "DeepEPLowLatency", "NotEnabled"}),
    (24, "bfloat16", {"DeepEPLowLatency", "NotEnabled"}),
    (8, "float16", {"NotEnabled"}),
    (8, None, {"NotEnabled"}),
    (16, "float32", {"NotEnabled"}),
]


def test_fixed_lines(tmp_path: Path) -> None:
    """Fixed lines, each against the reference and its expected set."""
    for ep, dtype, want in FIXED:
        assert engines(ep, dtype) == want, (ep, dtype)
        got = wideep_line(tmp_path, ep, dtype, {"TRTLLM_CAN_USE_DEEP_EP": "1"})
        assert named(got) == want, (ep, dtype, got)
        if ep in (4, 16) and dtype == "bfloat16":  # the condition that makes it DeepEP
            assert ("exactly 4 MPI ranks" if ep == 4 else "each node runs 8 MPI ranks") in got


def test_without_the_switch_no_deep_ep(tmp_path: Path) -> None:
    """TRTLLM_CAN_USE_DEEP_EP unset: NotEnabled after MNNVL, whatever the dtype."""
    for dtype in DTYPES:
        got = wideep_line(tmp_path, 16, dtype, {})
        assert named(got) == {"NotEnabled"}, (dtype, got)


def test_the_dtype_name_is_read() -> None:
    """The reader keeps the name the itemsize loses (bfloat16 vs float16)."""
    base = {"hidden_size": 8, "num_experts_per_tok": 2}
    assert dtype_name({**base, "torch_dtype": "bfloat16"}) == "bfloat16"
    assert dtype_name({**base, "dtype": "torch.float16"}) == "float16"
    assert dtype_name({**base, "torch_dtype": None}) == "untyped"
    assert dtype_name(base) == "untyped"
    assert dtype_name({**base, "torch_dtype": "int8"}) is None


def test_the_dtype_option_is_validated() -> None:
    """`moe_a2a_dtype` takes the reader's names only (a frozen option, checked when built)."""
    for name in A2A_DTYPES:
        assert TrtllmOptions(moe_a2a_dtype=name).moe_a2a_dtype == name
    for bad in ("bf16", "", "torch.bfloat16", 2):
        with pytest.raises(ConfigError, match="moe_a2a_dtype"):
            TrtllmOptions(moe_a2a_dtype=bad)
