"""`GraphRunner`: capture one graph per static shape, then dispatch, fill, replay, slice.

A step is `prepare` (every check, once per batch shape: a frozen `PreparedStep`) and then
`replay`. Per step the runner (1) dispatches the batch through the plan's table (`Plan.pad`),
(2) copies the real rows of `inputs` into the static buffers, (3) fills every graph input's
padded tail `[real, static)` per its fill policy, so nothing from an earlier batch reaches the
graph, (4) replays, and (5) slices the outputs back to the real tokens. Batches the plan sends
to NONE (above the largest capture size) run `fn` eagerly on unpadded views instead.

Rows per buffer (see `rows.py`): buffers on padded token streams get `num_tokens` real rows
padded to `Dispatch.padded`; request-axis buffers get `num_reqs` real rows padded to the key's
request count (`Dispatch.num_reqs`, or min(padded, max_num_seqs) for PIECEWISE keys, which
carry none); demand offsets (query_start_loc's +1) are added to both. Buffers fed only by the
never-padded context stream are not graph inputs: write and read them outside the graph.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType
from typing import Literal

import torch

from graphfit.cudagraph.backends import Backend, Graph, GraphFn, Outputs, get_backend
from graphfit.cudagraph.buffers import StaticBuffers
from graphfit.cudagraph.capture import CaptureEvent, CaptureJob, CaptureSession, Variant
from graphfit.cudagraph.fill import fill_tail, tail_filler
from graphfit.cudagraph.staging import Retirement, recording_copies, records_copies
from graphfit.planner import (
    BatchError,
    ConfigError,
    CUDAGraphMode,
    Dispatch,
    FillKind,
    FillPolicy,
    GraphfitError,
    GraphKey,
    Plan,
    RowRule,
    brief,
    excerpt,
    real_requests,
    staging_slots,
    static_requests,
)


@dataclass(frozen=True, slots=True)
class TailFill:
    """One graph input's padded tail: the buffer, its axis, rule, policy and static rows."""

    name: str
    view: torch.Tensor  # the static view the graph reads
    axis: int
    rule: RowRule
    policy: FillPolicy
    static_rows: int


@dataclass(frozen=True)
class CapturedGraph:
    """A graph with the static views it reads and the dispatch modes that replay it.

    `tail_fillers[i][real]` is the prepared fill of `fills[i]`'s tail from `real` rows on
    (`fill.tail_filler`; None: nothing to fill), built on first use and reused by every
    later step.
    """

    key: GraphKey
    modes: tuple[CUDAGraphMode, ...]
    views: Mapping[str, torch.Tensor]
    static_rows: Mapping[str, int]
    fills: tuple[TailFill, ...]
    graph: Graph
    tail_fillers: tuple[dict[int, Callable[[], object] | None], ...] = field(
        default=(), repr=False, compare=False)
    # (device view, host view) of each staged input: the rows the graph reads, copied from
    # the buffer's host staging copy before each replay
    refills: tuple[tuple[torch.Tensor, torch.Tensor], ...] = field(
        default=(), repr=False, compare=False)
    # turns 1.. of slotted staging copies: (fills, their prepared fillers, refills) on the
    # turn's slots (turn 0 is the fields above)
    turns: tuple[tuple[tuple[TailFill, ...], tuple[dict[int, Callable[[], object] | None], ...],
                       tuple[tuple[torch.Tensor, torch.Tensor], ...]], ...] = field(
        default=(), repr=False, compare=False)


@dataclass(frozen=True)
class CaptureStats:
    graphs: int
    seconds: float
    order: tuple[GraphKey, ...]  # capture order: largest first


# a hook run before each replay with the graph's key and the batch's real token and request
# counts: where an engine plans its attention metadata (FlashInfer's plan() runs on the host
# before the graph replays)
BeforeReplay = Callable[[GraphKey, int, int], object]
OutputRows = Literal["tokens", "requests"]


