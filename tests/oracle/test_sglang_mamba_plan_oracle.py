"""A pasted line on a hybrid mamba model, read by graphfit's own input reader and planned:
the decode ladder equals the batch sizes SGLang's target runner captures under SGLang's own
mamba-capped pool (kv_cache_configurator.py:3119-3150, decode_cuda_graph_runner.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.sglang_plan_prefill import graphfit_plan  # noqa: E402

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
        theirs: tuple[int, ...] | None = (
            mo.target_capture_bs(r, CAPACITY) if isinstance(r, so.Resolved) else None)
    except (RuntimeError, AssertionError):
        theirs = None  # SGLang's configurator refuses (state cache too small, lazy buffer)
    try:
        ours: tuple[int, ...] | None = tuple(graphfit_plan(argv, 80, mo.model_dir())
                                             .capture_sizes)
    except ConfigError:
        ours = None
    if theirs is None and ours is not None:
        return  # a validation graphfit does not restate (counted by measure_sglang_mamba)
    assert ours == theirs, argv
