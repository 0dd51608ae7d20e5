"""Invariants of the `vit` component's plan (graphfit/planner/engines/sglang_vit.py); SGLang's
own runners are compared in tests/oracle/test_sglang_vit_oracle.py."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_vit as sv


@st.composite
def cases(draw: Any) -> tuple[sv.VitGeometry, sv.VitWorkload]:
    family = draw(st.sampled_from(sv.FAMILIES))
    heads = draw(st.sampled_from([1, 2, 4, 16]))
    merge = draw(st.sampled_from([1, 2]))
    geometry = sv.VitGeometry(
        family, heads * draw(st.sampled_from([8, 64, 80])), heads, patch_size=14,
        spatial_merge_size=merge, window_size=draw(st.integers(1, 8)) * merge * 14,
        fullatt_blocks=(0,), max_context_len=draw(st.sampled_from([None, 100, 5000])),
        tokens_per_tile=draw(st.integers(1, 1025)))
    side = st.integers(1, 20).map(lambda k: k * merge)
    grids = draw(st.lists(st.tuples(st.integers(1, 3), side, side), min_size=1, max_size=3))
    return geometry, sv.VitWorkload(tuple(grids), draw(st.integers(1, 3)))


@given(cases())
def test_every_reachable_key_fits_and_capacities_are_tight(case: Any) -> None:
    geometry, workload = case
    plan = sv.plan_vit(geometry, workload)
    assert plan.verify() == ()
    rows: dict[str, list[int]] = {}
    for key in plan.keys:
        for b in sv.key_buffers(geometry, key):
            assert b.rows <= plan.capacity(b.name)
            rows.setdefault(b.name, []).append(b.rows)
    # tight: each capacity is some key's rows (one row less fails that key)
    assert {n: max(r) for n, r in rows.items()} == dict(plan.capacities)
    assert plan.total_bytes <= plan.sglang_bytes or geometry.family == "kimi_k3"


@given(cases())
def test_layouts_cover_exactly_the_tokens(case: Any) -> None:
    """No padding: a call's layouts start at 0, never decrease and end at its S tokens."""
    geometry, workload = case
    if geometry.family not in ("qwen2_5_vl", "qwen3_vl"):
        return
    for call in sv.reachable_calls(workload):
        tokens = sum(t * h * w for t, h, w in call)
        key = sv.graph_key(geometry, call)
        assert key[0] == tokens
        for layout in key[1]:  # type: ignore[union-attr]
            if layout is None:
                continue
            assert layout[0] == 0 and layout[-1] == tokens
            assert all(a <= b for a, b in itertools.pairwise(layout))
        if geometry.family == "qwen2_5_vl":
            window = key[1][1]  # type: ignore[index]
            assert all(a < b for a, b in itertools.pairwise(window))


@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=20),
       st.sampled_from([None, 1, 4096]))
def test_workspace_always_holds_the_current_graph(tokens: list[int], max_context: int | None
                                                  ) -> None:
    geometry = sv.VitGeometry("qwen3_vl", 64, 4, max_context_len=max_context)
    rows = sv.workspace_rows(geometry, tokens)
    assert list(rows) == sorted(set(rows))  # each new pair is larger
    seen = 0
    for s in tokens:
        seen = max(seen, s)
        assert any(r >= s for r in rows)
    assert rows[-1] >= seen


@given(st.lists(st.lists(st.sampled_from([(1, 4, 4), (1, 100, 100), (2, 8, 8)]),
                         min_size=1, max_size=2).map(tuple), max_size=40),
       st.integers(1, 3), st.integers(1, 3), st.sampled_from([None, 500]))
def test_kimi_captures_are_bounded_and_replays_follow_a_capture(
        calls: list[tuple[tuple[int, int, int], ...]], capacity: int, min_hits: int,
        max_seqlen: int | None) -> None:
    out = sv.kimi_outcomes(calls, capacity=capacity, min_hits=min_hits,
                           max_seqlen=max_seqlen)
    captured: set[Any] = set()
    for call, what in zip(calls, out, strict=True):
        if what == "capture":
            assert call not in captured
            assert max_seqlen is None or max(t * h * w for t, h, w in call) <= max_seqlen
            captured.add(call)
        assert (what == "replay") == (call in captured and what != "capture")
    assert len(captured) <= capacity


