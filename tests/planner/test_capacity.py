"""Buffer capacities: safe for every reachable batch, tight, and audits find the real bugs."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.core.dtypes import itemsize
from tests.strategies import plan_or_reject, vllm_configs

# the seed bug is the V1 runner's (it rounds capture sizes to q): vLLM 0.33 and earlier
SEED = {"max_num_seqs": 33, "num_speculative_tokens": 3, "spec_method": "dflash",
        "runner": "v1", "engine_version": "0.33.0"}



@given(vllm_configs(max_tokens=2048))
@settings(max_examples=40)
def test_graphfit_capacities_are_safe(config: EngineConfig) -> None:
    assert plan_or_reject(config).verify().ok


@given(vllm_configs(max_tokens=1024))
@settings(max_examples=15)
def test_capacities_are_tight(config: EngineConfig) -> None:
    # one row less on any scaled buffer and some batch goes short: graphfit's capacity for
    # the batches its runtime runs, the engine rows for every batch vLLM's code runs
    p = plan_or_reject(config)
    for comp in p.components.values():
        for buf in comp.buffers:
            if buf.axis.value == "fixed" or buf.capacity == 0:
                continue
            for rows, engine in ((buf.capacity, False), (buf.engine_rows, True)):
                audit = p.verify(capacities={buf.key: rows - 1}, engine=engine)
                assert audit.violations, buf.key
                assert {v.key for v in audit.violations} == {buf.key}
                assert max(v.needed for v in audit.violations) == rows


def test_seed_bug_counterexamples_on_legacy_ladder() -> None:
    # vLLM #50065: the 33-request DFlash query (132 tokens) pads to 136 > S*q
    p = plan(EngineConfig(**SEED, ladder="vllm-legacy"))
    audit = p.verify(capacities={"drafter.positions": 132})
    assert not audit.ok
    hits = sorted(v.num_tokens for v in audit.violations)
    assert hits == [132]
    assert {(v.padded, v.capacity) for v in audit.violations} == {(136, 132)}
    [r] = audit.ranges()
    assert r.describe() == "drafter.positions: num_tokens 132 pad to 136 > capacity 132"


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


def test_mrv2_dflash_query_is_capped_at_t_over_q_53970() -> None:
    # vLLM 0.33 caps the active sequences at T // q (config/vllm.py:2378-2396): with S=64,
    # T=256, k=7 a query never exceeds 32 x 8 = 256 = T, so MRV2's [T] buffers hold it
    p = plan(EngineConfig(max_num_seqs=64, max_num_batched_tokens=256, num_speculative_tokens=7,
                          spec_method="dflash", runner="v2"))
    positions = p.buffer("drafter.positions")
    assert positions.capacity <= 256 == positions.reference_capacity
    assert positions.engine_rows == 256  # the prepare kernel writes rows up to T every call
    assert p.verify_engine().ok


def test_mrv2_dflash_engine_writes_t_rows_whatever_a_graph_needs() -> None:
    p = plan(EngineConfig(**{**SEED, "runner": "v2"}))
    ids = p.buffer("drafter.input_ids")
    assert ids.capacity == 132 and ids.engine_rows == 8192
    assert not p.verify(capacities={"drafter.input_ids": 132}).ok  # an audit: engine rows
    assert p.verify(capacities={"drafter.input_ids": 132}, engine=False).ok


def test_v1_dflash_capture_and_profiling_stay_within_the_query_reach() -> None:
    # vLLM's capture drafts min(size, S*q) tokens per captured size and its profiling run
    # min(T, S*q): no more rows than the largest query, R*q with R = min(S, T // q)
    p = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=40, num_speculative_tokens=3,
                          spec_method="dflash", attention_cudagraph_support="ALWAYS",
                          runner="v1", engine_version="0.33.0"))
    positions = p.buffer("drafter.positions")
    assert positions.capacity == 32 and positions.engine_rows == 32  # T // q = 10 > S
    assert p.verify_engine().ok


def test_draft_model_stays_within_t_in_vllm_0_33_32591() -> None:
    # the scheduler keeps the draft model's extra slot inside T (scheduler.py:721-847)
    p = plan(EngineConfig(max_num_seqs=64, num_speculative_tokens=2, spec_method="draft_model",
                          engine_version="0.33.0"))
    buf = p.buffer("drafter.input_ids")
    assert buf.capacity == buf.engine_rows == buf.reference_capacity == 8192
    assert p.verify_engine().ok


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


@given(vllm_configs(max_tokens=1024))
@settings(max_examples=20)
def test_a_buffer_plan_is_its_spec_sized(config: EngineConfig) -> None:
    # BufferPlan holds the unsized spec; shape and bytes follow from it and the capacity
    p = plan_or_reject(config)
    for comp in p.components.values():
        assert [b.spec for b in comp.buffers] == list(comp.specs)
        for b in comp.buffers:
            spec = b.spec
            assert (b.name, b.dtype, b.axis, b.fill, b.demands, b.init, b.safe_fills) == (
                spec.name, spec.dtype, spec.axis, spec.fill, spec.demands, spec.init,
                spec.safe_fills)
            assert b.shape == (*spec.leading, b.capacity, *spec.trailing)
            assert b.shape[b.axis_dim] == b.capacity
            elems = 1
            for dim in b.shape:
                elems *= dim
            assert b.bytes == elems * itemsize(b.dtype)
            assert b.reference_bytes == b.reference_capacity * b.row_bytes
            wider = dataclasses.replace(b, capacity=b.capacity + 3)
            assert wider.shape[b.axis_dim] == b.capacity + 3
            assert wider.bytes == b.bytes + 3 * b.row_bytes and wider.spec is spec


def test_separate_layout_has_no_offsets() -> None:
    p = plan(EngineConfig(**SEED), layout="separate")
    comp = p.components["drafter"]
    assert comp.total_bytes == sum(b.bytes for b in comp.buffers)


def test_ngram_and_no_spec_have_no_drafter() -> None:
    assert "drafter" not in plan(EngineConfig(max_num_seqs=4)).components
    assert "drafter" not in plan(EngineConfig(max_num_seqs=4, num_speculative_tokens=2,
                                              spec_method="ngram", runner="v1",
                                              engine_version="0.33.0")).components
    # MRV2 runs ngram on its GPU speculator: request-axis scratch and drafts
    v2 = plan(EngineConfig(max_num_seqs=4, num_speculative_tokens=2, spec_method="ngram",
                           runner="v2"))
    assert v2.buffer("drafter.drafts").shape == (4, 2)


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
