"""`plan(config)`: the shared path that turns any engine's model into a sized, proven plan.

The engine's model (picked by the registry) supplies ladders, and per component its dispatch
tables, buffer catalogue and reachable batch families. Everything else is done here the same
way for every engine: each capacity is the peak of the one row rule over the reachable
batches (`core.verify.peak_rows`), the arena layout is `core.layout.lay_out`, the proof is
`core.verify.check_component`, and the graphs a runtime captures are `core.reach.graph_keys`.

Two row counts per buffer: `capacity` is what graphfit's own runtime needs (the batches it
runs, tight), `engine_rows` what the engine's own code writes or slices (families marked
`engine_only` too, e.g. vLLM capturing its drafter at every ladder size). Audits of a sizing
(`verify(capacities=...)`, `verify_engine()`) compare it with the engine's rows; `verify()`
proves graphfit's own plan. Both cover every scenario the engine model could not rule out
(the component's `alternatives`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

from graphfit.planner.config import EngineConfig
from graphfit.planner.core.batches import BatchFamily, Stream
from graphfit.planner.core.buffers import (
    Axis,
    BufferSpec,
    Demand,
    FillKind,
    FillPolicy,
    Placement,
)
from graphfit.planner.core.dispatch import Dispatch, DispatchTables, GraphKey
from graphfit.planner.core.dtypes import itemsize
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.errors import BatchError, ConfigError, excerpt
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.layout import ARENA_ALIGNMENT, check_layout, lay_out
from graphfit.planner.core.named import find_buffer
from graphfit.planner.core.reach import FamilyWalk, graph_keys, walk
from graphfit.planner.core.rows import RowRule, rule_for
from graphfit.planner.core.shape import BatchShape, occupied
from graphfit.planner.core.verify import (
    EngineRefusal,
    FillViolationRange,
    Verification,
    ViolationRange,
    check_component,
    checked_fills,
    checked_overrides,
    family_rules,
    peak_rows,
)
from graphfit.planner.engines.base import (
    Alternative,
    ComponentModel,
    KeyedComponentModel,
    Scenario,
    keyed_components,
)
from graphfit.planner.engines.registry import engine_model
from graphfit.planner.keyed_plan import KeyedComponentPlan, keyed_capacities


@dataclass(frozen=True)
class BufferPlan:
    """A sized buffer: its unsized `spec` plus the rows, bytes and arena offset sizing gave.

    The spec's fields (name, dtype, axis, demands, fill, init, source, safe_fills,
    reference_capacity) read through; `shape`, `axis_dim`, `bytes` and `reference_bytes`
    follow from the spec and `capacity`, so a resized copy (`dataclasses.replace(b,
    capacity=...)`) stays consistent.
    """

    spec: BufferSpec
    component: str
    capacity: int
    offset: int
    engine_rows: int = 0  # the most rows the engine's own code writes or slices

    @property
    def key(self) -> str:
        """"component.name", the spelling audits and the CLI use."""
        return f"{self.component}.{self.name}"

    @property
    def name(self) -> str:
        """The buffer's name in its component."""
        return self.spec.name

    @property
    def dtype(self) -> str:
        """Element dtype, e.g. 'int64'."""
        return self.spec.dtype

    @property
    def axis(self) -> Axis:
        """The scaled axis (tokens, requests, fixed...)."""
        return self.spec.axis

    @property
    def demands(self) -> tuple[Demand, ...]:
        """The streams whose rows it holds."""
        return self.spec.demands

    @property
    def fill(self) -> FillPolicy:
        """How a padded tail is filled before each replay."""
        return self.spec.fill

    @property
    def init(self) -> str:
        """'zeros', or 'arange' for index buffers filled once."""
        return self.spec.init

    @property
    def source(self) -> str:
        """Where the engine's own code allocates it."""
        return self.spec.source

    @property
    def safe_fills(self) -> frozenset[FillKind] | None:
        """Tail fills that keep a replay correct (None: any)."""
        return self.spec.safe_fills

    @property
    def reference_capacity(self) -> int:
        """The rows the engine's own code allocates."""
        return self.spec.reference_capacity

    @property
    def axis_dim(self) -> int:
        """The dim of `shape` that scales (after the spec's leading dims)."""
        return len(self.spec.leading)

    @property
    def shape(self) -> tuple[int, ...]:
        return (*self.spec.leading, self.capacity, *self.spec.trailing)

    @property
    def row_bytes(self) -> int:
        """Bytes of one row along the scaled axis."""
        row = itemsize(self.spec.dtype)
        for dim in self.spec.leading + self.spec.trailing:
            row *= dim
        return row

    @property
    def bytes(self) -> int:
        return self.capacity * self.row_bytes

    @property
    def reference_bytes(self) -> int:
        return self.spec.reference_capacity * self.row_bytes

    @property
    def shared(self) -> str:
        """The plan-level shared buffer this one is ("" for a buffer of its own): it sits
        outside its component's arena and its bytes count once, in `Plan.shared`."""
        return self.spec.shared

    @property
    def placement(self) -> Placement:
        """Where the engine allocates it (device, or pinned host memory)."""
        return self.spec.placement

    @property
    def stages(self) -> str:
        """The device buffer this host buffer is the staging copy of ("" for none): the
        runtime refills that buffer from this one before each replay."""
        return self.spec.stages

    @property
    def pinned(self) -> bool:
        """Whether the engine allocates this host buffer in pinned (page-locked) memory: only
        a pinned staging copy's host-to-device copy can be recorded in a graph."""
        return self.spec.pinned

    @property
    def on_device(self) -> bool:
        """Whether it lives on the device (in its component's arena, counted in
        `total_bytes`); host buffers count in `host_bytes`."""
        return self.spec.placement is Placement.DEVICE


