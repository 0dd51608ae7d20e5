"""`recording_copies`: a graph function that first runs its host-to-device staging copies, so
capturing it records them in the graph.

TensorRT-LLM's token-mode encoder runner captures its pinned host copies' host-to-device copy
inside the graph (`_prepare_token_capture`,
tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:2065-2127; its `capture_h2d`,
2117-2125, is called by `capture`, just above, inside `torch.cuda.graph` before the
forward): a replay then re-reads whatever the host copy holds when it runs. Its feature mode
does not (`_prepare_feature_capture`, 2129-2157): its mirrors are used in turn, and a
captured copy would read one fixed mirror. The keyed runners and `GraphRunner` follow the
same rule from the plan alone: a one-slot copy (`BufferPlan.stages`, the staged buffer's
own shape) is recorded, a copy of several slots is copied eagerly.

On the CPU backend a graph is its function over the captured views, so the copies run at each
replay, reading the host copy then: the same static-shape semantics (the graph reads only
what it captured). On CUDA the copies are captured as memcpy nodes from pinned memory. A
backend that does not say it records them (`records_copies`; the compiled backend, whose
torch.compile would have to trace the copy from a host tensor the function closes over)
gets the copies eagerly before each replay instead: the same rows, not in the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

GraphFn = Callable[[Mapping[str, torch.Tensor]], Any]


def records_copies(backend: object) -> bool:
    """Whether `backend` replays a staging copy its graph function runs (`records_copies`
    True: the CPU and CUDA backends)."""
    return getattr(backend, "records_copies", False) is True


def recording_copies(fn: GraphFn, copies: Sequence[Callable[[], None]]) -> GraphFn:
    """`fn` preceded by `copies` (each one staging copy of fixed tensors and rows): what a
    backend captures, so a replay repeats the copies. `fn` itself when there are none."""
    if not copies:
        return fn
    steps = tuple(copies)

    def staged(views: Mapping[str, torch.Tensor]) -> Any:
        for copy in steps:
            copy()
        return fn(views)

    return staged


class Retirement:
    """The wait before a host copy a graph records is written again: on CUDA the recorded
    copy reads the host memory when the replay executes, after `replay()` returned, so the
    next batch's host writes first wait for the event recorded after the last replay
    (TensorRT-LLM's `retire_staging`,
    tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:2159-2163, waited on at
    the start of the token `replay`, its event recorded after the graph replay,
    tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:2207-2231). Nothing to
    wait for on the CPU (replays are synchronous)."""

    def __init__(self) -> None:
        self._event: torch.cuda.Event | None = None  # made on the first CUDA replay, reused
        self._pending = False

    def wait(self) -> None:
        """Block until the last recorded replay no longer reads the host copies."""
        if self._pending and self._event is not None:
            self._event.synchronize()
            self._pending = False

    def replayed(self, device: torch.device) -> None:
        """Mark a replay that reads host copies, on `device`'s current stream."""
        if device.type == "cuda":
            if self._event is None:
                self._event = torch.cuda.Event()  # type: ignore[no-untyped-call]
            self._event.record(torch.cuda.current_stream(device))
            self._pending = True
