"""GraphRunner on the CPU backend: static-shape replay == eager, tails filled, never short."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from graphfit import (
    BatchError,
    CapacityError,
    ConfigError,
    CUDAGraphMode,
    Dispatch,
    EngineConfig,
    FillKind,
    GraphfitError,
    Plan,
    plan,
)
from graphfit.cudagraph import GraphRunner, StaticBuffers, UnknownBufferError
from tests.cudagraph.runtime_models import (
    SEED,
    SMALL,
    Recorder,
    TinyDrafter,
    TinyTarget,
    drafter_batch,
    target_batch,
)

S, Q, T = SMALL.max_num_seqs, SMALL.uniform_query_len, SMALL.max_num_batched_tokens


@functools.cache
def target_harness() -> tuple[Plan, StaticBuffers, GraphRunner, TinyTarget, Recorder]:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    model = TinyTarget()
    rec = Recorder(model.graph_fn)
    return p, bufs, GraphRunner(rec, p, bufs, backend="cpu"), model, rec


@functools.cache
def drafter_harness() -> tuple[Plan, StaticBuffers, GraphRunner, TinyDrafter, Recorder]:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    model = TinyDrafter()
    rec = Recorder(model.graph_fn)
    return p, bufs, GraphRunner(rec, p, bufs), model, rec


def expected_rows(p: Plan, d: Dispatch, n: int, r: int) -> tuple[int, int]:
    """(token rows, request rows) the graph must see: the documented rule, from the plan."""
    if d.mode is CUDAGraphMode.NONE:
        return n, r
    return d.padded, d.num_reqs if d.num_reqs is not None else min(d.padded, S)


def check_seen(bufs: StaticBuffers, seen: Mapping[str, torch.Tensor],
               batch: Mapping[str, torch.Tensor], before: Mapping[str, torch.Tensor],
               n: int, r: int, tok_rows: int, req_rows: int) -> None:
    """What the graph read: exact static rows, the real rows, and each tail per its policy."""
    for name, spec in bufs.specs.items():
        if name not in seen:
            continue
        rule = bufs.component.row_rule(name)
        assert rule is not None, name
        static = rule.rows(tok_rows, req_rows)
        real = rule.rows(n, r)
        view, axis = seen[name], spec.axis_dim
        assert view.shape[axis] == static, (name, tuple(view.shape), static)
        if name in batch:
            assert torch.equal(view.narrow(axis, 0, real), batch[name].to(view.dtype)), name
        tail = view.narrow(axis, real, static - real)
        kind = spec.fill.kind
        if kind is FillKind.ZERO:
            assert not tail.any(), name
        elif kind is FillKind.SENTINEL:
            assert (tail == spec.fill.value).all(), name
        elif kind is FillKind.COPY_REAL_ROWS:
            assert torch.equal(tail, view.narrow(axis, real - 1, 1).expand_as(tail)), name
        else:  # keep: the runner must not have touched it
            assert torch.equal(tail, before[name].narrow(axis, real, static - real)), name


class TargetRunnerMachine(RuleBasedStateMachine):
    """Random mixed / uniform-decode batches, poisoning in between, over-capacity attempts."""

    def __init__(self) -> None:
        super().__init__()
        self.p, self.bufs, self.runner, self.model, self.rec = target_harness()
        self.gen = torch.Generator().manual_seed(1234)
        self.steps = 0

    def _step(self, n: int, r: int, uniform: bool) -> None:
        batch = target_batch(self.gen, n, r)
        if uniform:
            batch["query_start_loc"] = torch.arange(0, n + 1, Q, dtype=torch.int32)
        before = {k: v.clone() for k, v in self.bufs.items()}
        calls = self.rec.calls
        out = self.runner.step(batch, uniform_decode=uniform)
        assert self.rec.calls == calls + 1
        d = self.p.pad(n, uniform_decode=uniform, num_reqs=r)
        assert self.runner.last_dispatch == d
        ref = self.model(batch["input_ids"], batch["positions"], batch["query_start_loc"],
                         batch["seq_lens"])
        assert isinstance(out, torch.Tensor) and out.shape == ref.shape
        torch.testing.assert_close(out, ref)
        check_seen(self.bufs, self.rec.seen, batch, before, n, r, *expected_rows(self.p, d, n, r))
        self.steps += 1

    @rule(n=st.integers(1, T), data=st.data())
    def mixed_batch(self, n: int, data: st.DataObject) -> None:
        self._step(n, data.draw(st.integers(1, min(n, S)), label="num_reqs"), uniform=False)

    @rule(r=st.integers(1, S))
    def uniform_decode(self, r: int) -> None:
        self._step(r * Q, r, uniform=True)

    @rule()
    def poison(self) -> None:
        self.bufs.poison()

    @rule(extra=st.integers(1, 64))
    def over_capacity(self, extra: int) -> None:
        n = self.bufs.capacity("input_ids") + extra
        before = {k: v.clone() for k, v in self.bufs.items()}
        with pytest.raises(CapacityError) as err:
            self.runner.step({"positions": torch.zeros(n, dtype=torch.int64),
                              "input_ids": torch.zeros(n, dtype=torch.int32)})
        assert err.value.rows == n and err.value.capacity == T
        assert all(torch.equal(v, before[k]) or v.isnan().any() for k, v in self.bufs.items())

    @invariant()
    def arange_free_buffers_keep_their_shape(self) -> None:
        for name, spec in self.bufs.specs.items():
            assert tuple(self.bufs[name].shape) == spec.shape


TargetRunnerMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=20)
TestTargetRunner = TargetRunnerMachine.TestCase


@given(sizes=st.lists(st.integers(1, S), min_size=1, max_size=8), poison=st.booleans())
def test_drafter_steps_equal_eager_with_filled_tails(sizes: list[int], poison: bool) -> None:
    p, bufs, runner, model, rec = drafter_harness()
    gen = torch.Generator().manual_seed(len(sizes))
    for r in sizes:
        if poison:
            bufs.poison()
        batch = drafter_batch(gen, r, Q)
        n = r * Q
        before = {k: v.clone() for k, v in bufs.items()}
        out = runner.step(batch)
        torch.testing.assert_close(out, model(batch["input_ids"], batch["positions"]))
        d = p.pad(n, component="drafter")
        assert d.mode is CUDAGraphMode.PIECEWISE and runner.last_dispatch == d
        check_seen(bufs, {k: v for k, v in rec.seen.items() if k != "arange"}, batch, before,
                   n, min(n, S), *expected_rows(p, d, n, min(n, S)))
        assert torch.equal(rec.seen["arange"], torch.arange(rec.seen["arange"].numel(),
                                                            dtype=torch.int32))


def test_capture_is_largest_first_one_graph_per_drafter_size() -> None:
    p, bufs, runner, _, _ = drafter_harness()
    stats = runner.capture_stats
    assert stats is not None
    padded = [k.padded for k in stats.order]
    assert padded == sorted(padded, reverse=True)
    top = p.pad(S * Q, component="drafter").padded
    assert padded == sorted((s for s in p.capture_sizes if s <= top), reverse=True)
    for key, graph in runner.graphs.items():
        for name, view in graph.views.items():
            assert view.data_ptr() == bufs[name].data_ptr()  # static: the buffer itself
        assert graph.views["input_ids"].shape == (key.padded,)


def test_target_captures_full_and_piecewise_shapes() -> None:
    p, _, runner, _, _ = target_harness()
    keys = runner.graphs
    for r in range(1, S + 1):
        d = p.pad(r * Q, uniform_decode=True)
        assert runner.key(d) in keys
    for n in range(1, p.max_capture_size + 1):
        assert runner.key(p.pad(n)) in keys
    assert {m for g in keys.values() for m in g.modes} == {CUDAGraphMode.FULL,
                                                            CUDAGraphMode.PIECEWISE}


def test_batches_above_the_largest_graph_run_eagerly_unpadded() -> None:
    p, _, runner, model, rec = target_harness()
    gen = torch.Generator().manual_seed(5)
    n = p.max_capture_size + 37
    batch = target_batch(gen, n, 3)
    out = runner.step(batch)
    assert runner.last_dispatch is not None and runner.last_dispatch.mode is CUDAGraphMode.NONE
    assert rec.seen["input_ids"].shape == (n,) and rec.seen["seq_lens"].shape == (3,)
    torch.testing.assert_close(out, model(batch["input_ids"], batch["positions"],
                                          batch["query_start_loc"], batch["seq_lens"]))
    forced = runner.step(target_batch(gen, 10, 2), eager=True)
    assert forced.shape[0] == 10 and rec.seen["input_ids"].shape == (10,)


def test_in_place_writes_get_their_tails_filled_too() -> None:
    _, bufs, runner, _, rec = target_harness()
    batch = target_batch(torch.Generator().manual_seed(9), 13, 4)
    expected = runner.step(batch)
    bufs.poison()
    for name, tensor in batch.items():
        bufs.view(name, tensor.shape[0]).copy_(tensor)
    out = runner.step(num_tokens=13, num_reqs=4)
    torch.testing.assert_close(out, expected)
    assert (rec.seen["slot_mapping"][13:] == -1).all()
    assert (rec.seen["query_start_loc"][5:] == 13).all()


def test_seed_config_full_batch_burst_runs_clean() -> None:
    for ladder in ("vllm", "vllm-legacy"):
        p = plan(SEED.replace(ladder=ladder))
        bufs = StaticBuffers.allocate(p, "cpu", "drafter")
        model = TinyDrafter()
        runner = GraphRunner(model.graph_fn, p, bufs)
        gen = torch.Generator().manual_seed(0)
        for _ in range(5):
            batch = drafter_batch(gen, SEED.max_num_seqs, SEED.uniform_query_len)
            out = runner.step(batch)
            assert out.shape[0] == 132
            torch.testing.assert_close(out, model(batch["input_ids"], batch["positions"]))
        assert runner.last_dispatch is not None
        assert runner.last_dispatch.padded == (132 if ladder == "vllm" else 136)


def test_vllm_s_times_q_capacity_fails_at_capture_not_mid_burst() -> None:
    legacy = plan(SEED.replace(ladder="vllm-legacy"))
    caps = {"input_ids": 132, "positions": 132, "slot_mapping_buffer": 132}
    bufs = StaticBuffers.allocate(legacy, "cpu", "drafter", capacities=caps)
    with pytest.raises(CapacityError, match=r"'drafter\.input_ids' holds 132 rows but 136"):
        GraphRunner(TinyDrafter().graph_fn, legacy, bufs)
    assert not legacy.verify({f"drafter.{k}": v for k, v in caps.items()}).ok


def test_tuple_outputs_are_sliced_and_bad_outputs_rejected() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")

    def two(views: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        return views["positions"] * 2, views["input_ids"].unsqueeze(-1).repeat(1, 3)

    runner = GraphRunner(two, p, bufs)
    ones = torch.ones(5, dtype=torch.int32)
    a, b = runner.step({"positions": torch.arange(5), "input_ids": ones})
    assert a.tolist() == [0, 2, 4, 6, 8] and b.shape == (5, 3)
    with pytest.raises(GraphfitError, match="one per token"):
        GraphRunner(lambda v: v["positions"][:1], p, bufs).step({"positions": torch.arange(5)})
    with pytest.raises(GraphfitError, match="tensor or a tuple"):
        GraphRunner(lambda v: [v["positions"]], p, bufs)  # type: ignore[arg-type,return-value]


def test_malformed_steps_are_batch_errors() -> None:
    runner = drafter_harness()[2]
    ids = torch.zeros(8, dtype=torch.int32)
    with pytest.raises(BatchError, match="not a graph input"):
        runner.step({"context_positions": torch.zeros(8, dtype=torch.int64)})
    with pytest.raises(BatchError, match="arange"):
        runner.step({"arange": torch.zeros(8, dtype=torch.int32)}, num_tokens=8)
    with pytest.raises(BatchError, match="but the batch has 8"):
        runner.step({"input_ids": ids, "positions": torch.zeros(7, dtype=torch.int64)})
    with pytest.raises(BatchError, match="num_tokens"):
        runner.step({})
    with pytest.raises(BatchError, match="shape"):
        runner.step({"input_ids": torch.zeros(8, 2, dtype=torch.int32)})
    with pytest.raises(CapacityError):
        runner.step({"input_ids": torch.zeros(S * Q + 1, dtype=torch.int32)})


def test_prepared_batch_shapes_keep_every_check() -> None:
    # a batch shape seen before replays what was prepared for it; a malformed batch with the
    # same names still gets its precise error, and a good one afterwards still runs clean
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    model = TinyTarget()
    rec = Recorder(model.graph_fn)
    runner = GraphRunner(rec, p, bufs)
    gen = torch.Generator().manual_seed(3)
    batch = target_batch(gen, 13, 4)
    first = runner.step(batch)
    bufs.poison()
    again = target_batch(gen, 13, 4)  # same shapes, new values
    out = runner.step(again)
    torch.testing.assert_close(out, model(again["input_ids"], again["positions"],
                                          again["query_start_loc"], again["seq_lens"]))
    assert first.shape == out.shape and (rec.seen["slot_mapping"][13:] == -1).all()
    bad = dict(again, positions=torch.zeros(12, dtype=torch.int64))
    with pytest.raises(BatchError, match="but the batch has 13"):
        runner.step(bad)
    with pytest.raises(BatchError, match="shape"):
        runner.step(dict(again, input_ids=torch.zeros(13, 2, dtype=torch.int32)))
    with pytest.raises(BatchError, match="but the batch has 99"):
        runner.step(again, num_reqs=99)
    assert runner.last_dispatch == p.pad(13, num_reqs=4)
    torch.testing.assert_close(runner.step(again), out)


def test_bad_runner_configs_are_config_errors() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    with pytest.raises(ConfigError, match="never-padded"):
        GraphRunner(TinyDrafter().graph_fn, p, bufs, graph_inputs=["hidden_states"])
    with pytest.raises(UnknownBufferError):
        GraphRunner(TinyDrafter().graph_fn, p, bufs, graph_inputs=["nope"])
    with pytest.raises(ConfigError, match="different plan"):
        GraphRunner(TinyDrafter().graph_fn, plan(SEED), bufs)
    with pytest.raises(ConfigError, match="backend"):
        GraphRunner(TinyDrafter().graph_fn, p, bufs, backend="tpu")


def test_a_plan_without_graphs_runs_every_batch_eagerly() -> None:
    # vLLM captures nothing when no listed size fits T (config/vllm.py:2558-2571)
    p = plan(EngineConfig(runner="v1", max_num_seqs=4, max_num_batched_tokens=64,
                          engine_version="0.33.0",
                          cudagraph_capture_sizes=(100,)))
    assert p.capture_sizes == () and p.graph_keys() == {}
    bufs = StaticBuffers.allocate(p, "cpu", "target")

    def fn(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return views["input_ids"].to(torch.float32)[:, None]

    runner = GraphRunner(fn, p, bufs, backend="cpu", graph_inputs=("input_ids",))
    out = runner.step({"input_ids": torch.arange(5, dtype=torch.int32)})
    assert out.shape == (5, 1) and runner.last_dispatch.mode is CUDAGraphMode.NONE