@dataclass(frozen=True)
class SharedBufferPlan:
    """One tensor several components read (`BufferSpec.shared`): allocated once, its bytes
    counted once. Its capacity is the most any user needs, so every user's proof (which
    checks the user's own padded rows against this capacity) holds for the one tensor."""

    name: str
    users: tuple[BufferPlan, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.users, tuple) or not all(
                isinstance(b, BufferPlan) for b in self.users):
            raise ConfigError(f"shared buffer {excerpt(self.name)}: users must be a tuple of "
                              f"BufferPlan")
        if not self.users:
            raise ConfigError(f"shared buffer {self.name}: no user")
        first = self.users[0]
        for other in self.users[1:]:
            # the users may scale on different axes (one runner indexes the rows by tokens,
            # another by requests, SGLang's process-wide logits buffer): rows are rows of the
            # one tensor and each user's proof counts its own; fixed and scaled never mix
            if (other.dtype, other.axis is Axis.FIXED, other.spec.leading, other.spec.trailing,
                    other.init) != (first.dtype, first.axis is Axis.FIXED, first.spec.leading,
                                    first.spec.trailing, first.init):
                raise ConfigError(
                    f"shared buffer {self.name}: {first.key} is {first.dtype} "
                    f"{first.axis.value} {first.spec.leading}/{first.spec.trailing} "
                    f"{first.init}, {other.key} is {other.dtype} {other.axis.value} "
                    f"{other.spec.leading}/{other.spec.trailing} {other.init}")
        if len({b.component for b in self.users}) != len(self.users):
            raise ConfigError(f"shared buffer {self.name}: two buffers of one component")
        if len({b.capacity for b in self.users}) != 1:
            raise ConfigError(f"shared buffer {self.name}: users disagree on capacity")

    @property
    def capacity(self) -> int:
        return self.users[0].capacity

    @property
    def engine_rows(self) -> int:
        return max(b.engine_rows for b in self.users)

    @property
    def reference_capacity(self) -> int:
        """What the engine allocates for it: the largest of its users' formulas."""
        return max(b.reference_capacity for b in self.users)

    @property
    def dtype(self) -> str:
        return self.users[0].dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.users[0].shape

    @property
    def bytes(self) -> int:
        return self.users[0].bytes

    @property
    def reference_bytes(self) -> int:
        return self.reference_capacity * self.users[0].row_bytes

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(b.key for b in self.users)