class GraphRunner:
    """Replays `fn` as static-shape graphs over a plan's buffers.

    `fn(views)` gets a dict of buffer name -> view (the padded static rows of the captured
    shape, or the real rows when run eagerly) and returns a tensor or tuple of tensors with
    one row per token on dim 0. It must not keep references to `views` across calls or
    depend on anything but their contents (it is captured once per shape).

    `graph_inputs` names the buffers fn reads (default: every buffer a graph can read).
    `step(batch)` is `replay(prepare(batch), batch)`: `prepare` checks a batch once and
    returns a frozen `PreparedStep`, `replay` runs it for any batch of the same shapes.

    Capture as an engine does (see `capture.py`): `session` shares one backend (one pool)
    and one largest-first order with other runners, and defers capture to
    `session.capture()`. `variants` adds graph-key dimensions beyond the shape, e.g.
    `{"lora": (False, True)}`: one graph per shape and combination, `fn(views, lora=...)`
    is called with the variant and `step(..., variant={"lora": True})` picks it (the first
    value of each dimension is the default). `before_replay(key, num_tokens, num_reqs)` runs
    before every replay. `outputs="requests"` declares one output row per request instead
    of per token; a graph whose outputs match neither is refused at capture.
    """

    def __init__(self, fn: GraphFn, plan: Plan, buffers: StaticBuffers, *,
                 backend: str | Backend = "cpu", graph_inputs: Sequence[str] | None = None,
                 capture: bool = True, session: CaptureSession | None = None,
                 variants: Mapping[str, Sequence[Hashable]] | None = None,
                 before_replay: BeforeReplay | None = None,
                 outputs: OutputRows = "tokens") -> None:
        _check_arguments(fn, plan, buffers, graph_inputs, session, before_replay, outputs)
        self.fn = fn
        self.plan = plan
        self.buffers = buffers
        self.component = buffers.name
        self.backend = _backend_of(backend, session)
        self.session = session
        self.before_replay = before_replay
        self.outputs = outputs
        self.variants = _variants(variants)
        self.default_variant: Variant = tuple(
            (name, values[0]) for name, values in self.variants.items())
        tables = plan.component(self.component).tables
        # the request pool as the planner dispatches this component (its tables'), so the
        # runtime's keys and default request counts are the plan's (core.shape)
        self.max_num_seqs = tables.max_num_seqs
        # the component's own decode width: q for vLLM, SGLang's verify / draft widths
        self.uniform_query_len = tables.uniform_query_len
        # staged buffer -> its host staging copy (`BufferPlan.stages`): a batch's rows and
        # the padding fill are written into the copy, then copied to the buffer the graph
        # reads before each replay (and before an eager run)
        self.staging: Mapping[str, str] = MappingProxyType(_staging(buffers))
        # staged buffer -> slots of its host copy (used in turn: a step writes the next
        # slot, copied before the replay; a turn of the runner is the slots' common period)
        self.slots: Mapping[str, int] = MappingProxyType({
            staged: staging_slots(buffers.spec(host).spec, buffers.spec(staged).spec) or 1
            for staged, host in self.staging.items()})
        self.turns = math.lcm(*self.slots.values()) if self.slots else 1
        self._turn = 0
        # the staged inputs whose host-to-device copy each graph records (a one-slot copy the
        # plan declares pinned: a graph's memcpy node reads a fixed, page-locked address; a
        # backend that records no copies, a pageable or a slotted copy: copied before the
        # replay), and the wait before their host copies are written again
        self.recorded = frozenset(
            staged for staged, host in self.staging.items() if self.slots[staged] == 1
            and buffers.specs[host].pinned and records_copies(self.backend))
        self._retirement = Retirement()
        # the device whose stream the recorded copies run on (fixed: looked up once, not per
        # replay)
        self._recorded_device = (self.buffers[next(iter(self.recorded))].device
                                 if self.recorded else None)
        self._rules: dict[str, RowRule] = _graph_input_rules(plan, buffers, graph_inputs,
                                                             self.staging)
        self.graph_inputs = tuple(self._rules)
        # which inputs may be written (not arange buffers), and along which dim
        self._arange = frozenset(n for n in self._rules if buffers.spec(n).init == "arange")
        self._axis_dim = {n: buffers.spec(n).axis_dim for n in self._rules}
        # per-request outputs need a request count in every key, to slice them back
        self._reads_requests = outputs == "requests" or any(
            r.reads_requests for r in self._rules.values())
        # prepared steps per batch shape (`step`), dropped whenever the graphs change; each
        # carries the runner's `_token` of its time, renewed on every change, so `replay`
        # refuses a step from another runner or from before a release / recapture
        self._prepared: dict[tuple[object, ...], PreparedStep] = {}
        self._token = object()
        # graphs per variant; `_graphs` is the default variant's (the step's usual lookup)
        self._graph_sets: dict[Variant, dict[GraphKey, CapturedGraph]] = {}
        self._variant_fns: dict[Variant, GraphFn] = {}
        self._graphs: dict[GraphKey, CapturedGraph] = {}
        self.capture_stats: CaptureStats | None = None
        self.last_dispatch: Dispatch | None = None
        if session is not None:
            session.add(self)  # captured by session.capture(), with the session's runners
        elif capture:
            self.capture()

    # -- keys ---------------------------------------------------------------------------------

    def key(self, dispatch: Dispatch) -> GraphKey:
        """The static shape a (non-NONE) dispatch replays."""
        reqs = static_requests(dispatch, self.max_num_seqs) if self._reads_requests else None
        return GraphKey(dispatch.padded, reqs)

    def dispatch_keys(self) -> dict[GraphKey, tuple[CUDAGraphMode, ...]]:
        """Every static shape to capture: the plan's graph keys (`Plan.graph_keys`).

        A runner whose inputs read no request buffer needs no request count in its key, so
        keys that differ only there share one graph.
        """
        keys: dict[GraphKey, dict[CUDAGraphMode, None]] = {}
        for key, modes in self.plan.graph_keys(self.component).items():
            own = key if self._reads_requests else GraphKey(key.padded)
            keys.setdefault(own, {}).update(dict.fromkeys(modes))
        return {k: tuple(m) for k, m in keys.items()}

    @property
    def graphs(self) -> Mapping[GraphKey, CapturedGraph]:
        return MappingProxyType(self._graphs)

    # -- capture ------------------------------------------------------------------------------

    def _static(self, key: GraphKey) -> tuple[dict[str, torch.Tensor], dict[str, int]]:
        rows = {name: rule.rows(key.padded, key.num_reqs or 0)
                for name, rule in self._rules.items()}
        for name, n in rows.items():  # a short staging copy fails before any capture too
            if name in self.staging:
                self.buffers.view(self.staging[name], n)
        return {name: self.buffers.view(name, n) for name, n in rows.items()}, rows

    def _written(self, name: str, n: int, turn: int = 0) -> torch.Tensor:
        """The n rows a batch writes for graph input `name`: its host staging copy's when it
        has one (the turn's slot of a slotted copy), else its own (CapacityError when
        short)."""
        view = self.buffers.view(self.staging.get(name, name), n)
        slots = self.slots.get(name, 1)
        return view[turn % slots] if slots > 1 else view

    def _refills(self, rows: Mapping[str, int], turn: int = 0, *,
                 skip: frozenset[str] = frozenset()
                 ) -> tuple[tuple[torch.Tensor, torch.Tensor], ...]:
        """(device rows, host rows) of each staged input (but `skip`), `rows[name]` rows of
        each."""
        return tuple((self.buffers.view(name, rows[name]),
                      self._written(name, rows[name], turn))
                     for name in self._rules if name in self.staging and name not in skip)

    def _fills(self, rows: Mapping[str, int], turn: int) -> tuple[TailFill, ...]:
        """Each filled input's tail, in its host copy (the turn's slot) when staged."""
        return tuple(
            TailFill(name, self._written(name, rows[name], turn),
                     self.buffers.spec(name).axis_dim, self._rules[name],
                     self.buffers.spec(name).fill, rows[name])
            for name in self._rules if self.buffers.spec(name).fill.kind
            is not FillKind.KEEP)

    def capture(self) -> CaptureStats:
        """Capture every dispatchable shape (and variant), largest first, into one pool.

        All static views are taken before the first capture, so an undersized buffer raises
        CapacityError at start-up rather than mid-burst. Each capture runs on a batch of
        padding only (every tail filled from row 0), so side effects of the warm-up and
        capture runs, such as KV-cache writes, see sentinels and not leftover data. In a
        session this recaptures this runner alone; `session.capture()` captures them all.
        Standalone runners skip the gc freeze (a full collection costs ~0.1 s per call).
        """
        session = self.session
        if session is None:
            session = CaptureSession(self.backend, freeze_gc=False)
            session.add(self)
        session.capture([self])
        assert self.capture_stats is not None
        return self.capture_stats

    def release(self) -> None:
        """Drop every captured graph (their memory returns to the pool); `capture()` again
        to recapture."""
        self._graph_sets.clear()
        self._graphs = {}
        self._forget_prepared()
        self.capture_stats = None

    def _variant_fn(self, variant: Variant) -> GraphFn:
        """fn bound to a variant; one object per variant, so a backend that compiles per fn
        (the dynamic compiled backend) compiles each variant once, not once per shape."""
        if not variant:
            return self.fn
        bound = self._variant_fns.get(variant)
        if bound is None:
            bound = self._variant_fns[variant] = functools.partial(self.fn, **dict(variant))
        return bound

    def _capture_jobs(self) -> list[CaptureJob]:
        """Every graph this runner captures, static views taken (CapacityError first)."""
        keys = self.dispatch_keys()
        order = sorted(keys, key=lambda k: (k.padded, k.num_reqs or 0), reverse=True)
        statics = {key: self._static(key) for key in order}
        combos = _combinations(self.variants)
        return [CaptureJob(key, variant, keys[key], *statics[key])
                for key in order for variant in combos]

    def _capture_job(self, job: CaptureJob, *, keep_output: bool) -> None:
        """Capture one graph; check its output rows; hold its outputs weakly unless kept."""
        views, rows = job.views, job.rows
        # a staged input's tail is filled in its host copy, then copied with the real rows
        fills = self._fills(rows, 0)
        refills = self._refills(rows)
        recorded = tuple(functools.partial(_copy_rows, *pair) for pair in self._refills(
            rows, skip=frozenset(self.staging) - self.recorded))
        # capture runs a batch of padding only: its KV writes, say, hit slot -1
        for fill in fills:
            fill_tail(fill.view, fill.axis, 0, fill.policy)
        for device_rows, host_rows in refills:
            _copy_rows(device_rows, host_rows)
        graph = self.backend.capture(
            recording_copies(self._variant_fn(job.variant), recorded), views)
        self._check_output_rows(graph.replay(), job.key)
        if not keep_output:
            weakened = getattr(graph, "weakened", None)
            if callable(weakened):
                graph = weakened()
        fillers: tuple[dict[int, Callable[[], object] | None], ...] = tuple(
            {} for _ in fills)
        # before a replay, the copies the graph does not record (each turn's slot)
        turns: tuple[tuple[tuple[TailFill, ...], tuple[dict[int, Callable[[], object] | None],
                                                        ...],
                           tuple[tuple[torch.Tensor, torch.Tensor], ...]], ...] = tuple(
            (self._fills(rows, t), tuple({} for _ in fills),
             self._refills(rows, t, skip=self.recorded))
            for t in range(1, self.turns))
        captured = CapturedGraph(job.key, job.modes, MappingProxyType(views),
                                 MappingProxyType(rows), fills, graph, fillers,
                                 self._refills(rows, skip=self.recorded), turns)
        graphs = self._graph_sets.setdefault(job.variant, {})
        graphs[job.key] = captured
        if job.variant == self.default_variant:
            self._graphs = graphs
        self._forget_prepared()

    def _captured(self, events: Sequence[CaptureEvent]) -> None:
        """This runner's graphs from a session's capture, as its CaptureStats."""
        self.capture_stats = CaptureStats(len(events), sum(e.seconds for e in events),
                                          tuple(e.key for e in events))

    def _output_rows(self, key: GraphKey) -> int:
        """Rows each output has on dim 0 for a graph: its padded tokens or its requests."""
        if self.outputs == "requests":
            return key.num_reqs if key.num_reqs is not None else min(key.padded,
                                                                    self.max_num_seqs)
        return key.padded

    def _check_output_rows(self, out: Outputs, key: GraphKey) -> None:
        expected = self._output_rows(key)
        items = (out,) if isinstance(out, torch.Tensor) else out
        for t in items:
            if not isinstance(t, torch.Tensor) or t.dim() == 0 or t.shape[0] != expected:
                shape = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
                other = ("one per request: pass outputs='requests'"
                         if self.outputs == "tokens" else "one per token: leave outputs unset")
                raise ConfigError(
                    f"fn output {shape} for graph {key}: expected {expected} rows on dim 0 "
                    f"(one per {self.outputs[:-1]}); if it has {other}; graphfit slices "
                    f"outputs by rows on dim 0 only")

    # -- step ---------------------------------------------------------------------------------

    def dispatch(self, num_tokens: int, *, num_reqs: int | None = None,
                 uniform_decode: bool = False) -> Dispatch:
        """The plan's dispatch for a batch of this component (O(1) table lookup)."""
        return self.plan.pad(num_tokens, uniform_decode=uniform_decode, num_reqs=num_reqs,
                             component=self.component)

    def _rule(self, name: str) -> RowRule:
        rule = self._rules.get(name)
        if rule is None:
            raise BatchError(f"inputs: {name!r} is not a graph input of this runner "
                             f"(inputs: {', '.join(self._rules)})")
        if name in self._arange:
            raise BatchError(f"inputs: {name!r} is an arange buffer, filled once at allocation")
        return rule

    def counts(self, inputs: Mapping[str, torch.Tensor], num_tokens: int | None = None,
               num_reqs: int | None = None, uniform_decode: bool = False) -> tuple[int, int]:
        """(num_tokens, num_reqs) of a batch: given, else read off single-demand inputs.

        Without request information num_reqs is num_tokens // q for uniform decode, else
        min(num_tokens, max_num_seqs); pass it when request rows were written in place.
        """
        _check_inputs(inputs)
        for label, value in (("num_tokens", num_tokens), ("num_reqs", num_reqs)):
            if value is not None and (type(value) is not int or value < 0):
                raise BatchError(f"{label}: must be an integer >= 0, got {excerpt(value)}")
        found = {"tokens": num_tokens, "requests": num_reqs}
        for name, tensor in inputs.items():
            single = self._rule(name).single
            if single is None:
                continue
            kind, offset = single
            axis = self._axis_dim[name]
            if tensor.dim() <= axis:
                raise BatchError(f"inputs: {name} has {tensor.dim()} dims, needs > {axis}")
            count = tensor.shape[axis] - offset
            known = found[kind]
            if known is None:
                found[kind] = count
            elif known != count:
                raise BatchError(f"inputs: {name} has {tensor.shape[axis]} rows, i.e. {count} "
                                 f"{kind}, but the batch has {known}")
        tokens, reqs = found["tokens"], found["requests"]
        if tokens is None:
            raise BatchError("num_tokens: pass it, or an input on the tokens axis")
        if reqs is None:
            reqs = real_requests(tokens, uniform=uniform_decode, width=self.uniform_query_len,
                                 max_num_seqs=self.max_num_seqs)
        return tokens, reqs

    def step(self, inputs: Mapping[str, torch.Tensor] | None = None, *,
             num_tokens: int | None = None, num_reqs: int | None = None,
             uniform_decode: bool = False, dispatch: Dispatch | None = None,
             eager: bool = False, variant: Mapping[str, Hashable] | None = None) -> Outputs:
        """Run one batch: `prepare` it, then `replay` it; returns fn's outputs sliced to the
        real `num_tokens` rows (or `num_reqs` rows with `outputs="requests"`).

        `inputs` maps buffer names to their real rows. Graph inputs not in `inputs` are taken
        as already written in place (via `buffers.view(name, n)`); their tails are filled too.
        `dispatch` overrides the plan's (e.g. after `sync_dp_padding`); `eager=True` runs fn
        unpadded, bypassing graphs (the reference path). `variant` picks the graphs of a
        variant (see the class docstring). With the CUDA backend the outputs are the
        graph's static tensors: consume them before the next step.

        A batch shaped like one seen before (same names, shapes, dtypes, devices, counts,
        dispatch, eagerness and variant) reuses what was prepared for it: every check was
        made then and holds for the same shapes, so a step is the copies, fills and replay.
        """
        inputs = inputs if inputs is not None else {}
        turn = self._turn
        self._turn = (turn + 1) % self.turns  # slotted staging copies: the next slot each
        try:
            key: tuple[object, ...] | None = (turn,
                num_tokens, type(num_tokens), num_reqs, type(num_reqs), uniform_decode,
                dispatch, eager, None if variant is None else tuple(
                    (k, v, type(v)) for k, v in variant.items()),  # 1 != True
                tuple(inputs), tuple(map(_SHAPE, inputs.values())))
            prepared = self._prepared.get(key)  # type: ignore[arg-type]
        except (AttributeError, TypeError):  # not tensors, unhashable values: prepare names it
            key, prepared = None, None
        if prepared is None:
            prepared = self.prepare(inputs, num_tokens=num_tokens, num_reqs=num_reqs,
                                    uniform_decode=uniform_decode, dispatch=dispatch,
                                    eager=eager, variant=variant, turn=turn)
            if key is not None:
                if len(self._prepared) >= _PREPARED_LIMIT:
                    self._prepared.clear()
                self._prepared[key] = prepared
        self.last_dispatch = prepared.dispatch
        return self._run(prepared, inputs)

    def prepare(self, inputs: Mapping[str, torch.Tensor] | None = None, *,
                num_tokens: int | None = None, num_reqs: int | None = None,
                uniform_decode: bool = False, dispatch: Dispatch | None = None,
                eager: bool = False, variant: Mapping[str, Hashable] | None = None,
                turn: int = 0) -> PreparedStep:
        """Check a batch and fix how it runs, without running it (`step`'s arguments;
        `turn`: which slot of each slotted host staging copy the batch is written in, turn
        modulo its slots; `step` moves to the next turn every call).

        The one place a batch is validated: counts, each input's destination view (a batch
        past a buffer is a CapacityError, before the dispatch), shapes, dtypes, devices, the
        dispatch and its graph, and every tail's rows. The result is frozen and replays any
        batch of the same names, shapes, dtypes and devices (`replay`), until the graphs
        are released or recaptured.
        """
        inputs = inputs if inputs is not None else {}
        if dispatch is not None and not isinstance(dispatch, Dispatch):
            raise BatchError(f"dispatch: expected a Dispatch, got {excerpt(dispatch)}")
        variant_key, graphs = self._variant_graphs(variant)
        n, r = self._batch_counts(inputs, num_tokens, num_reqs, uniform_decode)
        if type(turn) is not int or not 0 <= turn < self.turns:
            raise BatchError(f"turn: expected 0..{self.turns - 1}, got {excerpt(turn)}")
        destinations = self._destinations(inputs, n, r, turn)
        if dispatch is None:  # after the views: a batch past a buffer is a CapacityError
            dispatch = self.dispatch(n, num_reqs=r, uniform_decode=uniform_decode)
        keep = r if self.outputs == "requests" else n
        if eager or dispatch.mode is CUDAGraphMode.NONE:
            real = {name: rule.rows(n, r) for name, rule in self._rules.items()}
            views = {name: self.buffers.view(name, rows) for name, rows in real.items()}
            eager_run = functools.partial(_eager, self._variant_fn(variant_key), views)
            return self._prepared_step(dispatch, None, variant_key, n, r, inputs, destinations,
                                       _refill_steps(self._refills(real, turn)), eager_run, keep,
                                       keep)
        graph = self._graph_for(graphs, dispatch, n)
        for name, dst in zip(inputs, destinations):
            if dst.shape[self._axis_dim[name]] > graph.static_rows[name]:
                raise BatchError(f"inputs: {name} has more real rows than the graph for "
                                 f"{graph.key} holds ({graph.static_rows[name]})")
        run: Callable[[], Outputs] = graph.graph.replay
        if self.before_replay is not None:
            run = _hooked(self.before_replay, run, graph.key, n, r)
        fills = (*_tail_fills(graph, n, r, turn), *_refill_steps(
            graph.turns[turn - 1][2] if turn else graph.refills))
        return self._prepared_step(dispatch, graph.key, variant_key, n, r, inputs, destinations,
                                   fills, run, self._output_rows(graph.key), keep)

    def replay(self, prepared: PreparedStep,
               inputs: Mapping[str, torch.Tensor] | None = None) -> Outputs:
        """Run a prepared batch: copy `inputs` in, fill the tails, replay (or run fn eagerly),
        slice. `inputs` must have the prepared names, shapes, dtypes and devices; their
        values may differ (that is the point: prepare once per shape, replay every step)."""
        if not isinstance(prepared, PreparedStep):
            raise BatchError(f"prepared: expected a PreparedStep, got "
                             f"{type(prepared).__name__}")
        inputs = inputs if inputs is not None else {}
        _check_inputs(inputs)
        if prepared.token is not self._token:
            raise BatchError("prepared: prepared by another runner, or before this runner's "
                             "graphs were released or recaptured; prepare the batch again")
        if tuple(inputs) != prepared.inputs or tuple(
                map(_SHAPE, inputs.values())) != prepared.input_shapes:
            raise BatchError(f"inputs: not the prepared batch's names, shapes, dtypes and "
                             f"devices (prepared: {', '.join(prepared.inputs) or 'none'}); "
                             f"prepare this batch")
        self.last_dispatch = prepared.dispatch
        return self._run(prepared, inputs)

    def _run(self, prepared: PreparedStep, inputs: Mapping[str, torch.Tensor]) -> Outputs:
        if self.recorded:  # the last replay's recorded copies have read the host copies
            self._retirement.wait()
        if torch.is_grad_enabled():
            with torch.no_grad():
                out = _execute(prepared, inputs)
        else:
            out = _execute(prepared, inputs)
        if self._recorded_device is not None and prepared.key is not None:
            self._retirement.replayed(self._recorded_device)
        return out

    def _prepared_step(self, dispatch: Dispatch, key: GraphKey | None, variant: Variant,
                       n: int, r: int, inputs: Mapping[str, torch.Tensor],
                       destinations: tuple[torch.Tensor, ...],
                       fills: tuple[Callable[[], object], ...], run: Callable[[], Outputs],
                       rows: int, keep: int) -> PreparedStep:
        return PreparedStep(dispatch, key, variant, n, r, tuple(inputs),
                            tuple(map(_SHAPE, inputs.values())), destinations, fills, run,
                            rows, keep, self._token)

    def _batch_counts(self, inputs: Mapping[str, torch.Tensor], num_tokens: int | None,
                      num_reqs: int | None, uniform_decode: bool) -> tuple[int, int]:
        """`counts`, and a batch has at least one token."""
        n, r = self.counts(inputs, num_tokens, num_reqs, uniform_decode)
        if type(n) is not int or n < 1:
            raise BatchError(f"num_tokens: must be an integer >= 1, got {excerpt(n)}")
        if type(r) is not int or r < 0:
            raise BatchError(f"num_reqs: must be an integer >= 0, got {excerpt(r)}")
        return n, r

    def _destinations(self, inputs: Mapping[str, torch.Tensor], n: int, r: int,
                      turn: int = 0) -> tuple[torch.Tensor, ...]:
        """Each input's destination view, in the order of `inputs`, checked against it."""
        dsts: list[torch.Tensor] = []
        for name, tensor in inputs.items():
            dst = self._written(name, self._rule(name).rows(n, r), turn)  # CapacityError 1st
            if dst.shape != tensor.shape:
                raise BatchError(f"inputs: {name} has shape {tuple(tensor.shape)}, "
                                 f"expected {tuple(dst.shape)}")
            if dst.dtype != tensor.dtype:
                raise BatchError(f"inputs: {name} is {tensor.dtype}, its buffer is {dst.dtype} "
                                 "(graphfit never converts: cast it, checking the values fit)")
            if dst.device != tensor.device:  # a meta tensor has no data; no hidden transfers
                raise BatchError(f"inputs: {name} is on {tensor.device}, its buffer on "
                                 f"{dst.device} (graphfit never moves inputs: .to() it)")
            dsts.append(dst)
        return tuple(dsts)

    def _graph_for(self, graphs: Mapping[GraphKey, CapturedGraph], dispatch: Dispatch,
                   n: int) -> CapturedGraph:
        """The captured graph a (non-NONE) dispatch of n tokens replays."""
        if dispatch.padded < n:
            raise BatchError(f"dispatch: padded {dispatch.padded} < num_tokens {n}")
        key = self.key(dispatch)
        graph = graphs.get(key)
        if graph is None:
            self._static(key)  # CapacityError if the buffers cannot hold this shape
            raise BatchError(f"dispatch: no graph captured for {key} ({dispatch}); no "
                             f"reachable batch of this component replays it")
        return graph

    def _forget_prepared(self) -> None:
        """The graphs changed: no prepared step replays any more."""
        self._prepared.clear()
        self._token = object()

    def _variant_graphs(self, variant: Mapping[str, Hashable] | None
                        ) -> tuple[Variant, Mapping[GraphKey, CapturedGraph]]:
        """A step's variant (default: the first value of each dimension) and its graphs."""
        if variant is None:
            return self.default_variant, self._graphs
        if not isinstance(variant, Mapping) or set(variant) != set(self.variants):
            raise BatchError(f"variant: expected a value for each of "
                             f"{sorted(self.variants) or 'no dimensions'}, got {excerpt(variant)}")
        chosen: list[tuple[str, Hashable]] = []
        for name, values in self.variants.items():
            value = variant[name]
            if not any(value == v and type(value) is type(v) for v in values):
                raise BatchError(f"variant: {name}={excerpt(value)} is not one of "
                                 f"{excerpt(values)}")
            chosen.append((name, value))
        key = tuple(chosen)
        return key, self._graph_sets.get(key, {})


