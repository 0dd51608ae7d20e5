"""Inkling's default FULL prefill CUDA graphs, graphfit vs SGLang 0.5.23's own code.

SGLang declares `--cuda-graph-backend-prefill full` for an Inkling target before its
cuda-graph resolution (`apply_inkling_prefill_cuda_graph_default`, arg_groups/
cuda_graph_hook.py:349-372): locked, so pipeline parallelism and a PD decode role keep it,
the deprecated `--disable-cuda-graph` does not turn it off, `--disable-prefill-cuda-graph`,
an explicit backend, the JSON phase and torch_native attention do. Per pasted line, graphfit's
plan's prefill component must equal what SGLang resolves and builds (tests/oracle/
sglang_plan_prefill.compare: backend, ladder, dispatch, buffers, fills, proof, decode), and its
static memory fraction SGLang's (the memory hook reads the locked full backend, the mamba
state cache sized from what is left: tests/oracle/test_sglang_mamba_memory_oracle.agree).
Kept small (< 60 s on one core); the grids run in `python -m tests.oracle.
measure_sglang_inkling_prefill` and `python -m tests.oracle.measure_sglang_mamba_memory
inkling`."""

from __future__ import annotations

import json

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_plan_prefill as spp  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402
from tests.oracle.test_sglang_mamba_memory_oracle import (  # noqa: E402
    _line,
    agree,
    argv_of,
    sglang_side,
)

S48 = ("--max-running-requests", "48")
PLAN_LINES: list[tuple[str, ...]] = [
    S48,  # the default: full, locked
    (*S48, "--pp-size", "2"),  # PP keeps it (the breakable default would be off)
    (*S48, "--disable-cuda-graph"),  # the per-phase flag outranks the legacy switch
    (*S48, "--disaggregation-mode", "decode"),  # a decode server keeps a locked backend
    (*S48, "--disable-prefill-cuda-graph"),  # the hook's exit: off
    (*S48, "--cuda-graph-backend-prefill", "breakable"),  # the hook's exit: as given
    (*S48, "--cuda-graph-config", json.dumps({"prefill": {"backend": "disabled"}})),
    (*S48, "--attention-backend", "torch_native", "--disable-cuda-graph"),
    (*S48, "--tp", "4", "--attn-dp-size", "2", "--chunked-prefill-size", "3000"),
]


@pytest.mark.parametrize("argv", PLAN_LINES, ids=[" ".join(a[2:]) or "-" for a in PLAN_LINES])
def test_inkling_prefill_plan_equals_sglang(argv: tuple[str, ...]) -> None:
    out = spp.compare(argv, 80, mm.model_dir(mm.INKLING))
    assert out.compared, (out.sglang_rejects, out.graphfit_refuses)
    assert not out.diffs, out.diffs


def test_oracle_inkling_default_is_full() -> None:
    """The oracle itself: SGLang's full backend on a plain Inkling line, breakable on the
    same line for the oracle's Llama model (the hook keys on the architecture)."""
    inkling = po.prefill(S48, 80, mm.model_dir(mm.INKLING))
    llama = po.prefill(S48, 80)
    assert not isinstance(inkling, so.Rejected) and not isinstance(llama, so.Rejected)
    assert (inkling.backend, llama.backend) == ("full", "breakable")


FRACTION_LINES = [
    _line(shape=mm.INKLING, pp=2),  # s37h's 88 differing lines: PP 2, default backend
    _line(shape=mm.INKLING, pp=2, tp=(4, 1), more=("--enable-scattered-sconv",)),
    _line(shape=mm.INKLING_DEFAULTS, pp=2, tp=(4, 2)),
    _line(shape=mm.INKLING, pp=2, more=("--disable-cuda-graph",)),
]


@pytest.mark.parametrize("line", FRACTION_LINES, ids=lambda p: " ".join(argv_of(p)[2:]))
def test_inkling_fraction_under_pp_equals_sglang(line: dict) -> None:
    assert agree(line) is True, (argv_of(line), sglang_side(line))


@pytest.mark.parametrize("pp", [1, 2])
def test_inkling_default_from_graphfit_flags_equals_sglang(pp: int) -> None:
    """No pasted line (graphfit's own --model-path): the planner's own default
    (sglang_prefill.full_prefill_by_default) must give SGLang's graphs for the same line."""
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    model = mm.model_dir(mm.INKLING)
    values = {"engine": "sglang", "model_path": model, "gpu_memory_gb": 80.0,
              "max_num_seqs": 48}
    given = resolve_values(values, environ={}).config().replace(pp_size=pp,
                                                                mem_fraction_static=None)
    config = graphfit.plan(given).config
    assert config.pp_size == pp
    assert config.cuda_graph_backend_prefill is None  # nothing on the way set it
    ours = prefill_graphs(config)
    sg = po.prefill((*S48, "--pp-size", str(pp)), 80, model)
    assert not isinstance(sg, so.Rejected)
    assert (ours.backend, ours.captured) == (sg.backend, sg.captured)
    slots = ours.request_slots or 1
    for n in sorted({1, 2, *sg.captured, *(c + 1 for c in sg.captured)}):
        for reqs in (1, slots, slots + 1):
            assert ours.replays(n, reqs) == sg.pad(n, reqs), (n, reqs)
    # the memory hook's reserve reads the same backend (memory_hook.py:380-397)
    theirs = po.mem_fraction((*S48, "--pp-size", str(pp)), 80, model)
    assert not isinstance(theirs, so.Rejected)
    assert config.mem_fraction_static == theirs[1]


MTP_TARGET_LINES: list[tuple[str, ...]] = [
    S48, (*S48, "--tp", "2"), (*S48, "--cuda-graph-backend-prefill", "breakable")]


@pytest.mark.parametrize("argv", MTP_TARGET_LINES,
                         ids=[" ".join(a[2:]) or "-" for a in MTP_TARGET_LINES])
def test_inkling_mtp_target_prefill_equals_sglang(argv: tuple[str, ...]) -> None:
    """The MTP architecture served as the target is multimodal, so its prefill runner holds
    input_embeds at ModelConfig's hidden_size (prefill_cuda_graph_runner.py:435-442,
    713-731): the text config class's default 1536 for a text_config that does not write it
    (configs/inkling.py:25, 309-335; graphfit took its own 4096 before s42h)."""
    out = spp.compare(argv, 80, mm.model_dir(mm.INKLING_MTP))
    assert out.compared, (out.sglang_rejects, out.graphfit_refuses)
    assert not out.diffs, out.diffs
