"""vLLM 0.33 capture ladder: worked examples from domain.md §1 and properties of the rules."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan, request_counts
from tests.strategies import plan_or_reject, vllm_configs


def grid(lo: int, hi: int, step: int) -> list[int]:
    return list(range(lo, hi + 1, step))


def test_seed_config_ladder_matches_vllm() -> None:
    p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    expected_config = sorted([1, 2, 4, *grid(8, 248, 8), 256, 132])
    assert list(p.config_capture_sizes) == expected_config
    assert len(p.config_capture_sizes) == 36
    expected_runtime = sorted([4, *grid(8, 248, 8), 132, 256])
    assert list(p.capture_sizes) == expected_runtime
    assert len(p.capture_sizes) == 34
    assert p.max_capture_size == 256


def test_small_k1_ladder() -> None:
    p = plan(EngineConfig(max_num_seqs=7, num_speculative_tokens=1, spec_method="eagle"))
    assert list(p.config_capture_sizes) == [1, 2, 4, 8, 14, 16, 24]


def test_s63_k1_max_is_248() -> None:
    p = plan(EngineConfig(max_num_seqs=63, num_speculative_tokens=1, spec_method="mtp"))
    assert p.config_ladder.max_size == 248


def test_legacy_ladder_has_no_decode_sizes() -> None:
    p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                          ladder="vllm-legacy"))
    assert 132 not in p.capture_sizes
    assert p.pad(132, component="drafter").padded == 136


def test_user_max_truncates_to_last_grid_size_54933() -> None:
    p = plan(EngineConfig(max_num_seqs=16, num_speculative_tokens=1, spec_method="eagle",
                          max_cudagraph_capture_size=42))
    assert p.config_ladder.max_size == 40
    assert any("truncated" in w for w in p.warnings)


def test_user_max_inconsistent_with_list_is_rejected() -> None:
    with pytest.raises(ConfigError, match="max_cudagraph_capture_size"):
        plan(EngineConfig(max_num_seqs=8, cudagraph_capture_sizes=(1, 2, 4, 8),
                          max_cudagraph_capture_size=16))


def test_user_list_is_kept_and_capped_at_T() -> None:
    p = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64,
                          cudagraph_capture_sizes=(1, 3, 5, 64, 128)))
    assert list(p.config_capture_sizes) == [1, 3, 5, 64]


def test_interactivity_captures_every_size_to_32() -> None:
    p = plan(EngineConfig(max_num_seqs=64, performance_mode="interactivity"))
    assert set(range(1, 33)) <= set(p.capture_sizes)


def test_blackwell_ceiling_is_1024() -> None:
    p = plan(EngineConfig(max_num_seqs=512, ceiling_family="blackwell"))
    assert p.max_capture_size == 1024
    assert plan(EngineConfig(max_num_seqs=512)).max_capture_size == 512


def test_explicit_ladder_is_used_verbatim() -> None:
    p = plan(EngineConfig(max_num_seqs=8, num_speculative_tokens=2, spec_method="eagle",
                          ladder="explicit", cudagraph_capture_sizes=(1, 5, 7)))
    assert p.capture_sizes == p.config_capture_sizes == (1, 5, 7)


def test_request_counts_grid() -> None:
    assert request_counts(300, 512) == sorted(
        {1, 2, 4, *range(8, 256, 8), *range(256, 301, 16), 300})
    assert request_counts(3, 512) == [1, 2, 3]


@given(vllm_configs())
def test_ladders_are_sorted_unique_and_bounded_by_T(config: EngineConfig) -> None:
    p = plan_or_reject(config)
    T = config.max_num_batched_tokens
    for sizes in (p.config_capture_sizes, p.capture_sizes):
        assert list(sizes) == sorted(set(sizes))
        assert sizes[0] >= 1 and sizes[-1] <= T
    assert p.max_capture_size == p.capture_sizes[-1]


@given(vllm_configs())
def test_runtime_resolution_is_shrink_only(config: EngineConfig) -> None:
    p = plan_or_reject(config)
    assert p.max_capture_size <= p.config_ladder.max_size
    q = config.uniform_query_len
    if config.runner.value == "v1" and config.cudagraph_mode.has_full_decode and q > 1:
        assert all(s % q == 0 for s in p.capture_sizes)


@given(st.integers(1, 512), st.integers(1, 15), st.sampled_from(("default", "blackwell")))
def test_widest_decode_is_a_capture_size_when_it_fits(S: int, k: int, family: str) -> None:
    # the #50488 fix: S*q is captured whenever it is under the ceiling and T
    config = EngineConfig(max_num_seqs=S, num_speculative_tokens=k, spec_method="eagle",
                          ceiling_family=family, max_num_batched_tokens=16384)
    q, D = 1 + k, config.ceiling_family.ceiling
    p = plan(config)
    if S <= D and S * q <= D:
        assert S * q in p.config_capture_sizes
        assert S * q in p.capture_sizes


@given(vllm_configs(modes=("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY")))
def test_uniform_decode_always_replays_full_under_v1(config: EngineConfig) -> None:
    # #57355 / #28207: with request-count sizes and q-rounding, no decode falls to PIECEWISE
    assume(config.runner.value == "v1" and config.max_cudagraph_capture_size is None)
    p = plan_or_reject(config)
    q = config.uniform_query_len
    for r in range(1, config.max_num_seqs + 1):
        n = r * q
        if n > p.max_capture_size or n > config.max_num_batched_tokens:
            break
        d = p.pad(n, uniform_decode=True)
        assert d.mode.value == "FULL", (r, d)
        assert d.num_reqs is not None and r <= d.num_reqs <= config.max_num_seqs