@dataclass(frozen=True, slots=True, eq=False)
class PreparedStep:
    """A checked batch shape and how it runs (`GraphRunner.prepare`), replayed by `replay`.

    `key` is the graph it replays (None: fn runs eagerly on the real rows, as for NONE or
    `eager=True`); `num_tokens`/`num_reqs` the real counts; `inputs`/`input_shapes` the
    batch it was prepared for (names in order; shape, dtype, device each). The rest is what a
    replay does: copy each input into its `destinations` view, call each `fills` (the padded
    tails), `run`, and keep `keep` of the `rows` rows every output has on dim 0.
    """

    dispatch: Dispatch
    key: GraphKey | None
    variant: Variant
    num_tokens: int
    num_reqs: int
    inputs: tuple[str, ...]
    input_shapes: tuple[tuple[object, ...], ...] = field(repr=False)
    destinations: tuple[torch.Tensor, ...] = field(repr=False)
    fills: tuple[Callable[[], object], ...] = field(repr=False)
    run: Callable[[], Outputs] = field(repr=False)
    rows: int
    keep: int
    token: object = field(repr=False)  # the preparing runner's, at the time


def _check_arguments(fn: object, plan: object, buffers: object, graph_inputs: object,
                     session: object, before_replay: object, outputs: object) -> None:
    """ConfigError for a runner's arguments that are not what they claim to be."""
    if not callable(fn):
        raise ConfigError(f"fn: expected a callable, got {type(fn).__name__}")
    if not isinstance(plan, Plan):
        raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
    if not isinstance(buffers, StaticBuffers):
        raise ConfigError(f"buffers: expected StaticBuffers, got {type(buffers).__name__}")
    if graph_inputs is not None and (isinstance(graph_inputs, str) or not all(
            isinstance(name, str) for name in graph_inputs)):  # type: ignore[attr-defined]
        raise ConfigError(f"graph_inputs: expected buffer names, got {excerpt(graph_inputs)}")
    if buffers.plan.config != plan.config:
        raise ConfigError("buffers: allocated from a different plan than the runner's")
    if session is not None and not isinstance(session, CaptureSession):
        raise ConfigError(f"session: expected a CaptureSession, got {type(session).__name__}")
    if before_replay is not None and not callable(before_replay):
        raise ConfigError(f"before_replay: expected a callable, got "
                          f"{type(before_replay).__name__}")
    if outputs not in ("tokens", "requests"):
        raise ConfigError(f"outputs: expected 'tokens' or 'requests', got {excerpt(outputs)}")


