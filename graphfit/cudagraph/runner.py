"""`GraphRunner`: capture one graph per static shape, then dispatch, fill, replay, slice.

Per step the runner (1) dispatches the batch through the plan's table (`Plan.pad`), (2) copies
the real rows of `inputs` into the static buffers, (3) fills every graph input's padded tail
`[real, static)` per its fill policy, so nothing from an earlier batch reaches the graph,
(4) replays, and (5) slices the outputs back to the real tokens. Batches the plan sends to
NONE (above the largest capture size) run `fn` eagerly on unpadded views instead.

Rows per buffer (see `rows.py`): buffers on padded token streams get `num_tokens` real rows
padded to `Dispatch.padded`; request-axis buffers get `num_reqs` real rows padded to the key's
request count (`Dispatch.num_reqs`, or min(padded, max_num_seqs) for PIECEWISE keys, which
carry none); demand offsets (query_start_loc's +1) are added to both. Buffers fed only by the
never-padded context stream are not graph inputs: write and read them outside the graph.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType

import torch

from graphfit.cudagraph.backends import Backend, Graph, GraphFn, Outputs, get_backend
from graphfit.cudagraph.buffers import StaticBuffers
from graphfit.cudagraph.fill import fill_tail, tail_filler
from graphfit.planner.core.buffers import FillKind, FillPolicy
from graphfit.planner.core.dispatch import Dispatch, GraphKey, static_requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import BatchError, ConfigError, GraphfitError, brief, excerpt
from graphfit.planner.core.rows import RowRule
from graphfit.planner.core.shape import real_requests
from graphfit.planner.plan import Plan


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


@dataclass(frozen=True)
class CaptureStats:
    graphs: int
    seconds: float
    order: tuple[GraphKey, ...]  # capture order: largest first


class GraphRunner:
    """Replays `fn` as static-shape graphs over a plan's buffers.

    `fn(views)` gets a dict of buffer name -> view (the padded static rows of the captured
    shape, or the real rows when run eagerly) and returns a tensor or tuple of tensors with
    one row per token on dim 0. It must not keep references to `views` across calls or
    depend on anything but their contents (it is captured once per shape).

    `graph_inputs` names the buffers fn reads (default: every buffer a graph can read).
    """

    def __init__(self, fn: GraphFn, plan: Plan, buffers: StaticBuffers, *,
                 backend: str | Backend = "cpu", graph_inputs: Sequence[str] | None = None,
                 capture: bool = True) -> None:
        if not callable(fn):
            raise ConfigError(f"fn: expected a callable, got {type(fn).__name__}")
        if not isinstance(plan, Plan):
            raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
        if not isinstance(buffers, StaticBuffers):
            raise ConfigError(f"buffers: expected StaticBuffers, got {type(buffers).__name__}")
        if graph_inputs is not None and (isinstance(graph_inputs, str) or not all(
                isinstance(name, str) for name in graph_inputs)):
            raise ConfigError(f"graph_inputs: expected buffer names, got "
                              f"{excerpt(graph_inputs)}")
        if buffers.plan.config != plan.config:
            raise ConfigError("buffers: allocated from a different plan than the runner's")
        self.fn = fn
        self.plan = plan
        self.buffers = buffers
        self.component = buffers.name
        self.backend = get_backend(backend)
        # the request pool as the planner dispatches this component (its tables'), so the
        # runtime's keys and default request counts are the plan's (core.shape)
        self.max_num_seqs = plan.component(buffers.name).tables.max_num_seqs
        # the component's own decode width: q for vLLM, SGLang's verify / draft widths
        self.uniform_query_len = plan.component(self.component).tables.uniform_query_len
        plan_component = plan.component(self.component)
        rules = {name: plan_component.row_rule(name) for name in buffers.specs}
        if graph_inputs is None:
            graph_inputs = [name for name, rule in rules.items() if rule is not None]
        self._rules: dict[str, RowRule] = {}
        for name in graph_inputs:
            buffers.spec(name)  # UnknownBufferError names the known buffers
            rule = rules[name]
            if rule is None:
                raise ConfigError(
                    f"graph_inputs: {buffers.spec(name).key} is fed only by never-padded "
                    f"streams, so no graph can bake in its rows; use it outside the graph")
            self._rules[name] = rule
        self.graph_inputs = tuple(self._rules)
        # per-step lookups, resolved once: which inputs may be written, and along which dim
        self._arange = frozenset(n for n in self._rules if buffers.spec(n).init == "arange")
        self._axis_dim = {n: buffers.spec(n).axis_dim for n in self._rules}
        self._reads_requests = any(r.reads_requests for r in self._rules.values())
        # the step's hot path (see `_prepare`): the component's lookup, per writable input
        # which count it carries (-1 none, 0 tokens, 1 requests), that demand's offset and
        # its axis; views per row count and prepared batch shapes, built on first use
        self._lookup = plan_component.tables.lookup
        self._inputs: dict[str, tuple[int, int, int]] = {}
        for name, rule in self._rules.items():
            if name not in self._arange:
                single = rule.single
                kind = -1 if single is None else (0 if single[0] == "tokens" else 1)
                self._inputs[name] = (kind, single[1] if single else 0, self._axis_dim[name])
        self._views: dict[str, dict[int, torch.Tensor]] = {name: {} for name in self._inputs}
        self._prepared: dict[tuple[object, ...], _Prepared] = {}
        self._graphs: dict[GraphKey, CapturedGraph] = {}
        self.capture_stats: CaptureStats | None = None
        self.last_dispatch: Dispatch | None = None
        if capture:
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
        return {name: self.buffers.view(name, n) for name, n in rows.items()}, rows

    def capture(self) -> CaptureStats:
        """Capture every dispatchable shape, largest first (one pool: small graphs reuse it).

        All static views are taken before the first capture, so an undersized buffer raises
        CapacityError at start-up rather than mid-burst. Each capture runs on a batch of
        padding only (every tail filled from row 0), so side effects of the warm-up and
        capture runs, such as KV-cache writes, see sentinels and not leftover data.
        """
        keys = self.dispatch_keys()
        order = sorted(keys, key=lambda k: (k.padded, k.num_reqs or 0), reverse=True)
        statics = {key: self._static(key) for key in order}
        start = time.perf_counter()
        with torch.no_grad():
            for key in order:
                views, rows = statics[key]
                fills = tuple(
                    TailFill(name, views[name], self.buffers.spec(name).axis_dim,
                             self._rules[name], self.buffers.spec(name).fill, rows[name])
                    for name in self._rules if self.buffers.spec(name).fill.kind
                    is not FillKind.KEEP)
                # capture runs a batch of padding only: its KV writes, say, hit slot -1
                for fill in fills:
                    fill_tail(fill.view, fill.axis, 0, fill.policy)
                graph = self.backend.capture(self.fn, views)
                fillers: tuple[dict[int, Callable[[], object] | None], ...] = tuple(
                    {} for _ in fills)
                self._graphs[key] = CapturedGraph(
                    key, keys[key], MappingProxyType(views), MappingProxyType(rows), fills,
                    graph, fillers)
        self._prepared.clear()
        self.capture_stats = CaptureStats(len(order), time.perf_counter() - start,
                                          tuple(order))
        return self.capture_stats

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
             eager: bool = False) -> Outputs:
        """Run one batch; returns fn's outputs sliced to the real `num_tokens` rows.

        `inputs` maps buffer names to their real rows. Graph inputs not in `inputs` are taken
        as already written in place (via `buffers.view(name, n)`); their tails are filled too.
        `dispatch` overrides the plan's (e.g. after `sync_dp_padding`); `eager=True` runs fn
        unpadded, bypassing graphs (the reference path). With the CUDA backend the outputs
        are the graph's static tensors: consume them before the next step.
        """
        inputs = inputs if inputs is not None else {}
        if dispatch is None and not eager:
            # the hot path: a batch shaped like one seen before replays what was prepared
            # for it (`_prepare`): every check was made then, and holds for the same shapes
            try:
                shape_key = (num_tokens, num_reqs, uniform_decode, tuple(inputs),
                             tuple(map(_SHAPE, inputs.values())))
                prepared = self._prepared.get(shape_key)
            except (AttributeError, TypeError):  # not tensors, unhashable counts: checked below
                shape_key, prepared = None, None
            if prepared is None and shape_key is not None:
                prepared = self._prepare(inputs, num_tokens, num_reqs, uniform_decode)
                if prepared is not None:
                    if len(self._prepared) >= _PREPARED_LIMIT:
                        self._prepared.clear()
                    self._prepared[shape_key] = prepared
            if prepared is not None:
                self.last_dispatch = prepared[0]
                if torch.is_grad_enabled():
                    with torch.no_grad():
                        return _replay(prepared, inputs)
                return _replay(prepared, inputs)
        if dispatch is not None and not isinstance(dispatch, Dispatch):
            raise BatchError(f"dispatch: expected a Dispatch, got {excerpt(dispatch)}")
        n, r = self.counts(inputs, num_tokens, num_reqs, uniform_decode)
        if type(n) is not int or n < 1:
            raise BatchError(f"num_tokens: must be an integer >= 1, got {excerpt(n)}")
        if type(r) is not int or r < 0:
            raise BatchError(f"num_reqs: must be an integer >= 0, got {excerpt(r)}")
        writes: list[tuple[str, torch.Tensor, torch.Tensor]] = []
        for name, tensor in inputs.items():
            dst = self.buffers.view(name, self._rule(name).rows(n, r))  # CapacityError first
            if dst.shape != tensor.shape:
                raise BatchError(f"inputs: {name} has shape {tuple(tensor.shape)}, "
                                 f"expected {tuple(dst.shape)}")
            if dst.dtype != tensor.dtype:
                raise BatchError(f"inputs: {name} is {tensor.dtype}, its buffer is {dst.dtype} "
                                 "(graphfit never converts: cast it, checking the values fit)")
            if dst.device != tensor.device:  # a meta tensor has no data; no hidden transfers
                raise BatchError(f"inputs: {name} is on {tensor.device}, its buffer on "
                                 f"{dst.device} (graphfit never moves inputs: .to() it)")
            writes.append((name, dst, tensor))
        if dispatch is None:  # after the views: a batch past a buffer is a CapacityError
            dispatch = self.dispatch(n, num_reqs=r, uniform_decode=uniform_decode)
        self.last_dispatch = dispatch
        graph: CapturedGraph | None = None
        if not eager and dispatch.mode is not CUDAGraphMode.NONE:
            if dispatch.padded < n:
                raise BatchError(f"dispatch: padded {dispatch.padded} < num_tokens {n}")
            key = self.key(dispatch)
            graph = self._graphs.get(key)
            if graph is None:
                self._static(key)  # CapacityError if the buffers cannot hold this shape
                raise BatchError(f"dispatch: no graph captured for {key} ({dispatch}); no "
                                 f"reachable batch of this component replays it")
            for name, dst, _ in writes:
                static = graph.static_rows[name]
                if dst.shape[self._axis_dim[name]] > static:
                    raise BatchError(f"inputs: {name} has more real rows than the graph for "
                                     f"{graph.key} holds ({static})")
        if graph is None:
            views = {name: self.buffers.view(name, rule.rows(n, r))
                     for name, rule in self._rules.items()}
            with torch.no_grad():
                for _, dst, tensor in writes:
                    dst.copy_(tensor)
                return _sliced(self.fn(views), n, n)
        tails: list[tuple[TailFill, int]] = []
        for fill in graph.fills:
            real = fill.rule.rows(n, r)
            if real > fill.static_rows:
                raise BatchError(f"batch: {fill.name} needs {real} rows, the graph for "
                                 f"{graph.key} holds {fill.static_rows}")
            tails.append((fill, real))
        with torch.no_grad():
            for _, dst, tensor in writes:
                dst.copy_(tensor)
            for fill, real in tails:
                fill_tail(fill.view, fill.axis, real, fill.policy)
            return _sliced(graph.graph.replay(), dispatch.padded, n)


    def _prepare(self, inputs: Mapping[str, torch.Tensor], n: int | None, r: int | None,
                 uniform: bool) -> _Prepared | None:
        """What `step` needs to replay a batch shaped like `inputs`, checked once; None when
        the batch runs eagerly or has an error to report (`step`'s general path then runs or
        raises): the dispatch, the graph's replay, each input's destination view (in the
        order of `inputs`), the tail fills and the real token count."""
        specs = self._inputs
        if (n is not None and type(n) is not int) or (r is not None and type(r) is not int):
            return None  # `step`'s general path names the problem
        try:
            for name, tensor in inputs.items():
                kind, offset, axis = specs[name]
                if kind < 0:
                    continue
                count = tensor.shape[axis] - offset
                if kind:
                    if r is None:
                        r = count
                    elif r != count:
                        return None
                elif n is None:
                    n = count
                elif n != count:
                    return None
        except (KeyError, IndexError):
            return None
        if n is None:
            return None
        if r is None:
            r = real_requests(n, uniform=uniform, width=self.uniform_query_len,
                              max_num_seqs=self.max_num_seqs)
        try:
            d = self._lookup(n, uniform_decode=uniform, num_reqs=r)
        except GraphfitError:
            return None
        if d.mode is CUDAGraphMode.NONE or d.padded < n:
            return None
        graph = self._graphs.get(self.key(d))
        if graph is None:
            return None
        dsts: list[torch.Tensor] = []
        for name, tensor in inputs.items():
            rows = self._rules[name].rows(n, r)
            if rows > self.buffers.capacity(name) or rows > graph.static_rows[name]:
                return None
            views = self._views[name]
            dst = views.get(rows)
            if dst is None:
                dst = views[rows] = self.buffers.view(name, rows)
            if dst.shape != tensor.shape or dst.dtype != tensor.dtype or (
                    dst.device != tensor.device):
                return None
            dsts.append(dst)
        fills: list[Callable[[], object]] = []
        for fill, fillers in zip(graph.fills, graph.tail_fillers):
            real = fill.rule.rows(n, r)
            if real > fill.static_rows:
                return None
            if real in fillers:
                filler = fillers[real]
            else:
                filler = fillers[real] = tail_filler(fill.view, fill.axis, real, fill.policy)
            if filler is not None:
                fills.append(filler)
        return d, graph.graph.replay, tuple(dsts), tuple(fills), n


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


def _replay(prepared: _Prepared, inputs: Mapping[str, torch.Tensor]) -> Outputs:
    """A prepared graph step: copy the inputs in, fill the tails, replay, slice."""
    d, replay, dsts, fills, n = prepared
    for dst, tensor in zip(dsts, inputs.values()):
        dst.copy_(tensor)
    for filler in fills:
        filler()
    return _sliced(replay(), d.padded, n)


_PREPARED_LIMIT = 4096  # batch shapes a runner keeps prepared (cleared when full)
_SHAPE = attrgetter("shape", "dtype", "device")  # a prepared step is keyed by all three
# a prepared graph step: dispatch, replay, destination view per input, tail fills, real tokens
_Prepared = tuple[Dispatch, Callable[[], Outputs], tuple[torch.Tensor, ...],
                  tuple[Callable[[], object], ...], int]


def _sliced(out: Outputs, rows: int, n: int) -> Outputs:
    """Check every output has `rows` rows on dim 0 and keep the first n."""
    if type(out) is torch.Tensor and out.dim() and out.shape[0] == rows:  # the usual case
        return out if rows == n else out[:n]
    items = (out,) if isinstance(out, torch.Tensor) else out
    for t in items:
        if not isinstance(t, torch.Tensor) or t.dim() == 0 or t.shape[0] != rows:
            shape = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise GraphfitError(f"fn output {shape}: expected {rows} rows (one per token) on dim 0")
    if rows == n:
        return out
    if isinstance(out, torch.Tensor):
        return out[:n]
    return tuple(t[:n] for t in out)
