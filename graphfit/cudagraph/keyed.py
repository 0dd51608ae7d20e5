"""`KeyedGraphRunner`: graphs keyed on (requests, tokens, longest request), captured in a
`CaptureSession` and replayed in one pair of static token buffers.

The planner's `KeyedDispatch` (graphfit.planner.core.keyed) says which captured key a batch
replays; this runner never re-derives it. A key (b, n, L) is captured as the session's
`GraphKey(padded=n, num_reqs=b)` with the variant `(("longest", L),)`: the longest-request
bucket is a third dimension the graph bakes in (TensorRT-LLM's encoder graphs fix their
attention kernel's max length to it), passed to `fn` as the keyword `longest`. A batch's
tokens are staged in the static `input_ids` / `position_ids` (positions restart at 0 for
each request), the padded tail is zero-filled, and its output is the first n real rows.
A plan whose component also has a request-axis `seq_lens` buffer (TensorRT-LLM's pinned host
sequence lengths) gets it too, of the planned rows: a replay writes the batch's lengths and
1 for each padding request (the engine's one-token dummies), and a key with more requests
than it holds is refused before any capture.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import torch

from graphfit.cudagraph.backends import Backend, Graph, get_backend
from graphfit.cudagraph.capture import CaptureJob, CaptureSession, SoloCapture
from graphfit.planner import (
    CapacityError,
    ConfigError,
    CUDAGraphMode,
    GraphKey,
    KeyedDispatch,
    Plan,
)

if TYPE_CHECKING:  # the type only: the runtime reaches the planner through graphfit.planner
    from graphfit.planner.keyed_plan import KeyedComponentPlan

KeyedFn = Callable[..., torch.Tensor]  # fn(views, *, longest) -> one row per token


def keyed_component(plan: Plan, component: str) -> KeyedComponentPlan:
    """`plan.keyed[component]`, refused with one error naming the keyed components there:
    both keyed runners (tokens only, or every planned buffer) start from it."""
    if not isinstance(plan, Plan):
        raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
    comp = plan.keyed.get(component)
    if comp is None:
        raise ConfigError(f"component: the plan has no keyed component {component!r} "
                          f"(keyed: {', '.join(plan.keyed) or 'none'})")
    return comp


class KeyedGraphRunner(SoloCapture):
    """One graph per captured key of `dispatch`, in static buffers of `capacity` token rows
    (the planner's proof says every replayed key fits)."""

    def __init__(self, fn: KeyedFn, dispatch: KeyedDispatch, capacity: int, *,
                 session: CaptureSession | None = None, backend: str | Backend = "cpu",
                 component: str = "encoder", device: str = "cpu",
                 seq_lens_capacity: int | None = None) -> None:
        if not isinstance(dispatch, KeyedDispatch):
            raise ConfigError(f"dispatch: expected a KeyedDispatch, got "
                              f"{type(dispatch).__name__}")
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
            raise ConfigError(f"capacity: expected rows >= 0, got {capacity!r}")
        self.fn = fn
        self.dispatch = dispatch
        self._component = component
        self.backend = session.backend if session is not None else get_backend(backend)
        self.input_ids = torch.zeros(capacity, dtype=torch.int32, device=device)
        self.position_ids = torch.zeros(capacity, dtype=torch.int32, device=device)
        bad = isinstance(seq_lens_capacity, bool) or not isinstance(seq_lens_capacity, int) \
            or seq_lens_capacity < 0
        if seq_lens_capacity is not None and bad:
            raise ConfigError(f"seq_lens_capacity: expected rows >= 0, got "
                              f"{seq_lens_capacity!r}")
        # host-side, as the engine's (pinned there; plain CPU memory here)
        self.seq_lens = (None if seq_lens_capacity is None
                         else torch.ones(seq_lens_capacity, dtype=torch.int32))
        self.graphs: dict[tuple[int, ...], Graph] = {}
        self.last_key: tuple[int, ...] | None = None
        if session is not None:
            session.add(self)

    @classmethod
    def from_plan(cls, fn: KeyedFn, plan: Plan, component: str = "encoder", *,
                  session: CaptureSession | None = None, backend: str | Backend = "cpu",
                  device: str = "cpu") -> KeyedGraphRunner:
        """The runner of a plan's keyed component: its dispatch, and static buffers of the
        rows the plan sized (`Plan.keyed[component]`; the proof covers every key)."""
        comp = keyed_component(plan, component)
        capacity = min((b.capacity for b in comp.buffers if b.axis.value == "tokens"),
                       default=0)
        seq_lens = next((b.capacity for b in comp.buffers
                         if b.name == "seq_lens" and b.axis.value == "requests"), None)
        return cls(fn, comp.dispatch, capacity, session=session, backend=backend,
                   component=component, device=device, seq_lens_capacity=seq_lens)

    @property
    def component(self) -> str:
        return self._component

    def _views(self, rows: int) -> dict[str, torch.Tensor]:
        if rows > self.input_ids.shape[0]:
            raise CapacityError(f"{self.component}.input_ids", rows, self.input_ids.shape[0])
        return {"input_ids": self.input_ids[:rows], "position_ids": self.position_ids[:rows]}

    def _stage_seq_lens(self, key: tuple[int, ...], lens: Sequence[int]) -> None:
        """Write a batch's lengths, then 1 per padding request, into `seq_lens[:key[0]]`."""
        if self.seq_lens is None:
            return
        if key[0] > self.seq_lens.shape[0]:
            raise CapacityError(f"{self.component}.seq_lens", key[0], self.seq_lens.shape[0])
        self.seq_lens[:len(lens)].copy_(torch.tensor(list(lens), dtype=torch.int32))
        self.seq_lens[len(lens):key[0]].fill_(1)

    def _capture_jobs(self) -> list[CaptureJob]:
        jobs = []
        for key in sorted(self.dispatch.captured, reverse=True):
            rows = self.dispatch.rows(key)
            views = self._views(rows)  # a short buffer fails before any capture
            self._stage_seq_lens(key, ())
            jobs.append(CaptureJob(GraphKey(rows, key[0]), (("longest", key[2]),),
                                   (CUDAGraphMode.FULL,), views,
                                   {"input_ids": rows, "position_ids": rows}))
        return jobs

    def _capture_job(self, job: CaptureJob, *, keep_output: bool) -> None:
        for view in job.views.values():
            view.zero_()
        longest = dict(job.variant)["longest"]
        if not isinstance(longest, int):
            raise ConfigError(f"capture: longest must be an int, got {longest!r}")
        key = (job.key.num_reqs or 0, job.key.padded, longest)
        self.graphs[key] = self.backend.capture(functools.partial(self.fn, longest=longest),
                                                job.views)

    def step(self, input_ids: torch.Tensor, seq_lens: Sequence[int], *,
             eager: bool = False) -> torch.Tensor:
        """Run one batch (packed `input_ids`, one length per request): the captured graph
        its (requests, tokens, longest) key replays, else eagerly."""
        lens = [int(n) for n in seq_lens]
        n = sum(lens)
        if not lens or min(lens) < 1 or int(input_ids.shape[0]) != n:
            raise ConfigError("step: seq_lens must be >= 1 each and sum to len(input_ids)")
        positions = torch.cat([torch.arange(k, dtype=torch.int32, device=input_ids.device)
                               for k in lens])
        # a dispatch reads the (requests, tokens, longest) counts by default, else the
        # lengths themselves (TensorRT-LLM's fixed sequence slots: graphfit.planner.engines.
        # trtllm_encdec)
        batch = (len(lens), n, max(lens)) if self.dispatch.reads_counts else tuple(lens)
        key = None if eager else self.dispatch.lookup(batch)
        self.last_key = key
        if key is None or key not in self.graphs:
            views: Mapping[str, torch.Tensor] = {"input_ids": input_ids.to(torch.int32),
                                                 "position_ids": positions}
            return self.fn(views, longest=max(lens))
        rows = self.dispatch.rows(key)
        self._stage_seq_lens(key, lens)
        self.input_ids[:n].copy_(input_ids)
        self.input_ids[n:rows].zero_()
        self.position_ids[:n].copy_(positions)
        self.position_ids[n:rows].zero_()
        out = self.graphs[key].replay()
        assert isinstance(out, torch.Tensor)
        return out[:n]