def _backend_of(backend: str | Backend, session: CaptureSession | None) -> Backend:
    """The runner's backend: the session's (one pool), else the one named or given."""
    if session is None:
        return get_backend(backend)
    if not isinstance(backend, str) and backend is not session.backend:
        raise ConfigError("backend: a runner in a session captures with the session's "
                          "backend (one pool); leave backend unset")
    return session.backend


def _staging(buffers: StaticBuffers) -> dict[str, str]:
    """Staged buffer -> its host staging copy, of the staged buffer's own shape or slots of
    it (the planner checked the pairs; refused here when neither)."""
    out = {}
    for name, spec in buffers.specs.items():
        if spec.stages:
            if staging_slots(spec.spec, buffers.spec(spec.stages).spec) is None:
                raise ConfigError(f"{spec.key}: a staging copy has {spec.stages}'s shape or "
                                  f"(slots, *its shape)")
            out[spec.stages] = name
    return out


def _graph_input_rules(plan: Plan, buffers: StaticBuffers,
                       graph_inputs: Sequence[str] | None,
                       staging: Mapping[str, str]) -> dict[str, RowRule]:
    """Each graph input's row rule (default: every buffer a graph can read, which is not a
    host staging copy: the graph reads the buffer the copy stages)."""
    component = plan.component(buffers.name)
    copies = {host: staged for staged, host in staging.items()}
    rules = {name: component.row_rule(name) for name in buffers.specs}
    if graph_inputs is None:
        graph_inputs = [name for name, rule in rules.items()
                        if rule is not None and name not in copies]
    out: dict[str, RowRule] = {}
    for name in graph_inputs:
        buffers.spec(name)  # UnknownBufferError names the known buffers
        if name in copies:
            raise ConfigError(f"graph_inputs: {buffers.spec(name).key} is the host staging "
                              f"copy of {copies[name]}; the graph reads {copies[name]}")
        rule = rules[name]
        if rule is None:
            raise ConfigError(
                f"graph_inputs: {buffers.spec(name).key} is fed only by never-padded "
                f"streams, so no graph can bake in its rows; use it outside the graph")
        out[name] = rule
    return out


