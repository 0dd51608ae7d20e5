"""Padding and dispatch: pad(n) >= n, minimal, monotone, unpadded above the max."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graphfit import BatchError, CUDAGraphMode, EngineConfig, plan
from tests.strategies import plan_or_reject, vllm_configs


@given(vllm_configs(max_tokens=2048), st.sampled_from(("target", "drafter")))
def test_pad_is_the_smallest_capture_size_at_or_above_n(config: EngineConfig,
                                                        component: str) -> None:
    p = plan_or_reject(config)
    assume(component in p.components)
    sizes = set(p.capture_sizes)
    # vLLM 0.34 splits prefill and decode graphs: the recorded capture list is not the
    # runner's graphs (FULL_DECODE_ONLY downgraded to PIECEWISE captures prefill sizes)
    split = bool(getattr(config.model, "changes", None) and config.model.changes.split_sizes)
    keys = p.graph_keys(component)
    previous = 0
    for n in range(1, config.max_num_batched_tokens + 1):
        d = p.pad(n, component=component)
        assert d.padded >= n
        assert d.padded >= previous  # monotone
        previous = d.padded
        if d.mode is CUDAGraphMode.NONE:
            assert d.padded == n  # eager batches are never padded
            assert n > p.max_capture_size or p.cudagraph_mode.mixed_mode is not \
                CUDAGraphMode.PIECEWISE or component == "drafter"
        elif split:  # 0.34: the runner's graphs are keyed apart from the recorded list
            same = {k.padded for k, modes in keys.items() if d.mode in modes}
            assert d.padded in same
            assert not any(n <= s < d.padded for s in same)  # minimal
        else:
            assert d.padded in sizes
            assert not any(n <= s < d.padded for s in sizes)  # minimal


@given(vllm_configs(max_tokens=2048))
def test_uniform_decode_keys(config: EngineConfig) -> None:
    p = plan_or_reject(config)
    q, S = config.uniform_query_len, config.max_num_seqs
    for r in range(1, min(S, config.max_num_batched_tokens // q) + 1):
        d = p.pad(r * q, uniform_decode=True, num_reqs=r)
        assert d.padded >= r * q
        if d.mode is CUDAGraphMode.FULL:
            assert d.num_reqs is not None and r <= d.num_reqs <= S
            if p.cudagraph_mode.separate_routine:
                assert d.padded % q == 0 and d.num_reqs == d.padded // q
            else:  # mode FULL: the mixed FULL key (cudagraph_dispatcher.py:138-157)
                assert d.num_reqs == min(d.padded, S)
        if d.mode is CUDAGraphMode.PIECEWISE:
            assert d.num_reqs is None


def test_mode_none_never_pads() -> None:
    p = plan(EngineConfig(max_num_seqs=8, cudagraph_mode="NONE"))
    assert all(p.pad(n) .padded == n for n in range(1, 300))


def test_full_decode_only_runs_mixed_batches_eagerly() -> None:
    p = plan(EngineConfig(max_num_seqs=8, num_speculative_tokens=1, spec_method="eagle",
                          cudagraph_mode="FULL_DECODE_ONLY"))
    assert p.pad(5).mode is CUDAGraphMode.NONE
    assert p.pad(6, uniform_decode=True).mode is CUDAGraphMode.FULL


def test_full_mode_keys_mixed_batches_with_request_count() -> None:
    p = plan(EngineConfig(max_num_seqs=8, cudagraph_mode="FULL"))
    d = p.pad(13)
    assert d.mode is CUDAGraphMode.FULL and d.padded == 16 and d.num_reqs == 8


def test_above_max_runs_eagerly() -> None:
    p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    d = p.pad(300)
    assert d.mode is CUDAGraphMode.NONE and d.padded == 300


@pytest.mark.parametrize("kwargs", [
    {"num_tokens": 0}, {"num_tokens": 7, "uniform_decode": True},
    {"num_tokens": 8, "uniform_decode": True, "num_reqs": 3},
    {"num_tokens": 8, "num_reqs": 99},
])
def test_bad_batch_queries_raise(kwargs: dict[str, object]) -> None:
    p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    with pytest.raises(BatchError):
        p.pad(**kwargs)  # type: ignore[arg-type]


def test_unknown_component() -> None:
    with pytest.raises(BatchError, match="drafter"):
        plan(EngineConfig(max_num_seqs=4)).pad(1, component="drafter")