@dataclass(frozen=True)
class ComponentPlan:
    """The buffers, dispatcher and reachable batches of one model (target, drafter...)."""

    name: str
    buffers: tuple[BufferPlan, ...]
    tables: DispatchTables = field(repr=False)
    layout: str
    alignment: int
    families: tuple[BatchFamily, ...] = field(default=(), repr=False)
    unit: Unit = Unit.TOKENS
    walks: tuple[FamilyWalk, ...] = field(default=(), repr=False, compare=False)
    # the unsized specs and their rules per family, kept from sizing for the proof
    specs: tuple[BufferSpec, ...] = field(default=(), repr=False, compare=False)
    rules: tuple[tuple[RowRule | None, ...], ...] = field(default=(), repr=False,
                                                        compare=False)
    alternatives: tuple[Alternative, ...] = field(default=(), repr=False)
    # each alternative's label, walks and rules (the covered scenarios), kept from sizing
    alternative_walks: tuple[tuple[str, tuple[FamilyWalk, ...],
                                   tuple[tuple[RowRule | None, ...], ...]], ...] = field(
        default=(), repr=False, compare=False)
    # graphs the engine captures at each size (ComponentModel.graphs_per_size)
    graphs_per_size: int = 1

    def variants(self, *, engine: bool = True
                 ) -> list[tuple[str, tuple[FamilyWalk, ...],
                                 tuple[tuple[RowRule | None, ...], ...]]]:
        """(scenario label, walks, rules per spec and walk) of the assumed scenario ("") and
        every covered one; `engine=False` leaves out the batches only the engine's own code
        runs."""
        specs = self.specs or tuple(b.spec for b in self.buffers)
        rules = self.rules or family_rules(specs, self.walks)
        out = [("", self.walks, rules), *self.alternative_walks]
        if engine:
            return out
        kept = []
        for label, walks, spec_rules in out:
            keep = [i for i, fw in enumerate(walks) if not fw.family.engine_only]
            kept.append((label, tuple(walks[i] for i in keep),
                         tuple(tuple(r[i] for i in keep) for r in spec_rules)))
        return kept

    @property
    def runtime_families(self) -> tuple[BatchFamily, ...]:
        """The families graphfit's runtime runs (the assumed scenario, no engine-only ones)."""
        return tuple(f for f in self.families if not f.engine_only)

    def buffer(self, name: str) -> BufferPlan:
        return find_buffer(self.name, self.buffers, name)

    @property
    def width(self) -> int:
        """Tokens per request of a uniform decode of this component (q; SGLang drafts: topk)."""
        return self.tables.uniform_query_len

    @property
    def own_buffers(self) -> tuple[BufferPlan, ...]:
        """The buffers this component allocates itself (in its arena): all but the shared."""
        return tuple(b for b in self.buffers if not b.shared)

    @property
    def total_bytes(self) -> int:
        """Device bytes its own buffers need: the arena size with alignment, else their sum
        (shared buffers are counted once, in `Plan.total_bytes`; host buffers in
        `host_bytes`)."""
        return device_bytes(self.own_buffers, self.layout, self.alignment)

    @property
    def reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.own_buffers if b.on_device)

    @property
    def host_bytes(self) -> int:
        """Host bytes of its own host buffers (separate pinned allocations, no arena)."""
        return sum(b.bytes for b in self.own_buffers if not b.on_device)

    @property
    def host_reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.own_buffers if not b.on_device)

    @property
    def padded_streams(self) -> frozenset[Stream]:
        """The streams fed by batches that go through the dispatcher (what graphs read)."""
        return frozenset(s for f in self.runtime_families if f.padded for s in f.streams)

    def row_rule(self, name: str) -> RowRule | None:
        """The rows a graph of this component needs in buffer `name`, per (tokens, requests);
        None when only never-padded batches (DFlash's context) feed it."""
        buf = self.buffer(name)
        if buf.axis is Axis.FIXED:
            return RowRule((), (), fixed=buf.capacity)
        return rule_for(buf.demands, self.padded_streams)


