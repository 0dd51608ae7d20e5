"""A pasted line on a hybrid mamba model, read by graphfit's own input reader and planned:
the decode ladder equals the batch sizes SGLang's target runner captures under SGLang's own
mamba-capped pool (kv_cache_configurator.py:3119-3150, decode_cuda_graph_runner.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.sglang_plan_prefill import graphfit_plan  # noqa: E402

TRACK = ("mamba_track_indices", "mamba_track_mask")
CAPACITY = 10**7  # the profiled KV capacity SGLang's side sees; --max-total-tokens caps it


def argv_of(m: int, s: int, radix_off: bool, overlap: bool, mtt: int | None,
            strategy: str) -> tuple[str, ...]:
    argv: tuple[str, ...] = ("--max-mamba-cache-size", str(m), "--max-running-requests", str(s))
    argv += ("--disable-radix-cache",) if radix_off else ()
    argv += () if overlap else ("--disable-overlap-schedule",)
    argv += () if mtt is None else ("--max-total-tokens", str(mtt))
    argv += () if strategy == "auto" else ("--mamba-radix-cache-strategy", strategy)
    return argv


@given(st.integers(1, 3000), st.integers(1, 600), st.booleans(), st.booleans(),
       st.none() | st.integers(2, 4000),
       st.sampled_from(("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")))
def test_decode_ladder_under_the_mamba_pool(m: int, s: int, radix_off: bool, overlap: bool,
                                            mtt: int | None, strategy: str) -> None:
    argv = argv_of(m, s, radix_off, overlap, mtt, strategy)
    r = mo.resolve(argv)
    try:
        run = mo.target_runner(r, CAPACITY) if isinstance(r, so.Resolved) else None
    except (RuntimeError, AssertionError):
        run = None  # SGLang's configurator refuses (state cache too small, lazy buffer)
    try:
        plan = graphfit_plan(argv, 80, mo.model_dir())
    except ConfigError:
        plan = None
    if run is None:
        # both refuse, or a validation graphfit does not restate (measure_sglang_mamba)
        return
    assert plan is not None, argv
    assert tuple(plan.capture_sizes) == run.capture_bs, argv
    # the mamba-tracking inputs (base_runner.py:123-128, registry :681-698)
    theirs = mo.track_buffers(r, run.max_bs)
    ours = {b.name: (tuple(b.shape), b.dtype, b.fill.kind.value)
            for b in plan.components["target"].buffers if b.name in TRACK}
    assert ours == theirs, argv


@pytest.mark.parametrize("track", [2, 3, 4, 8])
def test_track_interval_below_draft_tokens_refused_by_both(track: int) -> None:
    """mamba_hook.py:133: with the extra buffer, the track interval must cover the draft
    tokens (NEXTN, 4 draft tokens on the Qwen3-Next-shaped model)."""
    argv = ("--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--max-running-requests", "64", "--mamba-track-interval", str(track))
    sglang_refuses = not isinstance(mo.resolve(argv), so.Resolved)
    try:
        graphfit_plan(argv, 80, mo.model_dir())
        graphfit_refuses = False
    except ConfigError:
        graphfit_refuses = True
    assert sglang_refuses == graphfit_refuses == (track < 4)
