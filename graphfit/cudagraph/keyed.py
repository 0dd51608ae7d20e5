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

A plan that declares a host staging copy of `input_ids` or `position_ids` (a host buffer
whose `BufferPlan.stages` names it: TensorRT-LLM's pinned `shared_static_tensors_cpu`) gets
those copies too, in host memory (pinned beside a CUDA device), of the copy's rows and slots
(the copy's leading dim, used in turn, else one): a replay writes the batch's rows and the
zero tail up to its key's rows there. A one-slot copy's host-to-device copy of the key's rows
is recorded inside the captured graph (`graphfit.cudagraph.staging`), so a replay reads
whatever the copy holds when it runs, as the engine's pinned-mode graph does; a copy of
several slots cannot be (the graph would read one fixed slot), so its rows are copied
eagerly before the replay. A plan without the relation (older plan files) writes the device
buffers in place, as before.

A plan that declares a token-axis buffer filled once with 0, 1, 2, ... (`init` "arange":
TensorRT-LLM's host `_arange_max`) gets it, of the planned rows: each request's positions are
its first rows, copied slice by slice (no fresh `torch.arange` per batch); without one the
positions are built with `torch.arange`.

A plan whose host `seq_lens` stages a device buffer (`seq_lens_cuda`: the device sequence
lengths TensorRT-LLM's graph attention metadata reads) gets that device buffer too: a replay
writes the host lengths, and the copy of the key's request rows to the device is recorded
in the graph (or copied eagerly before the replay, as the staging copies above).

Only a host buffer the plan declares pinned (`BufferPlan.pinned`) is allocated pinned beside
a CUDA device and has its copy recorded in the graph: a graph's memcpy node reads a pinned
source; a pageable copy is copied eagerly before each replay (TensorRT-LLM captures its
copies only when `prefer_pinned()`).

A plan whose component has a `capture_offsets_cuda` device buffer (TensorRT-LLM's fixed
sequence slots: graphfit.planner.engines.trtllm_encdec) gets it, of the planned rows: each
captured key's boundaries (0, then the running sum of its capture layout, the key's witness)
are written once, at capture, into the key's own region of it (the plan's rows of the key
there are the region's end, b + 1 rows each), and never again. Its graph reads them as the
requests' boundaries (`fn`'s views `cu_seqlens`, with `seq_lens` the slots' lengths); a
replay puts each request in a slot of its layout (in order when each fits its slot, else
longest to longest, as the engine's `_get_sequence_slot_mapping`), its tokens at the slot's
offset, zeros elsewhere, the slots' lengths in `seq_lens` (1 for a dummy), and gathers each
request's rows back in request order. An eager run reads the packed batch's boundaries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import torch

from graphfit.cudagraph.backends import Backend, Graph, get_backend
from graphfit.cudagraph.capture import CaptureJob, CaptureSession, SoloCapture
from graphfit.cudagraph.staging import Retirement, recording_copies, records_copies
from graphfit.planner import (
    CapacityError,
    ConfigError,
    CUDAGraphMode,
    GraphKey,
    KeyedDispatch,
    Plan,
    staging_slots,
)

if TYPE_CHECKING:  # the type only: the runtime reaches the planner through graphfit.planner
    from graphfit.planner.keyed_plan import KeyedComponentPlan

KeyedFn = Callable[..., torch.Tensor]  # fn(views, *, longest) -> one row per token
STAGED = ("input_ids", "position_ids")  # the token buffers a host copy may stage
SLOT_OFFSETS = "capture_offsets_cuda"  # fixed slots' per-key boundaries (device)


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
                 seq_lens_capacity: int | None = None,
                 staging: Mapping[str, tuple[int, int]] | None = None,
                 arange_rows: int | None = None, arange_on_host: bool = True,
                 seq_lens_on_device: bool = False,
                 pinned: Collection[str] | None = None,
                 slot_layouts: Mapping[tuple[int, ...], Sequence[int]] | None = None,
                 slot_regions: Mapping[tuple[int, ...], int] | None = None) -> None:
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
        # the host buffers allocated pinned (beside a CUDA device): the plan's, else all
        self.pinned = frozenset((*STAGED, "seq_lens") if pinned is None else pinned)
        on_gpu = torch.device(device).type == "cuda"
        # host-side, as the engine's (pinned there where the plan says so)
        self.seq_lens = (None if seq_lens_capacity is None
                         else torch.ones(seq_lens_capacity, dtype=torch.int32,
                                         pin_memory="seq_lens" in self.pinned and on_gpu))
        if seq_lens_on_device and self.seq_lens is None:
            raise ConfigError("seq_lens_on_device: needs the host seq_lens it is refilled from")
        # the graphs' device copy of the host lengths, where the plan declares one
        self.seq_lens_cuda = (torch.ones_like(self.seq_lens, device=device)
                              if seq_lens_on_device and self.seq_lens is not None else None)
        self.staging = self._host_copies(dict(staging or {}), device, self.pinned)
        # the copies whose host-to-device copy the graph records (one slot: a fixed address;
        # pinned: a graph's memcpy node reads pinned memory) (eager on a backend that records
        # no copies: graphfit.cudagraph.staging)
        self.recorded = frozenset(n for n, c in self.staging.items()
                                  if c.shape[0] == 1 and records_copies(self.backend)
                                  and n in self.pinned)
        self.seq_lens_recorded = (self.seq_lens_cuda is not None
                                  and records_copies(self.backend)
                                  and "seq_lens" in self.pinned)
        self._retirement = Retirement()
        bad = isinstance(arange_rows, bool) or not isinstance(arange_rows, int) \
            or arange_rows < 0
        if arange_rows is not None and bad:
            raise ConfigError(f"arange_rows: expected rows >= 0, got {arange_rows!r}")
        # the plan's arange (filled once), where the positions come from
        self.arange = None if arange_rows is None else torch.arange(
            arange_rows, dtype=torch.int32, device="cpu" if arange_on_host else device)
        self._turn = 0
        self.slot_layouts, self.slot_regions, self.capture_offsets = self._slot_buffers(
            slot_layouts, slot_regions, device)
        self.last_slots: tuple[int, ...] = ()  # each request's token offset, last replay
        self.graphs: dict[tuple[int, ...], Graph] = {}
        self.last_key: tuple[int, ...] | None = None
        if session is not None:
            session.add(self)

    def _slot_buffers(self, layouts: Mapping[tuple[int, ...], Sequence[int]] | None,
                      ends: Mapping[tuple[int, ...], int] | None, device: str
                      ) -> tuple[dict[tuple[int, ...], tuple[int, ...]],
                                 dict[tuple[int, ...], tuple[int, int]], torch.Tensor | None]:
        """Fixed slots: each captured key's capture layout (b slots summing to its tokens),
        its region [end - b - 1, end) of the boundaries buffer, and that buffer (the most
        rows any region ends at)."""
        if layouts is None and ends is None:
            return {}, {}, None
        if layouts is None or ends is None:
            raise ConfigError("fixed slots: slot_layouts and slot_regions go together")
        out_layouts, regions = {}, {}
        for key in self.dispatch.captured:
            layout, end = layouts.get(key), ends.get(key)
            ok = (isinstance(layout, (tuple, list)) and len(layout) == key[0]
                  and all(isinstance(v, int) and v >= 1 for v in layout)
                  and sum(layout) == key[1] and isinstance(end, int)
                  and not isinstance(end, bool) and end >= key[0] + 1)
            if not ok:
                raise ConfigError(f"fixed slots: key {key}: expected a layout of {key[0]} "
                                  f"slots summing to {key[1]} and a region end >= "
                                  f"{key[0] + 1}, got {layout!r}, {end!r}")
            assert isinstance(layout, (tuple, list)) and isinstance(end, int)
            out_layouts[key] = tuple(layout)
            regions[key] = (end - key[0] - 1, end)
        rows = max((e for _, e in regions.values()), default=0)
        return out_layouts, regions, torch.zeros(rows, dtype=torch.int32, device=device)

    def slot_mapping(self, key: tuple[int, ...], lens: Sequence[int]) -> list[int] | None:
        """Each request's slot of `key`'s layout: in order when every request fits its
        slot, else longest request to longest slot (ties by index); None when one does
        not fit (the engine raises ValueError replaying such a batch)."""
        layout = self.slot_layouts[key]
        if len(layout) != len(lens):
            return None
        if all(n <= c for n, c in zip(lens, layout, strict=True)):
            return list(range(len(lens)))
        order = sorted(range(len(lens)), key=lambda i: (-lens[i], i))
        slots = sorted(range(len(layout)), key=lambda i: (-layout[i], i))
        out = [0] * len(lens)
        for src, slot in zip(order, slots, strict=True):
            if lens[src] > layout[slot]:
                return None
            out[src] = slot
        return out

    def _boundaries(self, key: tuple[int, ...]) -> torch.Tensor:
        assert self.capture_offsets is not None
        start, end = self.slot_regions[key]
        return self.capture_offsets[start:end]

    def _slot_views(self, key: tuple[int, ...]) -> dict[str, torch.Tensor]:
        """The boundaries and lengths a fixed-slot graph reads (none without slots)."""
        if self.capture_offsets is None:
            return {}
        lens = self.seq_lens_cuda if self.seq_lens_cuda is not None else self.seq_lens
        if lens is None:
            raise ConfigError(f"{self.component}: fixed slots need the plan's seq_lens")
        if key[0] > lens.shape[0]:
            raise CapacityError(f"{self.component}.seq_lens", key[0], lens.shape[0])
        return {"cu_seqlens": self._boundaries(key), "seq_lens": lens[:key[0]]}

    @staticmethod
    def _host_copies(staging: dict[str, tuple[int, int]], device: str,
                     pinned: Collection[str]) -> dict[str, torch.Tensor]:
        """Token buffer name -> its host staging copies (slots, rows) int32, pinned beside a
        CUDA device where `pinned` names it."""
        out = {}
        for name, shape in staging.items():
            if name not in STAGED or not isinstance(shape, tuple) or len(shape) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in shape
            ) or shape[0] < 1:
                raise ConfigError(f"staging: (slots >= 1, rows >= 0) for {' or '.join(STAGED)},"
                                  f" got {name!r}: {shape!r}")
            out[name] = torch.zeros(shape, dtype=torch.int32, device="cpu",
                                    pin_memory=name in pinned
                                    and torch.device(device).type == "cuda")
        return out

    @classmethod
    def from_plan(cls, fn: KeyedFn, plan: Plan, component: str = "encoder", *,
                  session: CaptureSession | None = None, backend: str | Backend = "cpu",
                  device: str = "cpu") -> KeyedGraphRunner:
        """The runner of a plan's keyed component: its dispatch, and static buffers of the
        rows the plan sized (`Plan.keyed[component]`; the proof covers every key)."""
        comp = keyed_component(plan, component)
        capacity = min((b.capacity for b in comp.buffers if b.axis.value == "tokens"),
                       default=0)
        host_lens = next((b for b in comp.buffers
                          if b.name == "seq_lens" and b.axis.value == "requests"), None)
        seq_lens = None if host_lens is None else host_lens.capacity
        # the host buffers the plan pins: a staging copy under the name it stages
        pinned = {b.stages if b.stages in STAGED else b.name for b in comp.buffers
                  if b.pinned}
        # the host staging copies the plan declares, of their slots and rows
        specs = {b.name: b.spec for b in comp.buffers}
        staging = {}
        for b in comp.buffers:
            if b.stages in STAGED:
                slots = staging_slots(b.spec, specs[b.stages])
                if slots is None:
                    raise ConfigError(f"{component}.{b.name}: a staging copy is (slots, *the "
                                      f"shape of {b.stages}) or its shape")
                staging[b.stages] = (slots, b.capacity)
        # the index buffer the positions are sliced from, where the plan declares one
        arange = next((b for b in comp.buffers if b.init == "arange"
                       and b.axis.value == "tokens" and not b.stages), None)
        # fixed slots: each key's capture layout (its witness) and region of the boundaries
        slots = any(b.name == SLOT_OFFSETS and b.on_device for b in comp.buffers)
        layouts = {k: tuple(comp.witness(k)) for k in comp.dispatch.captured} if slots else None
        regions = ({k: comp.dispatch.rows_of(k, SLOT_OFFSETS) for k in comp.dispatch.captured}
                   if slots else None)
        return cls(fn, comp.dispatch, capacity, session=session, backend=backend,
                   component=component, device=device, seq_lens_capacity=seq_lens,
                   staging=staging, arange_rows=None if arange is None else arange.capacity,
                   arange_on_host=arange is None or not arange.on_device,
                   seq_lens_on_device=host_lens is not None and bool(host_lens.stages),
                   pinned=pinned, slot_layouts=layouts, slot_regions=regions)

    @property
    def component(self) -> str:
        return self._component

    def _views(self, rows: int) -> dict[str, torch.Tensor]:
        if rows > self.input_ids.shape[0]:
            raise CapacityError(f"{self.component}.input_ids", rows, self.input_ids.shape[0])
        for name, copies in self.staging.items():  # the staging copies are checked first too
            if rows > copies.shape[1]:
                raise CapacityError(f"{self.component}.{name} (host staging copy)", rows,
                                    copies.shape[1])
        return {"input_ids": self.input_ids[:rows], "position_ids": self.position_ids[:rows]}

    def _stage_seq_lens(self, key: tuple[int, ...], lens: Sequence[int]) -> None:
        """Write a batch's lengths, then 1 per padding request, into `seq_lens[:key[0]]`."""
        if self.seq_lens is None:
            return
        if key[0] > self.seq_lens.shape[0]:
            raise CapacityError(f"{self.component}.seq_lens", key[0], self.seq_lens.shape[0])
        if self.seq_lens_cuda is not None and key[0] > self.seq_lens_cuda.shape[0]:
            raise CapacityError(f"{self.component}.seq_lens_cuda", key[0],
                                self.seq_lens_cuda.shape[0])
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
        views = dict(job.views)
        if self.capture_offsets is not None:  # written once: the graph's fixed boundaries
            bounds = [0]
            for length in self.slot_layouts[key]:
                bounds.append(bounds[-1] + length)
            self._boundaries(key).copy_(torch.tensor(bounds, dtype=torch.int32))
            views.update(self._slot_views(key))
        rows = job.key.padded
        copies = []
        for name in sorted(self.recorded):  # captured over zeros, as the views
            host, device = self.staging[name][0], self._device(name)
            host[:rows].zero_()
            copies.append(functools.partial(self._refill, name, device, host, rows))
        if self.seq_lens_recorded:  # the request rows of the graph's device lengths
            assert self.seq_lens is not None and self.seq_lens_cuda is not None
            copies.append(functools.partial(self._refill, "seq_lens", self.seq_lens_cuda,
                                            self.seq_lens, key[0]))
        fn = recording_copies(functools.partial(self.fn, longest=longest), copies)
        self.graphs[key] = self.backend.capture(fn, views)

    def _device(self, name: str) -> torch.Tensor:
        return self.input_ids if name == "input_ids" else self.position_ids

    def _refill(self, name: str, device: torch.Tensor, host: torch.Tensor, rows: int
                ) -> None:
        """Copy the `rows` a graph reads of `name` from its host staging copy to the device
        buffer: recorded in the graph for a one-slot copy, else eagerly before the replay
        (non-blocking: an async copy from pinned memory on CUDA, a plain copy on the CPU)."""
        device[:rows].copy_(host[:rows], non_blocking=True)

    def _slotted_step(self, key: tuple[int, ...], input_ids: torch.Tensor,
                      lens: list[int]) -> torch.Tensor:
        """A fixed-slot replay: each request (and one-token dummy) in its slot of the key's
        layout, the slots' lengths in `seq_lens`, tokens and positions at the slots'
        offsets (zeros elsewhere), the output gathered back in request order."""
        padded = [*lens, *[1] * (key[0] - len(lens))]
        mapping = self.slot_mapping(key, padded)
        if mapping is None:
            raise ConfigError(f"{self.component}: request lengths {lens} fit no slot of key "
                              f"{key}'s layout {list(self.slot_layouts[key])}")
        slot_lens = [0] * key[0]
        for src, slot in enumerate(mapping):
            slot_lens[slot] = padded[src]
        bounds = [0]
        for length in self.slot_layouts[key]:
            bounds.append(bounds[-1] + length)
        rows = self.dispatch.rows(key)
        self._retirement.wait()
        self._stage_seq_lens(key, slot_lens)
        if self.seq_lens_cuda is not None and not self.seq_lens_recorded:
            assert self.seq_lens is not None
            self._refill("seq_lens", self.seq_lens_cuda, self.seq_lens, key[0])
        self.last_slots = tuple(bounds[mapping[i]] for i in range(len(lens)))
        turn, self._turn = self._turn, self._turn + 1
        for name in STAGED:
            device = self._device(name)
            copies = self.staging.get(name)
            target = device if copies is None else copies[turn % copies.shape[0]]
            target[:rows].zero_()
            source = 0
            for dest, k in zip(self.last_slots, lens, strict=True):
                if name == "input_ids":
                    target[dest:dest + k].copy_(input_ids[source:source + k])
                else:
                    self._write_positions(target[dest:dest + k], [k])
                source += k
            if copies is not None and name not in self.recorded:
                self._refill(name, device, target, rows)
        out = self.graphs[key].replay()
        if self.recorded or self.seq_lens_recorded:
            self._retirement.replayed(self.input_ids.device)
        assert isinstance(out, torch.Tensor)
        return torch.cat([out[dest:dest + k] for dest, k in zip(self.last_slots, lens,
                                                                  strict=True)])

    def _write_positions(self, target: torch.Tensor, lens: Sequence[int], *,
                         staged: bool = True) -> None:
        """Each request's positions 0..len-1 into `target`'s rows, packed: slices of the
        plan's arange (the engine's `_arange_max[:len]`, which only its graph replays stage
        from), else (or for an eager batch, `staged` False) `torch.arange`."""
        offset = 0
        for k in lens:
            if self.arange is None or not staged:
                ramp = torch.arange(k, dtype=torch.int32)
            elif k > self.arange.shape[0]:
                raise CapacityError(f"{self.component}.arange", k, self.arange.shape[0])
            else:
                ramp = self.arange[:k]
            target[offset:offset + k].copy_(ramp)
            offset += k

    def step(self, input_ids: torch.Tensor, seq_lens: Sequence[int], *,
             eager: bool = False) -> torch.Tensor:
        """Run one batch (packed `input_ids`, one length per request): the captured graph
        its (requests, tokens, longest) key replays, else eagerly."""
        lens = [int(n) for n in seq_lens]
        n = sum(lens)
        if not lens or min(lens) < 1 or int(input_ids.shape[0]) != n:
            raise ConfigError("step: seq_lens must be >= 1 each and sum to len(input_ids)")
        # a dispatch reads the (requests, tokens, longest) counts by default, else the
        # lengths themselves (TensorRT-LLM's fixed sequence slots: graphfit.planner.engines.
        # trtllm_encdec)
        batch = (len(lens), n, max(lens)) if self.dispatch.reads_counts else tuple(lens)
        key = None if eager else self.dispatch.lookup(batch)
        self.last_key = key
        if key is None or key not in self.graphs:
            positions = torch.empty(n, dtype=torch.int32, device=input_ids.device)
            # an eager batch may hold a request longer than the plan's arange rows (sized for
            # the graphs' tokens): its positions are built, not sliced
            self._write_positions(positions, lens, staged=False)
            views: dict[str, torch.Tensor] = {"input_ids": input_ids.to(torch.int32),
                                              "position_ids": positions}
            if self.capture_offsets is not None:  # the packed batch's own boundaries
                bounds = torch.tensor([0, *lens], dtype=torch.int32).cumsum(0)
                views["cu_seqlens"] = bounds.to(torch.int32).to(input_ids.device)
                views["seq_lens"] = torch.tensor(lens, dtype=torch.int32,
                                                 device=input_ids.device)
            return self.fn(views, longest=max(lens))
        if self.capture_offsets is not None:
            return self._slotted_step(key, input_ids, lens)
        rows = self.dispatch.rows(key)
        self._retirement.wait()  # the last replay's recorded copies have read the host rows
        self._stage_seq_lens(key, lens)
        if self.seq_lens_cuda is not None and not self.seq_lens_recorded:
            assert self.seq_lens is not None
            self._refill("seq_lens", self.seq_lens_cuda, self.seq_lens, key[0])
        turn, self._turn = self._turn, self._turn + 1
        for name in STAGED:
            device = self._device(name)
            copies = self.staging.get(name)
            target = device if copies is None else copies[turn % copies.shape[0]]
            if name == "input_ids":
                target[:n].copy_(input_ids)
            else:
                self._write_positions(target, lens)
            target[n:rows].zero_()
            if copies is not None and name not in self.recorded:  # eager H2D, then replay
                self._refill(name, device, target, rows)
        out = self.graphs[key].replay()
        if self.recorded or self.seq_lens_recorded:
            self._retirement.replayed(self.input_ids.device)
        assert isinstance(out, torch.Tensor)
        return out[:n]