def _tail_fills(graph: CapturedGraph, n: int, r: int, turn: int = 0
                ) -> tuple[Callable[[], object], ...]:
    """The prepared fills of a graph's padded tails for a batch of n tokens, r requests
    (`fill.tail_filler`, kept on the graph per turn and real row count and reused)."""
    fills: list[Callable[[], object]] = []
    these, their_fillers = ((graph.fills, graph.tail_fillers) if not turn
                            else graph.turns[turn - 1][:2])
    for fill, fillers in zip(these, their_fillers):
        real = fill.rule.rows(n, r)
        if real > fill.static_rows:
            raise BatchError(f"batch: {fill.name} needs {real} rows, the graph for "
                             f"{graph.key} holds {fill.static_rows}")
        if real in fillers:
            filler = fillers[real]
        else:
            filler = fillers[real] = tail_filler(fill.view, fill.axis, real, fill.policy)
        if filler is not None:
            fills.append(filler)
    return tuple(fills)


def _copy_rows(device_rows: torch.Tensor, host_rows: torch.Tensor) -> None:
    """The host-to-device copy of a staged input's rows, before a replay or an eager run."""
    device_rows.copy_(host_rows)


def _refill_steps(refills: Sequence[tuple[torch.Tensor, torch.Tensor]]
                  ) -> tuple[Callable[[], object], ...]:
    """Each staged input's copy as a step run after the tail fills."""
    return tuple(functools.partial(_copy_rows, device_rows, host_rows)
                 for device_rows, host_rows in refills)


