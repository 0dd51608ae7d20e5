"""SGLang's default mem_fraction_static (graphfit/planner/engines/sglang_memory.py): the PD
roles' invariants. Equality with SGLang is tests/oracle/test_sglang_memory_oracle.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.planner.engines.sglang_memory import (
    StaticMemoryInputs,
    graph_reserve_mib,
    mem_fraction_static,
    reserved_mib,
)

memory = st.builds(
    StaticMemoryInputs,
    gpu_memory_gb=st.sampled_from((None, 16.0, 24.0, 48.0, 80.0, 141.0, 192.0)),
    disaggregation_mode=st.sampled_from(("null", "prefill", "decode")),
    max_running_requests=st.one_of(st.none(), st.integers(1, 4096)),
    decode_max_bs=st.integers(1, 1024), decode_graphs=st.booleans(),
    prefill_graphs=st.booleans(), prefill_sizes=st.integers(0, 80),
    chunked_prefill_size=st.integers(1, 32768),
    draft_tokens=st.one_of(st.none(), st.integers(1, 64)),
    tp_size=st.sampled_from((1, 2, 4, 8)), pp_size=st.sampled_from((1, 2)),
    attn_dp_size=st.sampled_from((1, 2, 4, 8)))


@given(memory)
def test_roles_drop_the_other_phase_s_graph_reserve(m: StaticMemoryInputs) -> None:
    if m.disaggregation_mode == "decode":
        assert graph_reserve_mib(m) == graph_reserve_mib(replace(m, prefill_graphs=False))
    if m.disaggregation_mode == "prefill":
        assert graph_reserve_mib(m) == graph_reserve_mib(
            replace(m, decode_graphs=False, attn_dp_size=1))


@given(memory)
def test_fraction_follows_the_reserve(m: StaticMemoryInputs) -> None:
    fraction = mem_fraction_static(m)
    if m.gpu_memory_gb is None:
        assert fraction == 0.95
        return
    assert fraction < 1
    more = replace(m, decode_max_bs=m.decode_max_bs + 64)
    assert reserved_mib(more) >= reserved_mib(m) and mem_fraction_static(more) <= fraction


@given(memory)
def test_decode_role_reserves_for_running_requests_times_drafts(m: StaticMemoryInputs) -> None:
    decode = replace(m, disaggregation_mode="decode", gpu_memory_gb=16.0)
    bigger = replace(decode, draft_tokens=(decode.draft_tokens or 1) + 8)
    assert reserved_mib(bigger) >= reserved_mib(decode)


@pytest.mark.parametrize("bad", [dict(disaggregation_mode="both"),
                                 dict(chunked_prefill_size=True),
                                 dict(max_prefill_tokens="16384")])
def test_bad_inputs(bad: dict[str, object]) -> None:
    base: dict[str, object] = dict(gpu_memory_gb=80.0, disaggregation_mode="null",
                                   max_running_requests=None, decode_max_bs=8,
                                   decode_graphs=True, prefill_graphs=True, prefill_sizes=10,
                                   chunked_prefill_size=8192)
    with pytest.raises(ConfigError):
        StaticMemoryInputs(**{**base, **bad})  # type: ignore[arg-type]


@given(st.integers(1, 10**7), st.integers(1, 10**6), st.one_of(st.none(), st.integers(1, 10**4)),
       st.sampled_from((1, 2, 4, 8)))
def test_kv_pool_never_exceeds_half_the_tokens_nor_the_requests(
        capacity: int, context: int, S: int | None, dp: int) -> None:
    from graphfit.planner.engines.sglang_pool import kv_request_pool

    pool = kv_request_pool(capacity, context, S, dp)
    assert pool <= capacity // 2
    if S is not None:
        assert pool <= max(1, S // dp)
        if capacity // 2 >= max(1, S // dp):
            assert pool == max(1, S // dp)  # the KV cache does not bind
    else:
        assert pool <= 4096
