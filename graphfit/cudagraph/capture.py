"""`CaptureSession`: capture every graph of several runners as a serving engine does.

What an engine does around capture, and why each step is here:

- One graph pool for every runner (target and drafter share it) and one order across runners,
  largest static shape first, so smaller graphs reuse the largest one's blocks (vLLM captures
  "the large shapes first so that the smaller shapes can reuse the memory pool",
  v1/worker/gpu_model_runner.py:6435-6436 in 0.33). The pool is the session's backend's: every
  runner added to a session captures through that one backend instance.
- Graph outputs held by weak reference except the last graph's (`weak_outputs=True`): vLLM
  keeps only weak references to captured outputs so their blocks return to the pool and the
  next capture reuses them (compilation/cuda_graph.py:326-337 in 0.33). Safe because one graph
  replays at a time and a step's outputs are consumed before the next replay.
- The garbage collector frozen and disabled during capture (vLLM's
  `freeze_gc_for_cudagraph_capture`, utils/gc_utils.py:93-117 in 0.33: a collection during
  stream capture can invalidate the graph), collected before and after.
- A capture context entered around the whole capture (vLLM's `graph_capture(device)`,
  distributed/parallel_state.py:1695-1724, which puts the communicators in capture mode).
- Graph memory per capture from `torch.cuda.mem_get_info` free-byte deltas (as
  gpu_model_runner.py:6477/6496 does for the whole capture), reported in bytes, with
  `CaptureReport.profile_sample()` giving a `graphfit.graph-profile/1` sample
  (`{"sizes", "pool_bytes"}`, what `graphfit memory --graph-profile` fits).
- A progress callback per graph (vLLM shows a tqdm bar, gpu_model_runner.py:6589).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from graphfit.cudagraph.backends import Backend, get_backend
from graphfit.planner import ConfigError, CUDAGraphMode, GraphKey

# a graph variant beyond the static shape: (dimension, value) pairs, e.g. (("lora", True),)
Variant = tuple[tuple[str, Hashable], ...]


@dataclass(frozen=True)
class CaptureJob:
    """One graph to capture: its key and variant, the dispatch modes replaying it, and the
    static views (taken before any capture, so a short buffer fails first)."""

    key: GraphKey
    variant: Variant
    modes: tuple[CUDAGraphMode, ...]
    views: dict[str, torch.Tensor]
    rows: dict[str, int]


class SessionRunner(Protocol):
    """What a session needs of a runner (`GraphRunner` is one)."""

    @property
    def component(self) -> str: ...

    def release(self) -> None: ...

    def _capture_jobs(self) -> list[CaptureJob]: ...

    def _capture_job(self, job: CaptureJob, *, keep_output: bool) -> None: ...

    def _captured(self, events: Sequence[CaptureEvent]) -> None: ...


@dataclass(frozen=True)
class CaptureEvent:
    """One graph captured: which runner (its component), key and variant, its place in the
    session's order, how long it took and the device bytes it took (None: not measured)."""

    runner: str
    key: GraphKey
    variant: Variant
    index: int  # 1-based position in the session's capture order
    total: int
    seconds: float
    bytes: int | None
    holds_output: bool  # False: its outputs are held by weak reference


@dataclass(frozen=True)
class CaptureReport:
    """Every graph a session captured, in capture order."""

    events: tuple[CaptureEvent, ...]
    seconds: float

    @property
    def order(self) -> tuple[tuple[str, GraphKey, Variant], ...]:
        return tuple((e.runner, e.key, e.variant) for e in self.events)

    @property
    def pool_bytes(self) -> int | None:
        """Device bytes the whole capture took (sum of the per-graph deltas), if measured."""
        measured = [e.bytes for e in self.events if e.bytes is not None]
        return sum(measured) if measured and len(measured) == len(self.events) else None

    def profile_sample(self) -> dict[str, object]:
        """A graphfit.graph-profile/1 sample: the sizes captured and the pool bytes taken.

        ConfigError when memory was not measured (only the CUDA backend, or a `free_memory`
        probe given to the session, measures it)."""
        pool = self.pool_bytes
        if pool is None:
            raise ConfigError("capture: graph memory was not measured (CUDA backend only)")
        return {"sizes": sorted({e.key.padded for e in self.events}), "pool_bytes": pool}


ProgressFn = Callable[[CaptureEvent], object]


