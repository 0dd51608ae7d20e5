"""Ladder properties, capacity formulas and source conflicts as properties over many configs."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cli.options import build_config
from graphfit.inputs.variants import variant
from graphfit.planner.analysis import capexpr
from graphfit.planner.analysis.properties import PROPERTIES, counterexamples

METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash")


@given(st.integers(1, 128), st.integers(1, 15), st.sampled_from(METHODS),
       st.integers(1, 4096))
def test_vllm_033_captures_every_decode_full(S: int, k: int, method: str, T: int) -> None:
    """With request-count sizes, every decode up to S*q <= min(512, T) replays FULL and the
    widest one is captured exactly; the legacy ladder is where #57355/#50488 live."""
    q = 1 + k
    assume(S * q <= min(512, T) and T >= S)
    p = plan(EngineConfig(max_num_seqs=S, max_num_batched_tokens=T, num_speculative_tokens=k,
                          spec_method=method, runner="v1", engine_version="0.33.0"))
    assert counterexamples(p, "decodes_full") == []
    assert counterexamples(p, "widest_decode_captured") == []
    assert counterexamples(p, "sizes_multiple_of_q") == []  # the V1 runner's rounding


@given(st.integers(1, 300), st.integers(0, 15))
def test_legacy_counterexamples_are_exactly_the_uncaptured_widths(S: int, k: int) -> None:
    q = 1 + k
    p = plan(EngineConfig(max_num_seqs=S, num_speculative_tokens=k,
                          spec_method="eagle" if k else "none", ladder="vllm-legacy"))
    found = counterexamples(p, "widest_decode_captured")
    assert found == ([] if S * q in p.capture_sizes else [S * q])


def test_unknown_property_or_stage() -> None:
    p = plan(EngineConfig(max_num_seqs=4))
    with pytest.raises(ConfigError, match="property"):
        counterexamples(p, "nope")
    with pytest.raises(ConfigError, match="stage"):
        counterexamples(p, "sizes_multiple_of_q", "later")
    assert set(PROPERTIES) == {"decodes_full", "sizes_multiple_of_q", "widest_decode_captured",
                               "graph_tokens_within_budget"}


@given(S=st.integers(1, 64), k=st.integers(0, 7), a=st.integers(0, 50), b=st.integers(1, 50))
def test_capacity_formulas_are_integer_arithmetic(S: int, k: int, a: int, b: int) -> None:
    p = plan(EngineConfig(max_num_seqs=S, max_num_batched_tokens=max(S, 256),
                          num_speculative_tokens=k, spec_method="eagle" if k else "none"))
    q, T, C = 1 + k, p.config.max_num_batched_tokens, p.config_ladder.max_size
    formula = f"max(S*q + {a}, C) - min(T // {b}, {a}) + {a}*k"
    assert capexpr.evaluate(formula, p) == max(S * q + a, C) - min(T // b, a) + a * k


@given(S=st.integers(1, 64), a=st.integers(1, 8), b=st.integers(1, 8))
def test_peer_sources_conflict_iff_values_differ(S: int, a: int, b: int) -> None:
    spec = json.dumps({"method": "eagle", "num_speculative_tokens": a})
    flags = {"max_num_seqs": S, "speculative_config": spec, "num_speculative_tokens": b}
    if a == b:
        assert build_config(flags, {}).num_speculative_tokens == a
    else:
        with pytest.raises(ConfigError, match="--num-speculative-tokens gives"):
            build_config(flags, {})


def test_compare_variant_switching_engine_resets_engine_fields() -> None:
    base = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="eagle",
                        max_cudagraph_capture_size=64)
    other, notes = variant(base, "engine=sglang;speculative_eagle_topk=1")
    assert (other.engine.value, other.ladder.value) == ("sglang", "sglang-spec")
    assert other.max_cudagraph_capture_size is None and notes
    same, notes = variant(base, "vllm-legacy")
    assert same.max_cudagraph_capture_size == 64 and not notes
    explicit, _ = variant(base, "4,8,16")
    assert explicit.cudagraph_capture_sizes == (4, 8, 16)
    with pytest.raises(ConfigError, match="empty"):
        variant(base, " ")
