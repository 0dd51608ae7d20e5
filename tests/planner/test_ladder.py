"""vLLM 0.33 capture ladder: worked examples from docs/engines/vllm.md#capture-ladder and
properties of the rules."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan, request_counts
from tests.strategies import plan_or_reject, vllm_configs


def grid(lo: int, hi: int, step: int) -> list[int]:
    return list(range(lo, hi + 1, step))


def test_seed_config_ladder_matches_vllm() -> None:
    p = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                          max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
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
    p = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                          max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
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
    # vLLM 0.33 (0.34 adds a full-batch decode graph: tests/planner/test_vllm_releases.py)
    p = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64, engine_version="0.33.0",
                          cudagraph_capture_sizes=(1, 3, 5, 64, 128)))
    assert list(p.config_capture_sizes) == [1, 3, 5, 64]


def test_interactivity_captures_every_size_to_32() -> None:
    p = plan(EngineConfig(max_num_seqs=64, performance_mode="interactivity"))
    assert set(range(1, 33)) <= set(p.capture_sizes)


def test_blackwell_ceiling_is_1024() -> None:
    # vLLM 0.33 (0.34's Blackwell grid captures prefill graphs up to 8192 tokens)
    p = plan(EngineConfig(max_num_seqs=512, ceiling_family="blackwell", engine_version="0.33.0"))
    assert p.max_capture_size == 1024
    assert plan(EngineConfig(max_num_seqs=512, engine_version="0.33.0")).max_capture_size == 512


def test_explicit_ladder_still_gets_the_v1_rounding() -> None:
    # vLLM rounds a user list too (compilation.py:1529-1565): S=33, k=3, [8, 133, 140] is
    # captured as [8, 136, 140] and a 132-token query pads to 136, not to 133
    p = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                          max_num_seqs=33, num_speculative_tokens=3, spec_method="eagle",
                          ladder="explicit", cudagraph_capture_sizes=(8, 133, 140),
                          attention_cudagraph_support="ALWAYS"))
    assert p.config_capture_sizes == (8, 133, 140)
    assert p.capture_sizes == (8, 136, 140)
    assert p.pad(132).padded == 136
    assert p.pad(132, component="drafter").padded == 136
    assert p.buffer("drafter.input_ids").capacity == 8192
    # on V2 (no rounding) or PIECEWISE the list is captured as given
    v2 = plan(EngineConfig(max_num_seqs=8, num_speculative_tokens=2, spec_method="eagle",
                           ladder="explicit", cudagraph_capture_sizes=(1, 5, 7), runner="v2",
                           engine_version="0.33.0"))
    assert v2.capture_sizes == v2.config_capture_sizes == (1, 5, 7)


def test_user_lists_are_sorted_deduplicated_and_may_leave_no_graphs() -> None:
    # vLLM 0.33 (0.34 adds a full-batch decode graph)
    p = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64, engine_version="0.33.0",
                          cudagraph_capture_sizes=(32, 4, 2, 2, 100)))
    assert p.config_capture_sizes == (2, 4, 32)
    assert any("sorted" in w for w in p.warnings) and any("dropped" in w for w in p.warnings)
    none = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64,
                             num_speculative_tokens=1, spec_method="eagle",
                             cudagraph_capture_sizes=(100,)))
    assert none.capture_sizes == () and not none.has_graphs
    assert none.pad(5).mode.value == "NONE" and none.verify().ok
    assert none.graph_keys("target") == {} and none.graph_sizes("drafter") == ()


def test_mode_none_has_no_sizes_and_checks_nothing() -> None:
    p = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                          max_num_seqs=33, num_speculative_tokens=3, spec_method="eagle",
                          cudagraph_mode="NONE", cudagraph_capture_sizes=(5, 5),
                          max_cudagraph_capture_size=7))
    assert p.config_capture_sizes == p.capture_sizes == ()
    dflash = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                               max_num_seqs=7, num_speculative_tokens=2, spec_method="dflash",
                               cudagraph_mode="NONE"))
    assert dflash.buffer("drafter.positions").reference_capacity == 21  # S*q, max capture 0


def test_attention_support_downgrade_stops_the_rounding() -> None:
    # S=33, k=5, max 200 (docs/engines/vllm.md#attention-support): rounded, 198 runs eager;
    # downgraded, it pads to 200
    base = dict(runner="v1", max_num_seqs=33, num_speculative_tokens=5, spec_method="eagle",
                engine_version="0.33.0",
                max_cudagraph_capture_size=200)
    rounded = plan(EngineConfig(**base, attention_cudagraph_support="ALWAYS"))
    assert rounded.max_capture_size == 192 and rounded.pad(198).mode.value == "NONE"
    down = plan(EngineConfig(**base, attention_cudagraph_support="UNIFORM_SINGLE_TOKEN_DECODE"))
    assert down.cudagraph_mode.value == "PIECEWISE" and down.pad(198).padded == 200
    unknown = plan(EngineConfig(**base))
    assert unknown.assumed is not None and unknown.cudagraph_mode == rounded.cudagraph_mode
    assert {s.mode.value for s in unknown.covered} == {"PIECEWISE"}
    assert unknown.buffer("drafter.input_ids").capacity == 8192
    assert unknown.verify().ok


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
        assert not sizes or (sizes[0] >= 1 and sizes[-1] <= T)
    assert p.max_capture_size == (p.capture_sizes[-1] if p.capture_sizes else 0)


@given(vllm_configs())
def test_runtime_resolution_is_shrink_only(config: EngineConfig) -> None:
    p = plan_or_reject(config)
    assert p.max_capture_size <= p.config_ladder.max_size
    q = config.uniform_query_len
    if config.runner.value == "v1" and p.cudagraph_mode.separate_routine and q > 1:
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
    try:
        config = config.replace(runner="v1", max_cudagraph_capture_size=None,
                                engine_version="0.33.0",
                                cudagraph_capture_sizes=None, attention_backend=None,
                                attention_cudagraph_support="ALWAYS",
                                # every layer's: the draft's count too (min over all layers)
                                drafter_attention_cudagraph_support=None)
    except ConfigError:  # a V2-only method
        assume(False)
    p = plan_or_reject(config)
    q = config.uniform_query_len
    for r in range(1, config.max_num_seqs + 1):
        n = r * q
        if n > p.max_capture_size or n > config.max_num_batched_tokens:
            break
        d = p.pad(n, uniform_decode=True)
        assert d.mode.value == "FULL", (r, d)
        assert d.num_reqs is not None and r <= d.num_reqs <= config.max_num_seqs
