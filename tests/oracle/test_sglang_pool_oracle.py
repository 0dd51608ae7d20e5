"""The request pool when the KV cache binds: graphfit (sglang_pool.kv_request_pool) vs SGLang
0.5.23's own `KVCacheConfigurator.resolve_max_num_reqs` (kv_cache_configurator.py:3119),
run with the line's resolved record published (tests/oracle/sglang_oracle._pool_size)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines.sglang_pool import kv_request_pool  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

CONTEXT = 131072  # the oracle model's context length (sglang_oracle._pool_size)


def _resolved(argv: tuple[str, ...]) -> so.Resolved:
    r = so.resolve(argv, gpu_mem_gb=80)
    assert isinstance(r, so.Resolved), r
    return r


@given(st.integers(1, 3 * 10**6), st.one_of(st.none(), st.integers(1, 5000)),
       st.sampled_from((1, 2, 4)))
def test_kv_bound_pool_equals_sglang(capacity: int, S: int | None, dp: int) -> None:
    argv: tuple[str, ...] = ("--tp", "4", "--attn-dp-size", str(dp)) if dp > 1 else ()
    if S is not None:
        argv += ("--max-running-requests", str(S))
    r = _resolved(argv)
    with so.published(r):
        theirs = so._pool_size(r, capacity)
    assert kv_request_pool(capacity, CONTEXT, S, dp) == theirs
