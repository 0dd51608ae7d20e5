"""Buffer capacities: safe for every reachable batch, tight, and audits find the real bugs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from graphfit import ConfigError, EngineConfig, plan
from tests.strategies import plan_or_reject, vllm_configs

SEED = {"max_num_seqs": 33, "num_speculative_tokens": 3, "spec_method": "dflash"}



@given(vllm_configs(max_tokens=2048))
@settings(max_examples=40)
def test_graphfit_capacities_are_safe(config: EngineConfig) -> None:
    assert plan_or_reject(config).verify().ok


@given(vllm_configs(max_tokens=1024))
@settings(max_examples=15)
def test_capacities_are_tight(config: EngineConfig) -> None:
    # one row less on any scaled buffer and some reachable batch goes short
    p = plan_or_reject(config)
    for comp in p.components.values():
        for buf in comp.buffers:
            audit = p.verify(capacities={buf.key: buf.capacity - 1})
            assert audit.violations, buf.key
            assert {v.key for v in audit.violations} == {buf.key}
            assert all(v.needed == buf.capacity for v in audit.violations)


def test_seed_bug_counterexamples_on_legacy_ladder() -> None:
    p = plan(EngineConfig(**SEED, ladder="vllm-legacy"))
    audit = p.verify(capacities={"drafter.positions": 132})
    assert not audit.ok
    hits = sorted(v.num_tokens for v in audit.violations)
    assert hits == [129, 130, 131, 132]
    assert {(v.padded, v.capacity) for v in audit.violations} == {(136, 132)}
    [r] = audit.ranges()
    assert r.describe() == "drafter.positions: num_tokens 129-132 pad to 136 > capacity 132"


def test_seed_is_safe_with_graphfit_sizing_even_on_legacy_ladder() -> None:
    p = plan(EngineConfig(**SEED, ladder="vllm-legacy"))
    assert p.verify().ok
    assert p.buffer("drafter.positions").capacity == 136


def test_dflash_query_capacity_is_pad_of_s_times_q() -> None:
    p = plan(EngineConfig(**SEED))
    assert p.buffer("drafter.positions").capacity == p.pad(132, component="drafter").padded
    assert p.buffer("drafter.positions").reference_capacity == 256  # max(S*q, max capture)
    big = plan(EngineConfig(max_num_seqs=256, num_speculative_tokens=3, spec_method="dflash"))
    assert big.buffer("drafter.positions").capacity == 1024  # S*q above the max: unpadded


def test_vllm_reference_formula_is_safe_on_v1_but_short_on_v2_53970() -> None:
    cfg = EngineConfig(max_num_seqs=1024, num_speculative_tokens=15, spec_method="dflash",
                       runner="v2")
    p = plan(cfg)
    reference = {b.key: b.reference_capacity for c in p.components.values() for b in c.buffers}
    audit = p.verify(capacities=reference)
    assert "drafter.positions" in {v.key for v in audit.violations}
    assert max(v.num_tokens for v in audit.violations) == 1024 * 16


def test_draft_model_needs_t_plus_s_tokens_32591() -> None:
    p = plan(EngineConfig(max_num_seqs=64, num_speculative_tokens=2, spec_method="draft_model"))
    buf = p.buffer("drafter.input_ids")
    assert buf.capacity == 8192 + 64 and buf.reference_capacity == 8192
    assert not p.verify(capacities={"drafter.input_ids": 8192}).ok


def test_bytes_follow_shape_and_dtype() -> None:
    p = plan(EngineConfig(**SEED, hidden_size=1024, dtype="float16"))
    hs = p.buffer("drafter.hidden_states")
    assert hs.shape == (8192, 1024) and hs.bytes == 8192 * 1024 * 2
    comp = p.components["drafter"]
    offsets = [b.offset for b in comp.buffers]
    assert all(o % 256 == 0 for o in offsets) and offsets == sorted(offsets)
    for a, b in zip(comp.buffers, comp.buffers[1:]):
        assert a.offset + a.bytes <= b.offset  # no overlap in the arena
    assert comp.total_bytes >= sum(b.bytes for b in comp.buffers)


def test_separate_layout_has_no_offsets() -> None:
    p = plan(EngineConfig(**SEED), layout="separate")
    comp = p.components["drafter"]
    assert comp.total_bytes == sum(b.bytes for b in comp.buffers)


def test_ngram_and_no_spec_have_no_drafter() -> None:
    assert "drafter" not in plan(EngineConfig(max_num_seqs=4)).components
    assert "drafter" not in plan(EngineConfig(max_num_seqs=4, num_speculative_tokens=2,
                                              spec_method="ngram")).components


@pytest.mark.parametrize("caps, match", [
    ({"drafter.nope": 3}, "nope"), ({"nope": 3}, "component.name"),
    ({"drafter.positions": -1}, "non-negative"),
])
def test_bad_audit_capacities(caps: dict[str, int], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        plan(EngineConfig(**SEED)).verify(capacities=caps)


@given(vllm_configs(max_tokens=1024))
@settings(max_examples=30)
def test_graph_sizes_cover_every_replay_and_fit_every_buffer(config: EngineConfig) -> None:
    # capturing a component at its graph sizes never slices a buffer short, and every
    # reachable batch that replays a graph finds its size among them
    p = plan_or_reject(config)
    for name, comp in p.components.items():
        sizes = set(p.graph_sizes(name))
        for buf in comp.buffers:
            for demand in buf.demands:
                if demand.stream.padded and sizes:
                    assert max(sizes) + demand.offset <= buf.capacity, (buf.key, sizes)
        top = max((b.capacity for b in comp.buffers if b.axis.value == "tokens"), default=0)
        for n in range(1, min(top, config.max_num_batched_tokens) + 1):
            d = p.pad(n, component=name)
            if d.mode.value != "NONE" and n <= max(sizes, default=0):
                assert d.padded in sizes


def test_dflash_drafter_graphs_stop_at_pad_of_s_times_q() -> None:
    p = plan(EngineConfig(**SEED))
    assert p.graph_sizes("drafter")[-1] == 132
    assert p.graph_sizes("target") == p.capture_sizes
