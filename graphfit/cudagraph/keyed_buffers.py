"""`KeyedBufferRunner`: a plan's keyed component whose graphs read its own buffers -- per-request
feature tensors (TensorRT-LLM's feature-mode encoder: Whisper's waveforms), a vision tower's
token-row inputs (TensorRT-LLM's multimodal encoders) -- rather than one pair of token ids and
positions (`graphfit.cudagraph.keyed.KeyedGraphRunner`).

Every buffer of the component is allocated as the plan sized it (leading dims, its capacity
on the scaled axis, trailing dims, its dtype; `capacities` audits other rows). A graph of key
k is captured over the first `dispatch.rows_of(k, name)` rows of each buffer it reads, all
taken before the first capture (a short buffer is a CapacityError there). A batch's real
rows per buffer are its request count for a request-axis buffer and its token count for a
token-axis one (the component's first two counts: (requests, tokens, longest) or (contexts,
tokens)); a replay writes them, then fills the rows up to its key's with the buffer's
padding fill.

A host buffer the plan declares the staging copy of buffer X (`BufferPlan.stages`; TensorRT-
LLM's feature mirrors, its host `seq_lens` staging the graphs' `seq_lens_cuda`) is not read
by the graph, and is allocated in host memory (pinned beside a CUDA device where the plan
says the engine pins it, `BufferPlan.pinned`; pageable otherwise). Its shape is X's, or
(slots, *X's shape) for copies used in turn; a replay fills the next slot's rows (the
batch's rows, then the padding fill up to the key's).
A one-slot copy the plan declares pinned (`BufferPlan.pinned`) has its host-to-device copy
of the key's rows recorded inside the captured
graph (`graphfit.cudagraph.staging`: a replay reads what the copy holds when it runs, as
TensorRT-LLM's token-mode graph does); a copy of several slots is copied eagerly before the
replay, as the engine's feature mirrors are (a captured copy would read one fixed slot), and
so is a pageable one (a graph's memcpy node needs a pinned source). Each
slot's rows are checked against the key's before any capture. A plan without the relation
(older plan files) stages nothing: each buffer is written in place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from graphfit.cudagraph.backends import Backend, Graph, get_backend, output_tensors
from graphfit.cudagraph.capture import CaptureJob, CaptureSession, SoloCapture
from graphfit.cudagraph.dtypes import torch_dtype
from graphfit.cudagraph.fill import fill_tail
from graphfit.cudagraph.keyed import keyed_component
from graphfit.cudagraph.staging import Retirement, recording_copies, records_copies
from graphfit.planner import (
    Axis,
    BufferPlan,
    CapacityError,
    ConfigError,
    CUDAGraphMode,
    GraphKey,
    Plan,
    staging_slots,
)

BufferFn = Callable[[Mapping[str, torch.Tensor]], Any]  # views -> tensor or tuple of tensors


def staging_pairs(buffers: Sequence[BufferPlan]) -> dict[str, str]:
    """Staged buffer name -> the name of its host staging copy, as the plan declares them
    (`BufferPlan.stages`)."""
    return {b.stages: b.name for b in buffers if b.stages}


def graph_reads(buffers: Sequence[BufferPlan]) -> tuple[str, ...]:
    """The buffers a graph reads: all but the staging copies."""
    return tuple(b.name for b in buffers if not b.stages)


def real_rows(buf: BufferPlan, counts: tuple[int, ...]) -> int:
    """A batch's real rows in `buf`: its requests on the request axis, else its tokens."""
    if buf.axis is Axis.REQUESTS or len(counts) < 2:
        return counts[0]
    return counts[1]