def _check_inputs(inputs: object) -> None:
    """BatchError unless `inputs` maps buffer names to tensors."""
    if not isinstance(inputs, Mapping):
        raise BatchError(f"inputs: expected a mapping of buffer name -> tensor, got "
                         f"{type(inputs).__name__}")
    for name, tensor in inputs.items():
        if not isinstance(name, str):
            raise BatchError(f"inputs: buffer names are strings, got {excerpt(name)}")
        if not isinstance(tensor, torch.Tensor):
            raise BatchError(f"inputs: {brief(name)} must be a tensor, got "
                             f"{type(tensor).__name__}")


def _execute(prepared: PreparedStep, inputs: Mapping[str, torch.Tensor]) -> Outputs:
    """A prepared step: copy the inputs in, fill the tails, run, slice."""
    for dst, tensor in zip(prepared.destinations, inputs.values()):
        dst.copy_(tensor)
    for filler in prepared.fills:
        filler()
    return _sliced(prepared.run(), prepared.rows, prepared.keep)


def _eager(fn: GraphFn, views: Mapping[str, torch.Tensor]) -> Outputs:
    """fn on the real rows, with a fresh dict of views per call (fn may edit its dict)."""
    return fn(dict(views))


def _hooked(hook: BeforeReplay, replay: Callable[[], Outputs], key: GraphKey, n: int,
            r: int) -> Callable[[], Outputs]:
    """`replay` with the before-replay hook run first (after the copies and fills)."""
    def run() -> Outputs:
        hook(key, n, r)
        return replay()
    return run


