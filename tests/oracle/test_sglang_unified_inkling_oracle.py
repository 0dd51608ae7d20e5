"""`--enable-unified-memory` where it meets FULL prefill graphs, graphfit vs SGLang 0.5.23's own
code (issue 23 s40h).

1. The order of the FULL fallback and the mamba slack. SGLang turns FULL prefill graphs off
   unless both phases run fa3 / fa4 (`handle_unified_memory_pool`, arg_groups/
   kv_cache_hook.py:690-712, pipeline.py:338), after the memory hook (pipeline.py:218) and
   before the runtime's `capped_full_prefill_role` (mem_cache/kv_cache_configurator.py:
   3011-3020), which therefore reads the fallen-back backend. That exemption only matters
   under post-capture KV sizing (:3021-3035), and under unified memory a mamba-like model is
   never sized after capture (`post_capture_kv_sizing_planned`, arg_groups/overrides.py:
   1826-1831). So graphfit, which gives the state no slack there at all (sglang_post_capture.
   _unified_keeps), already equals SGLang on the edge lines. They are kept here as a
   regression check, with a control line without unified memory where the exemption is live.
2. Inkling's default FULL prefill graphs (cuda_graph_hook.py:349-372) under unified memory,
   on a line naming no attention backend: Inkling's override picks fa4 on Hopper / SM100,
   else triton (model_overrides/inkling.py:68-73), so FULL stays on an H100 and falls back
   on an A100. A split flag keeps that override from firing (`is_attention_backend_not_set`),
   and the other phase takes SGLang's generic default. graphfit refused these lines as not
   modelled before s40h.

SGLANG_ENABLE_POST_CAPTURE_KV_SIZING is left unset for the Inkling lines. With it on, the
oracle's resolution stops at configs/inkling.py:234 (`get_exec()` before any config is
published, reached through `mambaish_config`, overrides.py:1830), so those lines are not
measured. The grid is `python -m tests.oracle.measure_sglang_unified_inkling`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_unified_backends_oracle as ub  # noqa: E402
from tests.oracle.test_sglang_post_capture_mamba_oracle import (  # noqa: E402
    CAPPED,
    _line,
    compare,
    full_prefill,
)

UNIFIED = ("--enable-unified-memory", "--disaggregation-transfer-backend", "mooncake")


def _edge(backend: str, slots: int | None, cap: int, unified: bool) -> dict[str, Any]:
    """A PD prefill server, a mamba hybrid with --max-mamba-cache-size, FULL prefill graphs,
    the weights leaving room only without the 10 GiB activation slack (CAPPED)."""
    extra = (*full_prefill(slots, cap), "--attention-backend", backend,
             *(UNIFIED if unified else ()))
    return _line(**dict(CAPPED, weights=0.5, extra=extra))


@pytest.mark.parametrize(("backend", "slots", "cap"), [("triton", 4, 4), ("flashinfer", None, 1)])
def test_unified_mamba_pd_prefill_full_off_fa3_equals_sglang(backend: str, slots: int | None,
                                                               cap: int) -> None:
    disagreement, post_capture = compare(_edge(backend, slots, cap, unified=True))
    assert disagreement is None
    assert post_capture is False  # SGLang: no post-capture sizing, so no exemption to read


def test_the_exemption_is_live_without_unified_memory() -> None:
    """The control: the same line without unified memory is sized after capture, where the
    capped exemption decides the slack."""
    disagreement, post_capture = compare(_edge("triton", 4, 4, unified=False))
    assert disagreement is None and post_capture is True


def sglang_side(argv: tuple[str, ...], gpu: str) -> ub.Outcome:
    """SGLang's final prefill-graph backend and fraction for an Inkling line, None: refused."""
    gb, capability = ub.GPUS[gpu]
    r = so.resolve(argv, gpu_mem_gb=gb, model=mm.model_dir(mm.INKLING), capability=capability)
    if isinstance(r, so.Rejected):
        return None
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    return ub._value(cfg.cuda_graph_config.prefill.backend), float(cfg.mem_fraction_static)


def graphfit_side(argv: tuple[str, ...], gpu: str) -> tuple[str, float | None] | str:
    """graphfit's planned prefill-graph backend and fraction, or its refusal's message."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    line = ["python", "-m", "sglang.launch_server", "--model-path",
            mm.model_dir(mm.INKLING), *argv]
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        return prefill_graphs(config).backend, config.mem_fraction_static
    except ConfigError as exc:
        return str(exc)


BASE = ("--enable-unified-memory", "--max-running-requests", "48")
INKLING_LINES = [
    ("H100", BASE, "full"),  # the override's fa4: FULL kept
    ("A100", BASE, "disabled"),  # the override's triton: FULL falls back
    ("H100", (*BASE, "--prefill-attention-backend", "fa3"), "full"),  # generic fa3 decode
    ("A100", (*BASE, "--decode-attention-backend", "fa4"), "disabled"),  # generic prefill
    ("H100", (*BASE, "--disaggregation-mode", "prefill",
              "--disaggregation-transfer-backend", "mooncake"), "full"),
]


@pytest.mark.parametrize(("gpu", "argv", "expected"), INKLING_LINES,
                         ids=[f"{g} {' '.join(a[3:])}" for g, a, _ in INKLING_LINES])
def test_inkling_unified_line_naming_no_backend_equals_sglang(gpu: str, argv: tuple[str, ...],
                                                             expected: str) -> None:
    theirs, ours = sglang_side(argv, gpu), graphfit_side(argv, gpu)
    assert theirs is not None and theirs[0] == expected  # the oracle fact the line is for
    assert not isinstance(ours, str), ours  # planned, not refused as not modelled
    assert ub.verdict(theirs, ours) is None