class KeyedBufferRunner(SoloCapture):
    """One graph per captured key of a plan's keyed component, over its planned buffers."""

    def __init__(self, fn: BufferFn, plan: Plan, component: str, *,
                 session: CaptureSession | None = None, backend: str | Backend = "cpu",
                 device: str = "cpu", capacities: Mapping[str, int] | None = None) -> None:
        comp = keyed_component(plan, component)
        self.fn = fn
        self.keyed = comp
        self.dispatch = comp.dispatch
        self._component = component
        self.backend = session.backend if session is not None else get_backend(backend)
        self.specs = {b.name: b for b in comp.buffers}
        given = dict(capacities or {})
        unknown = sorted(set(given) - set(self.specs))
        if unknown or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                              for v in given.values()):
            raise ConfigError(f"capacities: rows >= 0 of {component}'s buffers "
                              f"({', '.join(self.specs)}), got {given!r}")
        # the rows each buffer holds: the plan's, or another allocation's to audit
        self.capacity = {name: given.get(name, b.capacity) for name, b in self.specs.items()}
        self.buffers = {}
        self.staging = staging_pairs(comp.buffers)
        hosted = {h for h in self.staging.values() if not self.specs[h].on_device}
        on_gpu = torch.device(device).type == "cuda"
        for b in comp.buffers:
            shape = list(b.shape)
            shape[b.axis_dim] = self.capacity[b.name]
            # a host staging copy lives in (pinned) host memory, as the engine's mirrors do;
            # every buffer a graph reads is on the runner's device
            where = "cpu" if b.name in hosted else device
            self.buffers[b.name] = torch.zeros(shape, dtype=torch_dtype(b.dtype), device=where,
                                               pin_memory=b.name in hosted and b.pinned
                                               and on_gpu)
        # staged name -> slots of its copy (1: the copy has the staged buffer's own shape);
        # the planner checked the pairs (graphfit.planner.core.buffers.check_staging)
        self.slots = {}
        for staged, host in self.staging.items():
            slots = staging_slots(self.specs[host].spec, self.specs[staged].spec)
            if slots is None:
                raise ConfigError(f"{component}.{host}: a staging copy is (slots, *the shape "
                                  f"of {staged}) or its shape")
            self.slots[staged] = slots
        # the staged buffers whose host-to-device copy the graph records (one slot)
        # (eager on a backend that records no copies: graphfit.cudagraph.staging)
        # a graph records a host-to-device copy only from pinned memory (the plan's
        # `pinned`): a pageable copy is copied eagerly, as TensorRT-LLM stages without pinned
        # memory
        self.recorded = frozenset(n for n, k in self.slots.items()
                                  if k == 1 and records_copies(self.backend)
                                  and self.specs[self.staging[n]].pinned)
        self._retirement = Retirement()
        self._recorded_device = (self.buffers[next(iter(self.recorded))].device
                                 if self.recorded else None)
        self.reads = graph_reads(comp.buffers)
        self.slot = 0
        self.graphs: dict[Any, Graph] = {}
        self.last_key: Any = None
        self._by_text: dict[str, Any] = {}
        if session is not None:
            session.add(self)

    @property
    def component(self) -> str:
        return self._component

    def _rows(self, key: Any, name: str) -> int:
        """The rows a graph of `key` reads (or stages) in `name`; CapacityError when the
        buffer holds fewer."""
        rows = self.dispatch.rows_of(key, name)
        if rows > self.capacity[name]:
            raise CapacityError(f"{self.component}.{name}", rows, self.capacity[name])
        return rows

    def _views(self, key: Any) -> dict[str, torch.Tensor]:
        for host in self.staging.values():  # the staging slots are checked first too
            self._rows(key, host)
        return {name: self.buffers[name].narrow(self.specs[name].axis_dim, 0,
                                                self._rows(key, name))
                for name in self.reads}

    def _capture_jobs(self) -> list[CaptureJob]:
        jobs = []
        for key in reversed(self.dispatch.sorted_keys()):
            views = self._views(key)  # a short buffer fails before any capture
            text = self.dispatch.key_text(key)
            self._by_text[text] = key
            rows = {name: int(view.shape[self.specs[name].axis_dim])
                    for name, view in views.items()}
            jobs.append(CaptureJob(GraphKey(self.dispatch.rows(key), None), (("key", text),),
                                   (CUDAGraphMode.FULL,), views, rows))
        return jobs

    def _capture_job(self, job: CaptureJob, *, keep_output: bool) -> None:
        for name, view in job.views.items():
            fill_tail(view, self.specs[name].axis_dim, 0, self.specs[name].fill)
        key = self._by_text[str(dict(job.variant)["key"])]
        copies = []
        for name in sorted(self.recorded):  # captured over the fill, as the views
            spec, host, rows = self.specs[name], self.buffers[self.staging[name]], \
                job.rows[name]
            fill_tail(host.narrow(spec.axis_dim, 0, rows), spec.axis_dim, 0, spec.fill)
            copies.append(functools.partial(self._refill, name, host, rows))
        self.graphs[key] = self.backend.capture(recording_copies(self.fn, copies), job.views)

    def _stage(self, key: Any, batch: Mapping[str, torch.Tensor], counts: tuple[int, ...]
               ) -> None:
        """Write the batch's real rows and the padding fill up to the key's rows."""
        slot = self.slot  # the copies' slot this replay fills (each copy's modulo its slots)
        self.slot = (slot + 1) % max(self.slots.values(), default=1)
        for name in self.reads:
            spec, rows = self.specs[name], self._rows(key, name)
            real = real_rows(spec, counts)
            host_name = self.staging.get(name)
            target = self.buffers[name]
            if host_name is not None:  # the slot of the copy used this time
                target = self.buffers[host_name]
                if len(self.specs[host_name].spec.leading) > len(spec.spec.leading):
                    target = target[slot % self.slots[name]]
            target.narrow(spec.axis_dim, 0, real).copy_(batch[name])
            fill_tail(target.narrow(spec.axis_dim, 0, rows), spec.axis_dim, real, spec.fill)
            if host_name is not None and name not in self.recorded:  # eager H2D, then replay
                self._refill(name, target, rows)

    def _refill(self, name: str, host: torch.Tensor, rows: int) -> None:
        """Copy the `rows` a graph reads of `name` from its host staging copy's slot `host`
        to the device buffer: recorded in the graph for a one-slot copy, else eagerly before
        the replay (non-blocking: async from pinned memory on CUDA)."""
        axis = self.specs[name].axis_dim
        self.buffers[name].narrow(axis, 0, rows).copy_(host.narrow(axis, 0, rows),
                                                       non_blocking=True)

    def step(self, batch_key: Any, batch: Mapping[str, torch.Tensor], *,
             eager: bool = False) -> tuple[torch.Tensor, ...]:
        """Run one batch (`batch_key` as the dispatch reads it; `batch` each buffer the graphs
        read, its real rows): the captured graph its key replays, else eagerly. The output is
        each of fn's tensors cut to the real rows of the buffer it belongs to (fn returns one
        tensor per read buffer, in `reads` order)."""
        counts = self.keyed.counts(batch_key)
        for name in self.reads:
            real = real_rows(self.specs[name], counts)
            if name not in batch or int(batch[name].shape[self.specs[name].axis_dim]) != real:
                raise ConfigError(f"step: {name} must hold the batch's {real} rows")
        key = None if eager else self.dispatch.lookup(batch_key)
        self.last_key = key
        if key is None or key not in self.graphs:
            return output_tensors(self.fn({name: batch[name] for name in self.reads}))
        self._retirement.wait()  # the last replay's recorded copies have read the host rows
        self._stage(key, batch, counts)
        out = output_tensors(self.graphs[key].replay())
        if self._recorded_device is not None:
            self._retirement.replayed(self._recorded_device)
        return tuple(t[:real_rows(self.specs[name], counts)]
                     for t, name in zip(out, self.reads, strict=True))
