"""The live check on a graph-less attention backend (issue 23 s43l,
graphfit.inputs.sglang_live_graphless): SGLang 0.5.23 resolves the line on CPU
(tests/oracle/sglang_oracle) and its resolved ServerArgs record itself -- the object the
live check is handed -- goes to `graphfit.integrations.sglang.from_sglang`. The plan must have
SGLang's graphs (both phases off under torch_native / flex_attention, attention_hook.py:
122-160) and SGLang's default `mem_fraction_static` (the memory hook, pipeline.py:218, still
reserves the flags' graphs, memory_hook.py:357-399), and equal the pasted line's plan of the
same flags. The record's fields stay the raw flags after resolution (overrides.py:110-131):
a test below checks that premise on SGLang's record."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit.integrations.sglang import from_sglang  # noqa: E402
from graphfit.planner.core.enums import CUDAGraphMode  # noqa: E402
from tests.oracle import sglang_graphless_fraction as gf  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_plan_prefill as spp  # noqa: E402

MRR = ("--max-running-requests", "64")
PINNED: list[tuple[tuple[str, ...], float]] = [
    ((*MRR, "--attention-backend", "torch_native"), 80.0),
    (("--max-running-requests", "200", "--attention-backend", "flex_attention",
      "--cuda-graph-backend-prefill", "full"), 141.0),
    ((*MRR, "--attention-backend", "torch_native", "--disable-cuda-graph"), 80.0),
    ((*MRR, "--attention-backend", "torch_native", "--cuda-graph-max-bs-decode", "8"), 48.0),
    # the JSON phase turns the prefill graphs off for the memory hook too
    (("--max-running-requests", "377", "--cuda-graph-config",
      '{"prefill": {"backend": "disabled"}}', "--attention-backend", "flex_attention"), 192.0),
    # a backend with graphs: nothing changes (non-vacuity of the graph comparison)
    ((*MRR, "--attention-backend", "flashinfer"), 80.0)]


def _drawn(count: int, seed: int = 43) -> list[tuple[tuple[str, ...], float]]:
    rng = random.Random(seed)
    out: list[tuple[tuple[str, ...], float]] = []
    while len(out) < count:
        argv, gb = gf.draw_graphless(rng)
        if "--max-running-requests" in argv:  # the live check needs it (from_sglang)
            out.append((argv, gb))
    return out


def _sglang(record: Any) -> tuple[float, str, str]:
    from sglang.srt.arg_groups.overrides import resolving_view

    view = resolving_view(record)
    graphs = view.cuda_graph_config
    return (float(view.mem_fraction_static), str(getattr(graphs.decode.backend, "value",
                                                         graphs.decode.backend)),
            str(getattr(graphs.prefill.backend, "value", graphs.prefill.backend)))


def _check(argv: tuple[str, ...], gb: float) -> None:
    resolved = so.resolve(argv, gpu_mem_gb=gb)
    if isinstance(resolved, so.Rejected):  # no live record: the pasted line is refused too
        with pytest.raises(graphfit.GraphfitError):
            spp.graphfit_plan(argv, gb)
        return
    fraction, decode, prefill = _sglang(resolved.record)
    live = graphfit.plan(from_sglang(resolved.record, environ={}, gpu_memory_gb=gb)).config
    assert live.mem_fraction_static == pytest.approx(fraction, abs=1e-9), (argv, gb)
    assert (live.cudagraph_mode is CUDAGraphMode.NONE) == (decode == "disabled"), argv
    assert (live.cuda_graph_backend_prefill == "disabled") == (prefill == "disabled"), argv
    line = spp.graphfit_plan(argv, gb).config
    for field in ("mem_fraction_static", "cudagraph_mode", "cuda_graph_backend_prefill",
                  "hook_cudagraph_mode", "hook_prefill_backend"):
        assert getattr(live, field) == getattr(line, field), (field, argv)


@pytest.mark.parametrize(("argv", "gb"), PINNED)
def test_pinned_lines(argv: tuple[str, ...], gb: float) -> None:
    _check(argv, gb)


@pytest.mark.parametrize(("argv", "gb"), _drawn(4))
def test_drawn_graphless_lines(argv: tuple[str, ...], gb: float) -> None:
    _check(argv, gb)


def test_the_record_keeps_the_flags() -> None:
    """The premise: SGLang declares the graphs off into `_resolved_overrides` and leaves the
    fields as given (overrides.py:110-131), so the live reader sees the flags' graphs."""
    resolved = so.resolve(PINNED[0][0], gpu_mem_gb=80.0)
    assert not isinstance(resolved, so.Rejected)
    assert _sglang(resolved.record)[1] == "disabled"
    assert resolved.record.attention_backend == "torch_native"
    assert resolved.record.cuda_graph_config is None and not resolved.record.disable_cuda_graph