def test_bad_inputs_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        sv.VitGeometry("clip", 64, 4)
    with pytest.raises(ConfigError):
        sv.VitGeometry("qwen3_vl", 63, 4)
    with pytest.raises(ConfigError):
        sv.VitGeometry("qwen2_5_vl", 64, 4)  # no window size
    with pytest.raises(ConfigError):
        sv.VitGeometry("qwen3_vl", 64, 4, tp=3)
    with pytest.raises(ConfigError):
        sv.VitGeometry("internvl", 64, 4, tokens_per_tile=5, dummy_heads=-1)
    assert sv.VitGeometry("internvl", 64, 4, tokens_per_tile=5, dummy_heads=4,
                          tp=8).heads_per_rank == 1
    with pytest.raises(ConfigError):
        sv.VitWorkload((), 1)
    with pytest.raises(ConfigError):
        sv.VitWorkload(5, 1)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        sv.VitWorkload((7,), 1)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        sv.VitWorkload(((1, 0, 4),), 1)
    geometry = sv.VitGeometry("qwen3_vl", 64, 4)
    with pytest.raises(ConfigError):
        sv.graph_key(geometry, [(1, 3, 4)])  # not whole merge blocks
    with pytest.raises(ConfigError):
        sv.plan_vit(geometry, sv.VitWorkload(tuple((1, 2 * k, 2) for k in range(1, 40)), 4))


@given(cases())
def test_one_row_less_fails_exactly_the_keys_that_need_it(case: Any) -> None:
    geometry, workload = case
    plan = sv.plan_vit(geometry, workload)
    for name, cap in plan.capacities:
        found = plan.verify({name: cap - 1})
        need = {k for k in plan.keys for b in sv.key_buffers(geometry, k)
                if b.name == name and b.rows == cap}
        assert found and {v.key for v in found} == need
        assert all(v.buffer == name and v.rows > v.capacity for v in found)
    with pytest.raises(ConfigError):
        plan.verify({"nope": 1})


@st.composite
def kimi_cases(draw: Any) -> tuple[sv.VitGeometry, sv.VitWorkload]:
    merge = draw(st.sampled_from([1, 2, 3]))
    heads = draw(st.sampled_from([1, 2, 16]))
    geometry = sv.VitGeometry("kimi_k3", heads * 8, heads, patch_size=draw(st.sampled_from(
        [2, 14])), spatial_merge_size=merge, qkv_hidden_size=heads * draw(st.sampled_from(
            [4, 96])))
    side = st.integers(1, 40).map(lambda k: k * merge)
    grids = draw(st.lists(st.tuples(st.integers(1, 3), side, side), min_size=1, max_size=3))
    return geometry, sv.VitWorkload(tuple(grids), draw(st.integers(1, 3)))


@given(kimi_cases(), st.integers(1, 4))
def test_kimi_buffers_follow_each_keys_images(case: Any, capacity: int) -> None:
    """Per Kimi K3 key: the pixel / rope / position buffers hold its patches, the outputs
    its merged tokens (each image's frames pooled into one), the boundaries its images; the
    reference counts only the graphs SGLang's cache keeps, its largest."""
    geometry, workload = case
    plan = sv.plan_vit(geometry, workload, kimi={"capacity": capacity})
    k = geometry.spatial_merge_size
    for key in plan.keys:
        rows = {b.name: b.rows for b in sv.key_buffers(geometry, key)}
        patches = sum(t * h * w for t, h, w in key)  # type: ignore[misc]
        assert rows["pixel_values"] == rows["rope_freqs_cis"] == patches
        assert rows["position_embeddings"] == patches
        assert rows["outputs"] == sum(h * w // (k * k) for _, h, w in key)  # type: ignore[misc]
        assert rows["cu_seqlens"] == rows["seq_lens"] + 1 == len(key) + 1
        # every image fits SGLang's per-image limit, or it never had a graph
        assert max(t * h * w for t, h, w in key) <= sv.KIMI_DEFAULTS["max_seqlen"]  # type: ignore[misc]
    held = plan.held_keys
    assert len(held) == min(capacity, len(plan.keys)) and set(held) <= set(plan.keys)

    def size(key: Any) -> int:
        return sum(b.bytes for b in sv.key_buffers(geometry, key)
                   if b.name not in sv.WORKLOAD_FREE_BUFFERS)

    # the tower's one rope table (the same rows on every key), counted once
    tables = {b.bytes for key in plan.keys for b in sv.key_buffers(geometry, key)
              if b.name == "rope_freqs_table"}
    table = 512 * 512 * geometry.head_dim // 2 * 8  # complex64 [512, 512, head_dim / 2]
    assert tables == ({table} if plan.keys else set())
    table = table if plan.keys else 0
    assert plan.sglang_bytes == sum(size(key) for key in held) + table
    for other in itertools.combinations(plan.keys[:8], min(capacity, len(plan.keys))):
        assert sum(size(key) for key in other) + table <= plan.sglang_bytes  # the worst


def test_kimi_grids_are_whole_merge_kernels() -> None:
    geometry = sv.VitGeometry("kimi_k3", 64, 4, spatial_merge_size=2)
    with pytest.raises(ConfigError, match="multiples of the spatial merge"):
        sv.graph_key(geometry, [(1, 4, 5)])
    with pytest.raises(ConfigError, match="multiple of 4"):
        sv.VitGeometry("kimi_k3", 64, 4, qkv_hidden_size=40)  # head_dim 10
    with pytest.raises(ConfigError, match="Kimi K3's"):
        sv.VitGeometry("qwen3_vl", 64, 4, qkv_hidden_size=64)
