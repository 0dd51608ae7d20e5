"""StaticBuffers: one arena per component as the plan lays it out; views never short."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from graphfit import CapacityError, ConfigError, EngineConfig, FillKind, FillPolicy, plan
from graphfit.cudagraph import (
    TORCH_DTYPES,
    StaticBuffers,
    UnknownBufferError,
    fill_tail,
    poison_value,
    torch_dtype,
)
from graphfit.planner.core.dtypes import DTYPE_SIZES
from tests.cudagraph.runtime_models import SEED, SMALL

CONFIGS = {
    "small-dflash": SMALL,
    "seed-dflash": SEED,
    "eagle-multimodal": EngineConfig(runner="v1", max_num_seqs=5, num_speculative_tokens=2,
                                     engine_version="0.33.0",
                                     spec_method="eagle", max_num_batched_tokens=64,
                                     hidden_size=8, multimodal=True, dtype="float16"),
    "draft-model": EngineConfig(runner="v1", max_num_seqs=7, num_speculative_tokens=1,
                                engine_version="0.33.0",
                                spec_method="draft_model", max_num_batched_tokens=96,
                                hidden_size=4),
}
CASES = [(name, comp) for name, cfg in CONFIGS.items() for comp in plan(cfg).components]


def test_dtype_map_covers_the_planner_with_equal_sizes() -> None:
    assert set(TORCH_DTYPES) == set(DTYPE_SIZES)
    for name, size in DTYPE_SIZES.items():
        assert torch_dtype(name).itemsize == size
    with pytest.raises(ConfigError, match="complex64"):
        torch_dtype("complex64")


@pytest.mark.parametrize(("config", "component"), CASES)
def test_arena_is_one_allocation_at_the_plan_offsets(config: str, component: str) -> None:
    p = plan(CONFIGS[config])
    comp = p.component(component)
    bufs = StaticBuffers.allocate(p, "cpu", component)
    assert bufs.arena is not None
    assert bufs.total_bytes == comp.total_bytes == bufs.arena.numel()
    base = bufs.arena.data_ptr()
    for spec in comp.buffers:
        t = bufs[spec.name]
        assert tuple(t.shape) == spec.shape
        assert t.dtype == torch_dtype(spec.dtype)
        assert t.untyped_storage().data_ptr() == bufs.arena.untyped_storage().data_ptr()
        assert t.data_ptr() - base == spec.offset
        assert spec.offset % comp.alignment == 0
        assert t.numel() * t.element_size() == spec.bytes
    ends = sorted((s.offset, s.offset + s.bytes) for s in comp.buffers)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(ends))


@pytest.mark.parametrize(("config", "component"), CASES)
def test_separate_layout_gives_one_tensor_per_buffer(config: str, component: str) -> None:
    p = plan(CONFIGS[config], layout="separate")
    bufs = StaticBuffers.allocate(p, "cpu", component)
    assert bufs.arena is None
    assert bufs.total_bytes == p.component(component).total_bytes
    storages = {bufs[name].untyped_storage().data_ptr() for name in bufs}
    assert len(storages) == len(bufs)


def test_fresh_buffers_are_zero_and_arange_is_a_ramp() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    for name, spec in bufs.specs.items():
        t = bufs[name]
        if spec.init == "arange":
            assert torch.equal(t, torch.arange(spec.capacity, dtype=t.dtype))
        else:
            assert not t.any()
    bufs.poison()
    assert torch.equal(bufs.arange, torch.arange(bufs.capacity("arange"), dtype=torch.int32))
    assert (bufs.positions == poison_value(torch.int64)).all()
    assert bufs.hidden_states.isnan().all()


def test_mapping_and_attribute_access() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    assert list(bufs) == [b.name for b in p.component("target").buffers]
    assert len(bufs) == len(p.component("target").buffers)
    assert bufs.positions is bufs["positions"]
    assert "seq_lens" in bufs and "nope" not in bufs
    with pytest.raises(UnknownBufferError, match="known: input_ids"):
        bufs.view("nope", 1)
    with pytest.raises(KeyError):
        bufs["nope"]
    with pytest.raises(AttributeError):
        _ = bufs.nope


@given(data=st.data())
def test_view_is_exactly_n_rows_or_capacity_error(data: st.DataObject) -> None:
    config = data.draw(st.sampled_from(sorted(CONFIGS)))
    p = plan(CONFIGS[config])
    component = data.draw(st.sampled_from(sorted(p.components)))
    bufs = StaticBuffers.allocate(p, "cpu", component)
    spec = bufs.spec(data.draw(st.sampled_from(sorted(bufs))))
    n = data.draw(st.integers(0, spec.capacity + 40))
    if n > spec.capacity:
        with pytest.raises(CapacityError) as err:
            bufs.view(spec.name, n)
        assert (err.value.buffer, err.value.rows, err.value.capacity) == (
            spec.key, n, spec.capacity)
        return
    view = bufs.view(spec.name, n)
    expected = list(spec.shape)
    expected[spec.axis_dim] = n
    assert list(view.shape) == expected
    if n:  # a view, not a copy: writes land in the buffer
        view.fill_(1)
        assert bufs[spec.name].narrow(spec.axis_dim, 0, n).eq(1).all()


def test_mrope_views_scale_their_second_dim() -> None:
    p = plan(CONFIGS["eagle-multimodal"])
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    spec = bufs.spec("mrope_positions")
    assert spec.axis_dim == 1
    assert tuple(bufs.view("mrope_positions", 5).shape) == (spec.shape[0], 5)


def test_capacity_override_reproduces_vllm_s_times_q_sizing() -> None:
    legacy = plan(SEED.replace(ladder="vllm-legacy"))
    caps = {"positions": 132, "drafter.slot_mapping_buffer": 132}
    bufs = StaticBuffers.allocate(legacy, "cpu", "drafter", capacities=caps)
    assert bufs.capacity("positions") == 132
    assert bufs.capacity("input_ids") == legacy.buffer("drafter.input_ids").capacity == 136
    assert legacy.pad(132, component="drafter").padded == 136
    with pytest.raises(CapacityError, match=r"'drafter\.positions' holds 132 rows but 136"):
        bufs.view("positions", 136)
    assert bufs.view("positions", 132).shape == (132,)
    specs = list(bufs.specs.values())
    for a, b in itertools.pairwise(specs):
        assert b.offset % 256 == 0 and a.offset + a.bytes <= b.offset
        assert bufs[b.name].data_ptr() - bufs.arena.data_ptr() == b.offset  # type: ignore[union-attr]
    assert bufs.total_bytes == specs[-1].offset + specs[-1].bytes
    planned = sum(b.bytes for b in legacy.component("drafter").buffers)
    assert sum(s.bytes for s in specs) == planned - 2 * 4 * 8  # two int64 buffers, 4 rows short


@pytest.mark.parametrize("bad", [{"nope": 3}, {"positions": -1}, {"positions": 2.5}])
def test_bad_capacity_overrides_are_config_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        StaticBuffers.allocate(plan(SMALL), "cpu", "drafter", capacities=bad)  # type: ignore[arg-type]


POLICIES = [FillPolicy(FillKind.KEEP), FillPolicy(FillKind.ZERO),
            FillPolicy(FillKind.SENTINEL, -1), FillPolicy(FillKind.SENTINEL, 1),
            FillPolicy(FillKind.COPY_REAL_ROWS)]


@given(policy=st.sampled_from(POLICIES), rows=st.integers(1, 12), data=st.data(),
       dtype=st.sampled_from([torch.int32, torch.int64, torch.float32, torch.bool]),
       axis=st.sampled_from([0, 1]))
def test_fill_tail_fills_exactly_the_tail(policy: FillPolicy, rows: int, data: st.DataObject,
                                          dtype: torch.dtype, axis: int) -> None:
    start = data.draw(st.integers(0, rows))
    shape = (rows, 3) if axis == 0 else (2, rows)
    before = (torch.arange(rows * 3 if axis == 0 else rows * 2) % 7 + 2).reshape(shape).to(dtype)
    t = before.clone()
    if policy.kind is FillKind.SENTINEL and dtype == torch.bool and policy.value not in (0, 1):
        with pytest.raises(ConfigError, match="not a bool"):  # -1 would become True
            fill_tail(t, axis, start, policy)
        assert torch.equal(t, before)
        return
    fill_tail(t, axis, start, policy)
    head, tail = t.narrow(axis, 0, start), t.narrow(axis, start, rows - start)
    assert torch.equal(head, before.narrow(axis, 0, start))
    if policy.kind is FillKind.KEEP:
        expected = before.narrow(axis, start, rows - start)
    elif policy.kind is FillKind.ZERO or (policy.kind is FillKind.COPY_REAL_ROWS and start == 0):
        expected = torch.zeros_like(tail)
    elif policy.kind is FillKind.SENTINEL:
        expected = torch.full_like(tail, policy.value)
    else:
        expected = before.narrow(axis, start - 1, 1).expand_as(tail)
    assert torch.equal(tail, expected)


def test_copy_real_rows_keeps_query_start_loc_monotone() -> None:
    qsl = torch.tensor([0, 3, 4, 9, 777, 2, 5], dtype=torch.int32)  # stale tail from before
    fill_tail(qsl, 0, 4, FillPolicy(FillKind.COPY_REAL_ROWS))
    assert qsl.tolist() == [0, 3, 4, 9, 9, 9, 9]
    assert bool((qsl[1:] >= qsl[:-1]).all())


def test_runtime_refuses_a_plan_whose_offsets_were_edited() -> None:
    p = plan(EngineConfig(runner="v1", engine_version="0.33.0", max_num_seqs=8))
    comp = p.components["target"]
    moved = dataclasses.replace(comp.buffers[1], offset=comp.buffers[1].offset - 8)
    edited = dataclasses.replace(comp, buffers=(comp.buffers[0], moved, *comp.buffers[2:]))
    bad = dataclasses.replace(p, components={"target": edited})
    with pytest.raises(ConfigError, match="offset"):
        StaticBuffers.allocate(bad, "cpu", "target")
    assert torch.equal(StaticBuffers.allocate(p, "cpu", "target")["input_ids"],
                       torch.zeros(comp.buffers[0].capacity, dtype=torch.int32))