@contextlib.contextmanager
def frozen_gc() -> Iterator[None]:
    """Collect, then freeze and disable the collector; restore it afterwards."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        try:
            gc.unfreeze()
            gc.collect()
        finally:
            if was_enabled:
                gc.enable()


def cuda_free_bytes() -> int:
    """Free device bytes after a synchronize (`torch.cuda.mem_get_info`)."""
    torch.cuda.synchronize()
    return int(torch.cuda.mem_get_info()[0])


class CaptureSession:
    """Captures the graphs of every runner added to it, as one engine start-up.

    Runners join with `GraphRunner(..., session=session)`; they then capture through the
    session's backend (one pool) and only when `session.capture()` runs, which captures
    every runner's graphs in one order, largest static shape first across runners (ties:
    runners in the order they joined, then variants in declaration order).

    `free_memory` returns free device bytes; defaults to `torch.cuda.mem_get_info` for the
    CUDA backend and to no measurement otherwise.
    """

    def __init__(self, backend: str | Backend = "cpu", *, progress: ProgressFn | None = None,
                 weak_outputs: bool = False, freeze_gc: bool = True,
                 capture_context: Callable[[], AbstractContextManager[Any]] | None = None,
                 free_memory: Callable[[], int] | None = None) -> None:
        for label, value in (("progress", progress), ("capture_context", capture_context),
                             ("free_memory", free_memory)):
            if value is not None and not callable(value):
                raise ConfigError(f"{label}: expected a callable, got {type(value).__name__}")
        for label, flag in (("weak_outputs", weak_outputs), ("freeze_gc", freeze_gc)):
            if not isinstance(flag, bool):
                raise ConfigError(f"{label}: expected True or False, got {flag!r}")
        self.backend = get_backend(backend)
        self.progress = progress
        self.weak_outputs = weak_outputs
        self.freeze_gc = freeze_gc
        self.capture_context = capture_context
        if free_memory is None and getattr(self.backend, "name", "") == "cuda":
            free_memory = cuda_free_bytes
        self.free_memory = free_memory
        self.runners: list[SessionRunner] = []
        self.report: CaptureReport | None = None

    def add(self, runner: SessionRunner) -> None:
        """Called by `GraphRunner(session=...)`: the runner captures with this session."""
        if any(r is runner for r in self.runners):
            return
        self.runners.append(runner)

    def capture(self, runners: Sequence[SessionRunner] | None = None) -> CaptureReport:
        """Capture (or recapture) the graphs of `runners` (default: all), in one order.

        Every runner's static views are taken before the first capture, so an undersized
        buffer raises CapacityError at start-up, before any graph memory is taken.
        """
        chosen = list(self.runners if runners is None else runners)
        for runner in chosen:
            if not any(r is runner for r in self.runners):
                raise ConfigError("capture: the runner is not part of this session")
        jobs = [(rank, runner, job) for rank, runner in enumerate(chosen)
                for job in runner._capture_jobs()]
        jobs.sort(key=lambda item: (-item[2].key.padded, -(item[2].key.num_reqs or 0),
                                    item[0]))
        for runner in chosen:
            runner.release()
        events: list[CaptureEvent] = []
        mine: dict[int, list[CaptureEvent]] = {id(r): [] for r in chosen}
        context = self.capture_context() if self.capture_context else contextlib.nullcontext()
        start = time.perf_counter()
        with contextlib.ExitStack() as stack:
            if self.freeze_gc:
                stack.enter_context(frozen_gc())
            stack.enter_context(context)
            stack.enter_context(torch.no_grad())
            for index, (_, runner, job) in enumerate(jobs, 1):
                keep = not self.weak_outputs or index == len(jobs)
                free = self.free_memory() if self.free_memory else None
                t0 = time.perf_counter()
                runner._capture_job(job, keep_output=keep)
                seconds = time.perf_counter() - t0
                taken = free - self.free_memory() if free is not None and self.free_memory \
                    else None
                event = CaptureEvent(runner.component, job.key, job.variant, index, len(jobs),
                                     seconds, taken, keep)
                events.append(event)
                mine[id(runner)].append(event)
                if self.progress is not None:
                    self.progress(event)
        report = CaptureReport(tuple(events), time.perf_counter() - start)
        for runner in chosen:
            runner._captured(mine[id(runner)])
        self.report = report
        return report

    def release(self) -> None:
        """Drop every runner's graphs (and, on CUDA, the pool: the next capture makes one)."""
        for runner in self.runners:
            runner.release()
        reset = getattr(self.backend, "reset", None)
        if callable(reset):
            reset()
        self.report = None


class SoloCapture:
    """The session side shared by the keyed runners (`KeyedGraphRunner`, the DSPARK compact
    runner): their graphs live in `graphs`, `release` drops them, and `capture` runs them in
    a session of their own when no engine-wide session was given. Subclasses set `graphs`,
    `backend` and the `SessionRunner` capture methods."""

    graphs: dict[Any, Any]
    backend: Backend

    def _captured(self, events: Sequence[CaptureEvent]) -> None:
        del events

    def release(self) -> None:
        self.graphs.clear()

    def capture(self) -> None:
        """Capture every graph without a session (a one-runner session)."""
        session = CaptureSession(self.backend, freeze_gc=False)
        session.add(self)  # type: ignore[arg-type]  # the subclass completes SessionRunner
        session.capture()