@dataclass(frozen=True)
class Plan:
    """Everything derived from one EngineConfig. Build it with `plan(config)`."""

    config: EngineConfig
    config_ladder: Ladder
    runtime_ladder: Ladder
    components: Mapping[str, ComponentPlan]
    engine_version: str = ""
    unit: Unit = Unit.TOKENS
    # the engine's own names for its key settings, with their resolved values (may be empty)
    engine_inputs: tuple[tuple[str, str], ...] = ()
    resolved_mode: CUDAGraphMode | None = None
    assumed: Scenario | None = None
    covered: tuple[Scenario, ...] = ()
    shared: Mapping[str, SharedBufferPlan] = field(default_factory=lambda: MappingProxyType({}))
    # components keyed on (requests, tokens, longest request) (graphfit.planner.keyed_plan)
    keyed: Mapping[str, KeyedComponentPlan] = field(
        default_factory=lambda: MappingProxyType({}))

    @property
    def cudagraph_mode(self) -> CUDAGraphMode:
        """The graph mode the engine's runner resolves (vLLM downgrades the configured mode
        when the attention backends cannot run its FULL graphs); the assumed scenario's."""
        return self.resolved_mode if self.resolved_mode is not None else \
            self.config.cudagraph_mode

    @property
    def config_capture_sizes(self) -> tuple[int, ...]:
        """Sizes as the engine's config computes them: what a drafter's __init__ sees."""
        return self.config_ladder.sizes

    @property
    def capture_sizes(self) -> tuple[int, ...]:
        """Sizes the runner captures (after vLLM V1's shrink-only resolution)."""
        return self.runtime_ladder.sizes

    @property
    def max_capture_size(self) -> int:
        return self.runtime_ladder.max_size

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.config_ladder.warnings + self.runtime_ladder.warnings))

    @property
    def has_graphs(self) -> bool:
        return self.cudagraph_mode is not CUDAGraphMode.NONE and bool(self.capture_sizes)

    @property
    def total_bytes(self) -> int:
        """Device bytes: every component's own device buffers plus each shared buffer once
        (host buffers are `host_bytes`)."""
        return (sum(c.total_bytes for c in self.components.values())
                + sum(s.bytes for s in self.shared.values())
                + sum(k.total_bytes for k in self.keyed.values()))

    @property
    def reference_bytes(self) -> int:
        return (sum(c.reference_bytes for c in self.components.values())
                + sum(s.reference_bytes for s in self.shared.values())
                + sum(k.reference_bytes for k in self.keyed.values()))

    @property
    def host_bytes(self) -> int:
        """Host bytes: the buffers the engine allocates in (pinned) host memory (never
        shared: `BufferSpec`); 0 for a plan without them."""
        return (sum(c.host_bytes for c in self.components.values())
                + sum(k.host_bytes for k in self.keyed.values()))

    @property
    def host_reference_bytes(self) -> int:
        return (sum(c.host_reference_bytes for c in self.components.values())
                + sum(k.host_reference_bytes for k in self.keyed.values()))

    def component(self, name: str) -> ComponentPlan:
        try:
            return self.components[name]
        except (KeyError, TypeError):
            known = ", ".join(self.components)
            raise BatchError(f"component: no component {name!r} (known: {known})") from None

    def buffer(self, key: str) -> BufferPlan:
        """Look up "component.name" (e.g. "drafter.positions"; a component name may hold a
        dot, SGLang's adaptive "target.s5", a buffer name never)."""
        if not isinstance(key, str):
            raise ConfigError(f"buffer: expected component.name, got {key!r}")
        component, sep, name = key.rpartition(".")
        if not sep:
            raise ConfigError(f"buffer: {key!r} is not of the form component.name")
        if component in self.keyed:
            return self.keyed[component].buffer(name)
        if component not in self.components:
            raise ConfigError(f"buffer: no component {component!r} in {key!r}")
        return self.components[component].buffer(name)

    def rows(self, component: str, batch: BatchShape, *, uniform_decode: bool = False
             ) -> dict[str, int]:
        """Rows each graph input of `component` occupies for `batch`: dispatched as
        `pad` does, the static shape on a graph and the real one eagerly (the one step from
        a batch to rows, core.shape, that the walk and the runtime take too)."""
        comp = self.component(component)
        d = self.pad(batch.tokens, uniform_decode=uniform_decode, num_reqs=batch.requests,
                     component=component)
        shape = occupied(batch, d, comp.tables.max_num_seqs)
        out: dict[str, int] = {}
        for b in comp.buffers:
            rule = comp.row_rule(b.name)
            if rule is not None:
                out[b.name] = rule.rows(shape.tokens, shape.requests)
        return out

    def graph_keys(self, component: str = "target") -> Mapping[GraphKey, tuple[CUDAGraphMode, ...]]:
        """Every static shape a reachable batch of `component` replays, with its modes.

        This is exactly what graphfit's runtime captures (`GraphRunner`), smallest first;
        the key's `num_reqs` is the request rows the graph bakes in.
        """
        comp = self.component(component)
        walks = tuple(fw for fw in comp.walks if not fw.family.engine_only)
        return MappingProxyType(graph_keys(walks, comp.tables.max_num_seqs))

    def graph_sizes(self, component: str = "target") -> tuple[int, ...]:
        """The capture sizes (in the engine's unit) some reachable batch of `component` replays.

        Capacities are sized for reachable batches only, so an engine must capture a
        component's graphs at these sizes and no larger: a DFlash drafter's query never
        exceeds S*q, so its graphs stop at pad(S*q). An engine that captures the drafter at
        every ladder size instead needs vLLM's max(S*q, max capture) rows.
        """
        comp = self.component(component)
        keys = self.graph_keys(component)
        if comp.unit is Unit.REQUESTS:
            return tuple(sorted({k.num_reqs or 0 for k in keys}))
        return tuple(sorted({k.padded for k in keys}))

    def pad(self, num_tokens: int, *, uniform_decode: bool = False, num_reqs: int | None = None,
            component: str = "target") -> Dispatch:
        """Where a batch goes: O(1) lookup in the component's precomputed table."""
        if num_reqs is None and not uniform_decode and type(num_tokens) is int and (
                component == "target"):
            hits, top = self._target_hits
            if 0 < num_tokens <= top:  # the hot path: a plain mixed batch of the target
                hit = hits[num_tokens]
                if hit is not None:
                    return hit
        try:
            lookup = self._lookups[component]
        except (KeyError, TypeError):
            self.component(component)  # raises BatchError naming the known ones
            raise
        largest = self._largest_batches[component]
        if not uniform_decode and type(num_tokens) is int and largest is not None and (
                num_tokens > largest):  # (a uniform decode's requests are bounded by S below)
            raise BatchError(f"num_tokens: no batch of {component} the engine builds has "
                             f"{num_tokens} tokens (at most {largest}: max_num_batched_tokens "
                             "and the plan's batch families)")
        return lookup(num_tokens, uniform_decode=uniform_decode, num_reqs=num_reqs)

    @cached_property
    def _largest_batches(self) -> dict[str, int | None]:
        """Per component, the most tokens of any mixed batch the engine's scheduler builds:
        the step's token budget (max_num_batched_tokens), or more where one of its batch
        families (every covered scenario's too) reaches further. A larger `pad` query is no
        batch of this plan: it is refused rather than answered as an eager batch, which
        would pass off an impossible batch as served."""
        out: dict[str, int | None] = {}
        budget = self.config.max_num_batched_tokens
        for name, comp in self.components.items():
            families = [*comp.families, *(w.family for _, walks, _ in comp.alternative_walks
                                          for w in walks)]
            tops = [f.step * (f.points[-1] if f.points else f.last)
                    for f in families if not f.empty]
            out[name] = max([budget, *tops]) if isinstance(budget, int) else None
        return out

    @cached_property
    def _lookups(self) -> dict[str, Callable[..., Dispatch]]:
        """Each component's `DispatchTables.lookup`, bound once."""
        return {name: comp.tables.lookup for name, comp in self.components.items()}

    @cached_property
    def _target_hits(self) -> tuple[tuple[Dispatch | None, ...], int]:
        """The target's per-n mixed dispatches and how far they reach (Plan.pad's hot path;
        (), 0 without a target)."""
        comp = self.components.get("target")
        return comp.tables.mixed_hits() if comp is not None else ((), 0)

    def verify_engine(self) -> Verification:
        """Audit the ENGINE's own sizing: every buffer at the rows the engine's code allocates
        (`reference_capacity`), against every batch the engine's code runs (its engine rows,
        in every covered scenario).

        This is the verdict an operator wants first ("is my vLLM/SGLang config safe as it
        is?"); `verify()` proves graphfit's own plan.
        """
        audit = self.verify({b.key: b.reference_capacity for c in self._all_buffered
                             for b in c.buffers})
        return replace(audit, refusals=self.refusals) if self.refusals else audit

    @property
    def refusals(self) -> tuple[EngineRefusal, ...]:
        """The reachable batches the engine's own code raises on replaying a graph (every
        keyed component's `refusals`): part of the engine's verdict (`verify_engine`), not
        of graphfit's plan (its runtime replays them) nor of an audit of capacities."""
        return tuple(r for k in self.keyed.values() for r in k.refusals)

    @property
    def _all_buffered(self) -> tuple[ComponentPlan | KeyedComponentPlan, ...]:
        """Every component with buffers: the token-dispatched ones, then the keyed ones."""
        return (*self.components.values(), *self.keyed.values())

    def verify(self, capacities: Mapping[str, int] | None = None,
               fills: Mapping[str, FillKind | str] | None = None, *,
               engine: bool | None = None) -> Verification:
        """Prove padded rows <= capacity for every reachable batch of every buffer, and a safe
        fill for every padded tail a graph reads, in every covered scenario.

        Without `capacities` this proves graphfit's own plan (its capacities, the batches its
        runtime runs). `capacities` / `fills` ("component.buffer" -> rows / fill kind) audit
        someone else's sizing and padding code: against every batch the ENGINE's code runs,
        with the engine's rows for the buffers not given. `engine` overrides that choice
        (`check --plan` audits a saved graphfit plan with engine=False).
        """
        engine = capacities is not None if engine is None else engine
        known = {b.key: (b.engine_rows if engine else b.capacity)
                 for c in self._all_buffered for b in c.buffers}
        caps = checked_overrides(known, capacities or {})
        kinds = checked_fills({b.key: b.fill.kind for c in self._all_buffered
                               for b in c.buffers}, fills or {})
        ranges: list[ViolationRange] = []
        fill_ranges: list[FillViolationRange] = []
        seen: set[tuple[object, ...]] = set()  # one report per range across scenarios
        checked = 0
        for comp in self.components.values():
            prefix = f"{comp.name}."
            specs = comp.specs or tuple(b.spec for b in comp.buffers)
            comp_caps = {b.name: caps[prefix + b.name] for b in comp.buffers}
            comp_kinds = {b.name: kinds[prefix + b.name] for b in comp.buffers}
            for label, walks, rules in comp.variants(engine=engine):
                found, unsafe, count = check_component(comp.name, specs, comp_caps, comp_kinds,
                                                       walks, comp.tables.max_num_seqs, rules)
                checked += count
                for r in found:
                    key = (r.key, r.first, r.last, r.step, r.padded, r.needed, r.eager)
                    if key not in seen:
                        seen.add(key)
                        ranges.append(replace(r, scenario=label) if label else r)
                for f in unsafe:
                    fill_key = ("fill", f.key, f.first, f.last, f.padded)
                    if fill_key not in seen:
                        seen.add(fill_key)
                        fill_ranges.append(replace(f, scenario=label) if label else f)
        for keyed in self.keyed.values():  # graphs keyed on (requests, tokens, longest)
            found, count = keyed.check({b.name: caps[b.key] for b in keyed.buffers})
            ranges += found
            checked += count
        return Verification(tuple(ranges), checked, MappingProxyType(caps), tuple(fill_ranges),
                            MappingProxyType(kinds))


