"""The generalized keyed protocol (graphfit.planner.core.keyed, keyed_plan): opaque keys with
a stable text form, per-buffer rows, batches measured against bounds; and SGLang's ViT graphs
as the keyed component `vit` of the SGLang plan (graphfit.planner.engines.sglang_vit_keyed).

Invariants, checked by brute force over every batch the toy dispatch admits: each buffer's
capacity is the most rows a captured key reads in it, no batch replays a graph that reads
more, and one row less a witness batch goes short. For `vit`: the plan's buffers, keys,
capacities and reference bytes are the ViT plan's (whose agreement with SGLang's own
runners is tests/oracle/test_sglang_vit_oracle.py), and its proof is the plan's proof.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.keyed import KeyedDispatch
from graphfit.planner.document import plan_document
from graphfit.planner.engines import sglang_vit as sv
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.sglang_vit_keyed import key_text, vit_option, vit_pairs
from graphfit.planner.keyed_plan import keyed_capacities
from tests.planner.test_sglang_vit import cases

# a toy engine: a batch is a tuple of words; the key is the sorted set of word lengths
# (an opaque, non-integer key), "chars" reads the padded total characters and "bounds" one
# row per distinct length plus one (a boundary buffer on the request axis)
Batch = tuple[str, ...]


def _key(batch: Batch) -> frozenset[int]:
    return frozenset(len(w) for w in batch)


def _pad(key: frozenset[int]) -> int:
    return 8 * -(-sum(key) // 8)  # the total of the distinct lengths, rounded up to 8


def _admit(batch: object) -> Batch:
    if not isinstance(batch, tuple) or not batch or not all(
            isinstance(w, str) and w for w in batch):
        raise ConfigError(f"toy: not a batch {batch!r}")
    return batch


def _text(key: frozenset[int]) -> str:
    return "+".join(map(str, sorted(key)))


def _toy(captured: frozenset[frozenset[int]], words: tuple[str, ...], max_words: int
         ) -> tuple[KeyedComponentModel, list[Batch]]:
    batches = [b for k in range(1, max_words + 1) for b in product(words, repeat=k)]
    witnesses: dict[frozenset[int], Batch] = {}
    for b in batches:
        if _key(b) in captured:
            witnesses.setdefault(_key(b), b)
    dispatch = KeyedDispatch(_key, frozenset(witnesses), _pad,
                             {"bounds": lambda k: len(k) + 1}, text=_text, key_json=_text,
                             order=lambda k: (sum(k), _text(k)), admit=_admit)
    specs = (BufferSpec("chars", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 0, ZERO),
             BufferSpec("bounds", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),), 0,
                        ZERO))
    longest = max(len(w) for w in words)
    model = KeyedComponentModel(
        "toy", dispatch, (max_words, max_words * longest), specs, witnesses,
        measure=lambda b: (len(b), sum(len(w) for w in b)), bound_names=("words", "chars"),
        key_names=("lengths",))
    return model, batches


toys = st.tuples(
    st.lists(st.text("ab", min_size=1, max_size=6), min_size=1, max_size=4, unique=True),
    st.integers(1, 3), st.integers(0, 2 ** 16))


@given(toys)
def test_capacities_per_buffer_cover_every_batch_and_are_tight(toy: Any) -> None:
    words, max_words, mask = toy
    every = {_key(b) for k in range(1, max_words + 1) for b in product(words, repeat=k)}
    captured = frozenset(k for i, k in enumerate(sorted(every, key=_text)) if mask >> i & 1)
    model, batches = _toy(captured, tuple(words), max_words)
    caps = keyed_capacities(model)
    for batch in batches:  # brute force: no batch replays a graph reading more
        key = model.dispatch.lookup(batch)
        assert (key is None) == (_key(batch) not in captured)
        if key is not None:
            for name in caps:
                assert model.dispatch.rows_of(key, name) <= caps[name]
    for name, cap in caps.items():  # tight: the most some captured key reads
        assert cap == max((model.dispatch.rows_of(k, name) for k in captured), default=0)


def test_a_toy_component_in_a_plan_checks_per_buffer_and_names_a_witness() -> None:
    model, _ = _toy(frozenset({frozenset({1}), frozenset({1, 3})}), ("a", "abb"), 2)
    from graphfit.planner.plan import _sized_keyed

    comp = _sized_keyed(model, "arena", 256)
    assert {b.name: b.capacity for b in comp.buffers} == {"chars": 8, "bounds": 3}
    assert comp.check({"chars": 8, "bounds": 3}) == ([], 4)
    found, _ = comp.check({"chars": 8, "bounds": 2})
    assert [(r.buffer, r.padded, r.capacity) for r in found] == [("bounds", 3, 2)]
    assert found[0].describe().startswith("toy.bounds: a call of words 2, chars 4 reads 3 rows")
    assert comp.graph_keys == (frozenset({1}), frozenset({1, 3}))
    with pytest.raises(ConfigError, match="outside the bounds"):
        comp.lookup(("abb", "abb", "a"))


def test_protocol_refusals() -> None:
    spec = BufferSpec("r", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),), 0, ZERO)
    plain = KeyedDispatch(lambda b: (1,), frozenset({(1,)}), lambda k: 1)
    with pytest.raises(ConfigError, match="token rows"):  # off the token axis, no own rule
        KeyedComponentModel("toy", plain, (1, 1, 1), (spec,), {(1,): (1, 1, 1)})
    with pytest.raises(ConfigError, match="share one text"):
        KeyedDispatch(lambda b: "a", frozenset({"a", "b"}), lambda k: 1, text=lambda k: "x")
    with pytest.raises(ConfigError, match="not a tuple of integers"):  # default text form
        KeyedDispatch(lambda b: "a", frozenset({"a"}), lambda k: 1)
    with pytest.raises(ConfigError, match="rows rule for no buffer"):
        KeyedComponentModel("toy", KeyedDispatch(lambda b: (1,), frozenset({(1,)}),
                                                 lambda k: 1, {"nope": lambda k: 1}),
                            (1, 1, 1), (), {(1,): (1, 1, 1)})
    with pytest.raises(ConfigError, match="bound name"):
        KeyedComponentModel("toy", plain, (1, 1), (), {(1,): (1, 1, 1)})


def _config(geometry: sv.VitGeometry, workload: sv.VitWorkload) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4,
                                   "options": {"vit": vit_pairs(geometry, workload)}})


@given(cases())
def test_the_vit_component_is_the_vit_plan_inside_the_plan(case: Any) -> None:
    geometry, workload = case
    vit = sv.plan_vit(geometry, workload)
    result = plan(_config(geometry, workload))
    comp = result.keyed["vit"]
    assert set(comp.graph_keys) == set(vit.keys)
    assert {b.name: b.capacity for b in comp.buffers} == {b.name: b.rows for b in vit.buffers}
    assert {b.name: b.shape for b in comp.buffers} == {
        b.name: (b.rows, *b.row_shape) for b in vit.buffers}
    assert comp.reference_bytes == (vit.sglang_bytes if comp.buffers else 0)
    assert result.total_bytes >= sum(c.total_bytes for c in result.components.values()) + sum(
        b.bytes for b in comp.buffers)
    for key in comp.graph_keys:  # each key's rows are SGLang's, and its witness replays it
        assert comp.rows(key) == {b.name: b.rows for b in sv.key_buffers(geometry, key)}
        assert comp.lookup(comp.witness(key)) == key
    texts = [key_text(k) for k in comp.graph_keys]
    assert len(set(texts)) == len(texts)
    verification = result.verify()
    assert verification.ok
    for b in comp.buffers:  # one row less, the plan's own proof goes short
        if b.capacity:
            short = result.verify(capacities={b.key: b.capacity - 1}, engine=False)
            assert not short.ok and {r.buffer for r in short.violations} == {b.name}
    doc = plan_document(result, verification)["keyed_components"]["vit"]
    assert [g["key"] for g in doc["graphs"]] == texts
    assert doc["bound_names"] == ["images", "tokens", "largest_image"]


@given(cases())
def test_the_option_round_trips_and_normalizes(case: Any) -> None:
    geometry, workload = case
    pairs = vit_pairs(geometry, workload)
    assert vit_option(pairs) == (geometry, workload)
    assert vit_option(dict(pairs)) == (geometry, workload)
    config = _config(geometry, workload)
    assert EngineConfig.from_dict(config.to_dict()) == config
    assert config.vit == pairs


def test_a_plan_without_vit_has_no_vit_component() -> None:
    result = plan(EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4}))
    assert "vit" not in result.keyed
    assert "keyed_components" not in plan_document(result, result.verify())


@given(cases())
def test_a_call_outside_the_workload_is_refused_not_replayed(case: Any) -> None:
    """`admit` takes only calls of the workload: a grid it does not send, or more images
    than one call holds, is a ConfigError (never a key); the bounds hold every witness."""
    geometry, workload = case
    comp = plan(_config(geometry, workload)).keyed["vit"]
    for key in comp.graph_keys:
        counts = comp.counts(comp.witness(key))
        assert all(c <= b for c, b in zip(counts, comp.bounds, strict=True))
    grid = (1, 2 * geometry.spatial_merge_size * 97, 2 * geometry.spatial_merge_size)
    if geometry.family != "internvl":
        with pytest.raises(ConfigError, match="not one of the workload"):
            comp.lookup((grid,))
    first = workload.grids[0] if geometry.family != "internvl" else (1, 1, 1)
    with pytest.raises(ConfigError, match="images"):
        comp.lookup((first,) * (workload.max_images + 1))
    with pytest.raises(ConfigError):
        comp.lookup("1x2x2")
