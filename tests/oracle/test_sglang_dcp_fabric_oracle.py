"""DCP's fi_a2a where an NVLink fabric decides (issue 23 s55k): SGLang 0.5.23 picks and starts
fi_a2a on SM100 when the GPU is on an MNNVL fabric whatever the TP ranks per node
(`is_fi_a2a_supported`, utils/common.py:1056-1064), and its fabric probe answers True for a
device named GB200 / GB300 (`is_mnnvl_fabric_device`, :1038-1053). The oracle's fake GPU
reports that name for its GB200 (tests/oracle/sglang_dcp_oracle.device_named), so SGLang's
own probe, default and runner check decide each line; graphfit plans it from the GPU's name
(`--gpu-memory-gb GB200`) or from `mnnvl_fabric` in its config file
(graphfit.planner.engines.sglang_dcp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402

MRR = ("--max-running-requests", "24")
FI_A2A = ("--dcp-comm-backend", "fi_a2a")
# 8 TP ranks over 2 nodes: 4 per node do not divide by --dcp-size 8 (utils/common.py:1062)
NODES = ("--tp-size", "8", "--dcp-size", "8", *MRR, "--nnodes", "2")
GB200_SERVED: list[dc.Case] = [
    (NODES, "GB200", "llama"),  # default: fi_a2a on the fabric (a2a on the oracle's B200)
    # named, with fewer TP ranks than DCP ranks on one node: the runner starts it
    (("--tp-size", "4", "--dcp-size", "8", *MRR, *FI_A2A), "GB200", "mla"),
]


@pytest.mark.parametrize("case", GB200_SERVED, ids=range(len(GB200_SERVED)))
def test_fabric_lines_plan_fi_a2a_as_sglang(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome == "agree", diffs
    sg, (gf, _) = dc.sglang_answer(case), dc.graphfit_answer(case)
    assert dc.comm_backends(sg, gf) == ("fi_a2a", "fi_a2a")
    assert dict(gf.plan.engine_inputs)["dcp_comm_backend"].startswith("fi_a2a: FlashInfer")


def test_the_name_decides() -> None:
    """Not vacuous: without the GB200's device name SGLang's probe finds no fabric and the
    same line resolves a2a (overrides.py:1373-1396), and graphfit on a B200 (no name check)
    says not modelled."""
    from sglang.srt.arg_groups.overrides import resolving_view

    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model = GB200_SERVED[0]
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):  # the stubs' device name: no fabric
        bare = dc.so.resolve(argv, gpu_mem_gb=gb, model=dc.model_path(model),
                             capability=capability)
    assert isinstance(bare, dc.so.Resolved)
    assert resolving_view(bare.record).dcp_comm_backend == "a2a"
    gf, _ = dc.graphfit_answer((argv, "B200", model))
    assert gf.rejected is not None and dc.NOT_MODELLED in gf.rejected


def test_no_fabric_given_in_a_config_file(tmp_path: Path) -> None:
    """`mnnvl_fabric: false` on a B200 (the oracle's device has none): the default is a2a as
    SGLang resolves it, and fi_a2a named is refused with the runner's reason
    (layers/dcp/comm.py:435-448), not as not modelled."""
    path = tmp_path / "graphfit.yaml"
    path.write_text("mnnvl_fabric: false\n")
    line = (NODES, "B200", "llama")
    assert dc.compare(line, str(path)) == ("agree", [])
    gf, _ = dc.graphfit_answer(line, str(path))
    assert dc.comm_backends(dc.sglang_answer(line), gf) == ("a2a", "a2a")
    named = ((*NODES, *FI_A2A), "B200", "llama")
    outcome, said = dc.compare(named, str(path))
    assert outcome == "both refuse" and "comm.py:435-448" in said[0], said
    assert dc.NOT_MODELLED not in said[0]


def test_gpu_names_tell_the_fabric(tmp_path: Path) -> None:
    """SGLang's name check (utils/common.py:1047-1049): GB200 / GB300 only; any other name is
    NVML's answer, unknown to graphfit. The flag and a config file's `gpu_memory_gb` agree."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.inputs.gpus import gpu_mnnvl_fabric
    from tests.oracle import sglang_post_capture_oracle as pc

    assert [gpu_mnnvl_fabric(v) for v in ("GB200", "gb200", "B200", "H100", "180", 80)] == [
        True, True, None, None, None, None]
    line = pc.graphfit_line(("--tp-size", "2"), "llama", None)
    path = tmp_path / "graphfit.yaml"
    path.write_text("gpu_memory_gb: GB200\n")
    for values in ({"gpu_memory_gb": "GB200"}, {"config_file": str(path)},
                   {"gpu_memory_gb": "B200"}):
        config = resolve_values(values, environ={}, pasted=commandline.read(line)).config()
        assert config.mnnvl_fabric is (None if values.get("gpu_memory_gb") == "B200" else True)


def test_live_path_on_a_gb200() -> None:
    """The live check (`from_sglang`) of SGLang's record resolved on the GB200: the record
    carries the fi_a2a SGLang picked; `gpu_memory_gb="GB200"` tells the fabric as a pasted
    line's name does, and a GiB figure leaves it not modelled."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.integrations.sglang import from_sglang
    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model = GB200_SERVED[0]
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None), dc.device_named(gpu):
        resolved = dc.so.resolve(argv, gpu_mem_gb=gb, model=dc.model_path(model),
                                 capability=capability)
    assert isinstance(resolved, dc.so.Resolved)
    live = graphfit.plan(from_sglang(resolved.record, environ={}, gpu_memory_gb="GB200"))
    assert dict(live.engine_inputs)["dcp_comm_backend"].startswith("fi_a2a: FlashInfer")
    with pytest.raises(ConfigError, match="not modelled"):
        graphfit.plan(from_sglang(resolved.record, environ={}, gpu_memory_gb=gb, sm100=True))


# issue 23 s60k: a GB300 (SM103: capability 10.3, SGLang's sm100 probes answer as on 10.0;
# the fake device reports "NVIDIA GB300", so SGLang's own name check finds the fabric)
GB300_SERVED: list[dc.Case] = [
    (NODES, "GB300", "mla"),  # default fi_a2a on the fabric, 4 TP ranks a node vs DCP 8
    ((*NODES[:4], *MRR, *FI_A2A, "--nnodes", "4"), "GB300", "llama"),  # named: it starts
]


@pytest.mark.parametrize("case", GB300_SERVED, ids=range(len(GB300_SERVED)))
def test_gb300_lines_agree(case: dc.Case) -> None:
    """GB300 is named in graphfit's GPU table: its lines plan fi_a2a as SGLang picks and
    starts it, and the default mem_fraction_static (from the table's memory) is SGLang's."""
    outcome, diffs = dc.compare(case)
    assert outcome == "agree", diffs
    gf, _ = dc.graphfit_answer(case)
    assert dc.comm_backends(dc.sglang_answer(case), gf) == ("fi_a2a", "fi_a2a")
    theirs, ours, _ = dc.fraction(case, None)
    assert theirs is not None and ours == theirs


def test_unknown_fabric_message_names_the_option() -> None:
    """A B200 line whose fabric decides stays not modelled, and the CLI's one error line
    (at most 200 characters, graphfit.cli.errors.error_line keeps its start and end) names
    the config key and the GPU names that settle it, uncut."""
    from graphfit.cli.errors import error_line
    from graphfit.inputs.gpus import gpu_capability, gpu_memory_gb, gpu_mnnvl_fabric, gpu_sm100

    assert (gpu_mnnvl_fabric("GB300"), gpu_sm100("gb300"), gpu_capability("GB300")) == (
        True, True, 103)
    assert gpu_memory_gb("x", "GB300") == dc.GPUS["GB300"][0]
    for extra in ((), FI_A2A):
        gf, _ = dc.graphfit_answer(((*NODES, *extra), "B200", "llama"))
        assert gf.rejected is not None and dc.NOT_MODELLED in gf.rejected
        line = error_line(gf.rejected)
        assert " ... " not in line and len(line) <= 200, line
        assert "set mnnvl_fabric in a config file or name a GB200 / GB300" in line