def _most(values: Iterable[int | None]) -> int | None:
    """The largest of the values that are not None (None when all are)."""
    found = [v for v in values if v is not None]
    return max(found) if found else None


def _sized(model: ComponentModel, layout: str, alignment: int) -> ComponentPlan:
    walks = walk(model.families, model.tables)
    rules = family_rules(model.buffers, walks)
    alternative_walks = []
    for alt in model.alternatives:
        alt_walks = walk(alt.families, alt.tables)
        alternative_walks.append((alt.label, alt_walks, family_rules(model.buffers, alt_walks)))
    variants = [("", walks, rules), *alternative_walks]
    sized: list[tuple[BufferSpec, int, int]] = []
    for i, spec in enumerate(model.buffers):
        # peaks over graphfit's runtime batches / every batch the engine's code runs
        ours = _most(peak_rows(v_rules[i], v_walks, engine=False)
                     for _, v_walks, v_rules in variants)
        theirs = _most(peak_rows(v_rules[i], v_walks) for _, v_walks, v_rules in variants)
        capacity = ours if ours is not None else (
            theirs if theirs is not None else spec.reference_capacity)
        engine_rows = max(capacity, theirs) if theirs is not None else capacity
        sized.append((spec, capacity, engine_rows))
    unplaced = tuple(BufferPlan(spec, model.name, capacity, 0, engine_rows)
                     for spec, capacity, engine_rows in sized)
    return ComponentPlan(model.name, _placed(unplaced, layout, alignment), model.tables, layout,
                         alignment, model.families, model.unit, walks, model.buffers, rules,
                         model.alternatives, tuple(alternative_walks),
                         model.graphs_per_size)


