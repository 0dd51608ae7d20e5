"""Capture as engines capture (CaptureSession) on the CPU backend, and the CUDA backend's pool
and memory bookkeeping against a recording stand-in for torch.cuda's graph API.

Invariants: graph outputs == eager for every variant, the session's order is largest first
across runners, progress sees every graph once in that order, the collector is off during
capture and back after, hooks run where documented, release + capture restores equal outputs.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import BatchError, ConfigError, CUDAGraphMode, plan
from graphfit.cudagraph import (
    CaptureEvent,
    CaptureSession,
    CUDABackend,
    GraphKey,
    GraphRunner,
    StaticBuffers,
)
from graphfit.planner.tuning.memory import ProfileSample
from tests.cudagraph.runtime_models import (
    SMALL,
    TinyDrafter,
    TinyTarget,
    drafter_batch,
    target_batch,
)

Q = SMALL.uniform_query_len


@functools.cache
def session_pair() -> tuple[CaptureSession, GraphRunner, GraphRunner, list[CaptureEvent],
                            list[bool]]:
    """A target and a drafter runner in one session, captured once (shared by the tests)."""
    p = plan(SMALL)
    events: list[CaptureEvent] = []
    gc_seen: list[bool] = []
    target, drafter = TinyTarget(), TinyDrafter()

    def drafter_fn(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        gc_seen.append(gc.isenabled())
        return drafter.graph_fn(views)

    session = CaptureSession("cpu", progress=events.append, weak_outputs=True)
    t = GraphRunner(target.graph_fn, p, StaticBuffers.allocate(p, "cpu", "target"),
                    session=session)
    d = GraphRunner(drafter_fn, p, StaticBuffers.allocate(p, "cpu", "drafter"),
                    session=session)
    assert not t.graphs and not d.graphs  # a session defers capture
    session.capture()
    return session, t, d, events, gc_seen


def test_session_order_is_largest_first_across_runners_with_progress() -> None:
    session, t, d, events, _ = session_pair()
    assert session.report is not None and events == list(session.report.events)
    assert [e.index for e in events] == list(range(1, len(events) + 1))
    assert all(e.total == len(events) for e in events)
    assert len(events) == len(t.graphs) + len(d.graphs)
    assert {e.runner for e in events} == {"target", "drafter"}
    sizes = [(e.key.padded, e.key.num_reqs or 0) for e in events]
    assert sizes == sorted(sizes, reverse=True)
    # both runners' graphs are interleaved in that one order, not captured runner by runner
    runners = [e.runner for e in events]
    first_drafter = runners.index("drafter")
    assert "target" in runners[first_drafter:]
    assert t.capture_stats is not None and t.capture_stats.graphs == len(t.graphs)


def test_weak_outputs_keep_only_the_last_graph_and_gc_is_frozen() -> None:
    _, t, d, events, gc_seen = session_pair()
    assert [e.holds_output for e in events] == [False] * (len(events) - 1) + [True]
    last = events[-1]
    runner = t if last.runner == "target" else d
    assert getattr(runner.graphs[last.key].graph, "holds_output", None) is True
    assert gc_seen and not any(gc_seen[:len(d.graphs)])  # disabled during every capture
    assert gc.isenabled()


def test_session_graphs_equal_eager() -> None:
    _, t, d, _, _ = session_pair()
    gen = torch.Generator().manual_seed(3)
    for n, r in ((5, 2), (17, 4), (64, 8), (1, 1)):
        batch = target_batch(gen, n, r)
        torch.testing.assert_close(t.step(batch), t.step(batch, eager=True))
    for r in (1, 3, 8):
        batch = drafter_batch(gen, r, Q)
        torch.testing.assert_close(d.step(batch), d.step(batch, eager=True))


def test_runner_in_a_session_refuses_a_second_backend_and_foreign_runners() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    session = CaptureSession("cpu")
    with pytest.raises(ConfigError, match="session's backend"):
        GraphRunner(TinyDrafter().graph_fn, p, bufs, session=session, backend=CUDABackend())
    alone = GraphRunner(TinyDrafter().graph_fn, p, bufs, capture=False)
    with pytest.raises(ConfigError, match="not part of this session"):
        session.capture([alone])
    with pytest.raises(ConfigError, match="callable"):
        CaptureSession("cpu", progress=3)  # type: ignore[arg-type]


def test_capture_context_memory_probe_and_profile_sample() -> None:
    p = plan(SMALL)
    log: list[str] = []

    @contextlib.contextmanager
    def communicators() -> Iterator[None]:
        log.append("enter")
        yield
        log.append("exit")

    free = [10_000_000]

    def probe() -> int:
        return free[0]

    def fn(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        log.append("capture")
        free[0] -= 100 * views["positions"].shape[0]  # "graph memory" grows with the shape
        return views["positions"] * 2

    session = CaptureSession("cpu", capture_context=communicators, free_memory=probe,
                             freeze_gc=False)
    runner = GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "drafter"), session=session)
    report = session.capture()
    assert log[0] == "enter" and log[-1] == "exit" and log.count("enter") == 1
    assert all(e.bytes is not None and e.bytes > 0 for e in report.events)
    sample = report.profile_sample()
    assert sample["pool_bytes"] == report.pool_bytes == sum(e.bytes or 0 for e in report.events)
    assert sample["sizes"] == sorted(k.padded for k in runner.graphs)
    ProfileSample(tuple(sample["sizes"]), sample["pool_bytes"])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not measured"):
        CaptureSession("cpu").capture().profile_sample()


def test_before_replay_hook_sees_key_and_counts_on_graph_steps_only() -> None:
    p = plan(SMALL)
    calls: list[tuple[GraphKey, int, int]] = []
    model = TinyTarget()
    runner = GraphRunner(model.graph_fn, p, StaticBuffers.allocate(p, "cpu", "target"),
                         before_replay=lambda key, n, r: calls.append((key, n, r)))
    gen = torch.Generator().manual_seed(0)
    batch = target_batch(gen, 6, 2)
    runner.step(batch)
    runner.step(batch)  # the prepared path too
    d = runner.last_dispatch
    assert d is not None and d.mode is not CUDAGraphMode.NONE
    assert calls == [(runner.key(d), 6, 2)] * 2
    runner.step(batch, eager=True)
    runner.step(target_batch(gen, 200, 8))  # above the largest graph: eager, no replay
    assert len(calls) == 2


def test_variants_capture_each_combination_and_replay_the_chosen_one() -> None:
    p = plan(SMALL)
    model = TinyDrafter()

    def fn(views: Mapping[str, torch.Tensor], lora: bool) -> torch.Tensor:
        out = model.graph_fn(views)
        return out * 2 if lora else out

    runner = GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "drafter"),  # type: ignore[arg-type]
                         variants={"lora": (False, True)})
    plain = GraphRunner(model.graph_fn, p, StaticBuffers.allocate(p, "cpu", "drafter"))
    assert runner.capture_stats is not None
    assert runner.capture_stats.graphs == 2 * len(plain.graphs)
    gen = torch.Generator().manual_seed(1)
    for r in (1, 5, 8):
        batch = drafter_batch(gen, r, Q)
        base = plain.step(batch)
        torch.testing.assert_close(runner.step(batch), base, rtol=0, atol=0)
        on = runner.step(batch, variant={"lora": True})
        torch.testing.assert_close(on, base * 2, rtol=0, atol=0)
        torch.testing.assert_close(on, runner.step(batch, variant={"lora": True}, eager=True))
    with pytest.raises(BatchError, match="not one of"):
        runner.step(batch, variant={"lora": 1})
    with pytest.raises(BatchError, match="a value for each"):
        runner.step(batch, variant={"rank": 8})
    with pytest.raises(ConfigError, match="repeats"):
        GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "drafter"),  # type: ignore[arg-type]
                    variants={"lora": (True, True)}, capture=False)


def test_release_and_recapture() -> None:
    p = plan(SMALL)
    model = TinyDrafter()
    runner = GraphRunner(model.graph_fn, p, StaticBuffers.allocate(p, "cpu", "drafter"))
    batch = drafter_batch(torch.Generator().manual_seed(2), 3, Q)
    before = runner.step(batch)
    runner.release()
    assert not runner.graphs and runner.capture_stats is None
    with pytest.raises(BatchError, match="no graph captured"):
        runner.step(batch)
    runner.capture()
    torch.testing.assert_close(runner.step(batch), before, rtol=0, atol=0)


def _last_token_per_request(model: TinyTarget, views: Mapping[str, torch.Tensor]
                            ) -> torch.Tensor:
    """One row per request: the hidden state of each request's last token (a sampler's
    input)."""
    hidden = model.graph_fn(views)
    return hidden[(views["query_start_loc"][1:] - 1).clamp(min=0).long()]


def test_per_request_outputs_supported_or_refused_at_capture() -> None:
    p = plan(SMALL)
    model = TinyTarget()
    fn = functools.partial(_last_token_per_request, model)
    with pytest.raises(ConfigError, match="outputs='requests'"):
        GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "target"))
    runner = GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "target"), outputs="requests")
    gen = torch.Generator().manual_seed(4)
    for n, r in ((6, 2), (17, 5), (64, 8), (3, 3)):
        batch = target_batch(gen, n, r)
        got = runner.step(batch)
        assert got.shape[0] == r
        torch.testing.assert_close(got, runner.step(batch, eager=True))
        assert runner.last_dispatch is not None
        assert runner.last_dispatch.mode is not CUDAGraphMode.NONE
    with pytest.raises(ConfigError, match="outputs"):
        GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "target"),
                    outputs="rows")  # type: ignore[arg-type]


def test_dispatch_given_replays_prepared_and_equals_plain() -> None:
    p = plan(SMALL)
    model = TinyTarget()
    runner = GraphRunner(model.graph_fn, p, StaticBuffers.allocate(p, "cpu", "target"))
    gen = torch.Generator().manual_seed(5)
    batch = target_batch(gen, 5, 2)
    d = runner.dispatch(5, num_reqs=2)
    bigger = p.pad(30)
    for _ in range(2):  # first prepares, second replays what was prepared
        torch.testing.assert_close(runner.step(batch, dispatch=d), runner.step(batch))
        got = runner.step(batch, dispatch=bigger)
        assert runner.last_dispatch == bigger
        torch.testing.assert_close(got, runner.step(batch, eager=True))
    with pytest.raises(BatchError, match="padded"):
        runner.step(target_batch(gen, 40, 2), dispatch=d)


# -- the CUDA backend against a recording stand-in for torch.cuda's graph API -----------------

class _FakeStream:
    def wait_stream(self, other: object) -> None:
        pass


class _FakeGraph:
    def replay(self) -> None:
        pass


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """torch.cuda's graph calls recorded: pools handed out, the pool each capture used, and a
    free-memory counter that each capture lowers."""
    state: dict[str, Any] = {"pools": [], "used": [], "free": 1 << 30}

    def pool_handle() -> object:
        handle = object()
        state["pools"].append(handle)
        return handle

    @contextlib.contextmanager
    def graph(g: object, pool: object = None, stream: object = None) -> Iterator[None]:
        state["used"].append(pool)
        state["free"] -= 4096
        yield

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "graph_pool_handle", pool_handle)
    monkeypatch.setattr(torch.cuda, "graph", graph)
    monkeypatch.setattr(torch.cuda, "CUDAGraph", _FakeGraph)
    monkeypatch.setattr(torch.cuda, "Stream", _FakeStream)
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "current_stream", lambda: _FakeStream())
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (state["free"], 1 << 31))
    return state


def test_cuda_stream_without_pool_still_shares_one_pool(fake_cuda: dict[str, Any]) -> None:
    p = plan(SMALL)
    backend = CUDABackend(warmup=1, stream=_FakeStream())  # type: ignore[arg-type]
    session = CaptureSession(backend, freeze_gc=False)
    for component, model in (("target", TinyTarget()), ("drafter", TinyDrafter())):
        GraphRunner(model.graph_fn, p, StaticBuffers.allocate(p, "cpu", component),
                    session=session)
    report = session.capture()
    assert len(fake_cuda["pools"]) == 1 and fake_cuda["used"]
    assert all(pool is fake_cuda["pools"][0] for pool in fake_cuda["used"])
    # memory measured per capture from mem_get_info, in bytes
    assert [e.bytes for e in report.events] == [4096] * len(report.events)
    session.release()
    assert backend.pool is None
    session.capture()
    assert len(fake_cuda["pools"]) == 2  # a recapture after release gets a fresh pool


@functools.cache
def per_request_runner() -> tuple[GraphRunner, list[tuple[GraphKey, int, int]]]:
    p = plan(SMALL)
    calls: list[tuple[GraphKey, int, int]] = []
    fn = functools.partial(_last_token_per_request, TinyTarget())
    runner = GraphRunner(fn, p, StaticBuffers.allocate(p, "cpu", "target"), outputs="requests",
                         before_replay=lambda key, n, r: calls.append((key, n, r)))
    return runner, calls


@given(st.data())
def test_per_request_outputs_equal_eager_and_the_hook_sees_the_batch(data: st.DataObject
                                                                     ) -> None:
    runner, calls = per_request_runner()
    T = SMALL.max_num_batched_tokens
    n = data.draw(st.integers(1, T), label="num_tokens")
    r = data.draw(st.integers(1, min(n, SMALL.max_num_seqs)), label="num_reqs")
    batch = target_batch(torch.Generator().manual_seed(n * 31 + r), n, r)
    before = len(calls)
    got = runner.step(batch)
    d = runner.last_dispatch
    assert d is not None and got.shape[0] == r
    torch.testing.assert_close(got, runner.step(batch, eager=True))
    if d.mode is CUDAGraphMode.NONE:
        assert len(calls) == before
    else:
        key, hook_n, hook_r = calls[-1]
        assert (hook_n, hook_r) == (n, r) and key.padded == d.padded >= n
        assert key.num_reqs is not None and key.num_reqs >= r


def test_two_runners_of_one_component_each_count_their_own_graphs() -> None:
    p = plan(SMALL)
    session = CaptureSession("cpu", freeze_gc=False)
    runners = [GraphRunner(TinyDrafter(seed=s).graph_fn, p,
                           StaticBuffers.allocate(p, "cpu", "drafter"), session=session)
               for s in (1, 2)]
    report = session.capture()
    assert len(report.events) == 2 * len(runners[0].graphs)
    for runner in runners:
        assert runner.capture_stats is not None
        assert runner.capture_stats.graphs == len(runner.graphs)


@settings(max_examples=10)
@given(S=st.integers(1, 16), k=st.integers(1, 4), method=st.sampled_from(("dflash", "eagle")))
def test_session_order_is_largest_first_and_covers_every_key(S: int, k: int,
                                                             method: str) -> None:
    p = plan(SMALL.replace(max_num_seqs=S, num_speculative_tokens=k, spec_method=method))
    session = CaptureSession("cpu", freeze_gc=False)
    runners = [GraphRunner(lambda v: v["positions"] + 1, p,
                           StaticBuffers.allocate(p, "cpu", c), session=session,
                           graph_inputs=("positions",))
               for c in ("target", "drafter")]
    report = session.capture()
    sizes = [(e.key.padded, e.key.num_reqs or 0) for e in report.events]
    assert sizes == sorted(sizes, reverse=True)
    for runner in runners:
        assert set(runner.graphs) == set(runner.dispatch_keys())
        assert [e.key for e in report.events if e.runner == runner.component] == \
            list(runner.capture_stats.order if runner.capture_stats else ())