def _variants(variants: object) -> dict[str, tuple[Hashable, ...]]:
    """Graph-key dimensions beyond the shape: name -> its distinct values (ConfigError)."""
    if variants is None:
        return {}
    if not isinstance(variants, Mapping):
        raise ConfigError(f"variants: expected a mapping of name -> values, got "
                          f"{type(variants).__name__}")
    out: dict[str, tuple[Hashable, ...]] = {}
    for name, values in variants.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"variants: names are identifiers (fn's keyword arguments), "
                              f"got {excerpt(name)}")
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ConfigError(f"variants: {name} needs a non-empty sequence of values, got "
                              f"{excerpt(values)}")
        try:
            if len(set(values)) != len(values):
                raise ConfigError(f"variants: {name} repeats a value: {excerpt(values)}")
        except TypeError:
            raise ConfigError(f"variants: {name}'s values must be hashable") from None
        out[name] = tuple(values)
    return out


def _combinations(variants: Mapping[str, tuple[Hashable, ...]]) -> list[Variant]:
    """Every variant, in declaration order (the first is the default)."""
    combos: list[Variant] = [()]
    for name, values in variants.items():
        combos = [(*c, (name, v)) for c in combos for v in values]
    return combos


_PREPARED_LIMIT = 4096  # batch shapes a runner keeps prepared (cleared when full)
_SHAPE = attrgetter("shape", "dtype", "device")  # a prepared step is keyed by all three


def _sliced(out: Outputs, rows: int, n: int) -> Outputs:
    """Check every output has `rows` rows on dim 0 and keep the first n."""
    if type(out) is torch.Tensor and out.dim() and out.shape[0] == rows:  # the usual case
        return out if rows == n else out[:n]
    items = (out,) if isinstance(out, torch.Tensor) else out
    for t in items:
        if not isinstance(t, torch.Tensor) or t.dim() == 0 or t.shape[0] != rows:
            shape = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise GraphfitError(f"fn output {shape}: expected {rows} rows (one per token, or per "
                                f"request with outputs='requests') on dim 0")
    if rows == n:
        return out
    if isinstance(out, torch.Tensor):
        return out[:n]
    return tuple(t[:n] for t in out)