def device_bytes(buffers: Iterable[BufferPlan], layout: str, alignment: int) -> int:
    """The device arena (or the sum of separate allocations) of `buffers`' own device
    buffers: what the planner and the runtime count as GPU memory."""
    return lay_out([b.bytes for b in buffers if b.on_device and not b.shared], layout,
                   alignment)[1]


def _placed(buffers: tuple[BufferPlan, ...], layout: str, alignment: int
            ) -> tuple[BufferPlan, ...]:
    """Arena offsets for a component's own device buffers (`lay_out`); shared and host ones
    sit at 0, outside its arena."""
    own = [b for b in buffers if not b.shared and b.on_device]
    offsets = iter(lay_out([b.bytes for b in own], layout, alignment)[0])
    return tuple(replace(b, offset=next(offsets)) if not b.shared and b.on_device else
                 replace(b, offset=0) for b in buffers)


def _share(components: dict[str, ComponentPlan]
           ) -> tuple[dict[str, ComponentPlan], dict[str, SharedBufferPlan]]:
    """Size every shared buffer for the most rows any user needs (capacity and the engine's
    rows), give each user that capacity, and lay the users' components out without them."""
    groups: dict[str, list[BufferPlan]] = {}
    for comp in components.values():
        for b in comp.buffers:
            if b.shared:
                groups.setdefault(b.shared, []).append(b)
    if not groups:
        return components, {}
    sizes = {name: (max(b.capacity for b in users), max(b.engine_rows for b in users))
             for name, users in groups.items()}
    out: dict[str, ComponentPlan] = {}
    for name, comp in components.items():
        bufs = tuple(replace(b, capacity=sizes[b.shared][0], engine_rows=sizes[b.shared][1])
                     if b.shared else b for b in comp.buffers)
        out[name] = replace(comp, buffers=_placed(bufs, comp.layout, comp.alignment))
    shared = {name: SharedBufferPlan(name, tuple(b for c in out.values() for b in c.buffers
                                                 if b.shared == name))
              for name in groups}
    return out, shared


def _sized_keyed(model: KeyedComponentModel, layout: str, alignment: int
                 ) -> KeyedComponentPlan:
    """A keyed component sized (graphfit.planner.keyed_plan) and laid out as an arena."""
    rows = keyed_capacities(model)
    unplaced = tuple(BufferPlan(spec, model.name, rows[spec.name], 0, rows[spec.name])
                     for spec in model.buffers)
    return KeyedComponentPlan(model.name, _placed(unplaced, layout, alignment), model.dispatch,
                              model.bounds, dict(model.witnesses), model.ladders, layout,
                              alignment, model.measure, model.bound_names, model.key_names,
                              model.summary, model.refusals)


def plan(config: EngineConfig, *, layout: str = "arena",
         alignment: int = ARENA_ALIGNMENT) -> Plan:
    """Derive the whole plan from one config. Raises ConfigError for inconsistent input."""
    if not isinstance(config, EngineConfig):
        raise ConfigError(f"config: expected an EngineConfig, got {type(config).__name__}")
    check_layout(layout, alignment)
    model = engine_model(config.engine, config.engine_version)
    ladders = model.ladders(config)
    components, shared = _share({c.name: _sized(c, layout, alignment)
                                 for c in model.components(config, ladders)})
    keyed: dict[str, KeyedComponentPlan] = {}
    for k in keyed_components(model, config, ladders):
        if k.name in components or k.name in keyed:
            raise ConfigError(f"component {k.name!r}: named twice")
        keyed[k.name] = _sized_keyed(k, layout, alignment)
    return Plan(config, ladders.config, ladders.runtime, MappingProxyType(components),
                model.version, model.unit, ladders.inputs, ladders.mode, ladders.assumed,
                ladders.covered, MappingProxyType(shared), MappingProxyType(keyed))
