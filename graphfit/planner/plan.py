"""`plan(config)`: ladder, dispatch tables and tight buffer capacities from one config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from graphfit.planner.buffers import (
    Axis,
    BufferSpec,
    Demand,
    FillPolicy,
    drafter_buffer_specs,
    stream_reach,
    target_buffer_specs,
)
from graphfit.planner.config import EngineConfig
from graphfit.planner.dispatch import (
    Dispatch,
    DispatchTables,
    drafter_tables,
    padding_table,
    target_tables,
)
from graphfit.planner.dtypes import itemsize
from graphfit.planner.enums import Engine
from graphfit.planner.errors import BatchError, ConfigError
from graphfit.planner.ladder import Ladder, config_ladder, resolve_runtime_ladder
from graphfit.planner.streams import padded_peak

if TYPE_CHECKING:
    from graphfit.planner.verify import Verification

ARENA_ALIGNMENT = 256
LAYOUTS = ("arena", "separate")


@dataclass(frozen=True)
class BufferPlan:
    """A sized buffer: shape, bytes and where it sits in its component's arena."""

    name: str
    component: str
    dtype: str
    axis: Axis
    shape: tuple[int, ...]
    axis_dim: int
    capacity: int
    reference_capacity: int
    bytes: int
    reference_bytes: int
    offset: int
    fill: FillPolicy
    demands: tuple[Demand, ...]
    init: str
    source: str = ""

    @property
    def key(self) -> str:
        """"component.name", the spelling audits and the CLI use."""
        return f"{self.component}.{self.name}"

    @property
    def row_bytes(self) -> int:
        """Bytes of one row along the scaled axis."""
        return self.bytes // self.capacity if self.capacity else 0


@dataclass(frozen=True)
class ComponentPlan:
    """The buffers and dispatcher of one model (target or drafter)."""

    name: str
    buffers: tuple[BufferPlan, ...]
    tables: DispatchTables = field(repr=False)
    layout: str
    alignment: int

    def buffer(self, name: str) -> BufferPlan:
        for buf in self.buffers:
            if buf.name == name:
                return buf
        known = ", ".join(b.name for b in self.buffers)
        raise ConfigError(f"buffer: {self.name} has no buffer {name!r} (known: {known})")

    @property
    def total_bytes(self) -> int:
        """Bytes the buffers need: the arena size with alignment, else their sum."""
        if self.layout == "arena" and self.buffers:
            last = self.buffers[-1]
            return last.offset + last.bytes
        return sum(b.bytes for b in self.buffers)

    @property
    def reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.buffers)


@dataclass(frozen=True)
class Plan:
    """Everything derived from one EngineConfig. Build it with `plan(config)`."""

    config: EngineConfig
    config_ladder: Ladder
    runtime_ladder: Ladder
    components: Mapping[str, ComponentPlan]

    @property
    def config_capture_sizes(self) -> tuple[int, ...]:
        """Sizes as vLLM's config computes them: what a drafter's __init__ sees."""
        return self.config_ladder.sizes

    @property
    def capture_sizes(self) -> tuple[int, ...]:
        """Sizes the runner captures (after the V1 shrink-only resolution)."""
        return self.runtime_ladder.sizes

    @property
    def max_capture_size(self) -> int:
        return self.runtime_ladder.max_size

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.config_ladder.warnings + self.runtime_ladder.warnings))

    @property
    def has_graphs(self) -> bool:
        return self.config.cudagraph_mode.value != "NONE"

    @property
    def total_bytes(self) -> int:
        return sum(c.total_bytes for c in self.components.values())

    @property
    def reference_bytes(self) -> int:
        return sum(c.reference_bytes for c in self.components.values())

    def component(self, name: str) -> ComponentPlan:
        try:
            return self.components[name]
        except KeyError:
            known = ", ".join(self.components)
            raise BatchError(f"component: no component {name!r} (known: {known})") from None

    def buffer(self, key: str) -> BufferPlan:
        """Look up "component.name" (e.g. "drafter.positions")."""
        component, sep, name = key.partition(".")
        if not sep:
            raise ConfigError(f"buffer: {key!r} is not of the form component.name")
        if component not in self.components:
            raise ConfigError(f"buffer: no component {component!r} in {key!r}")
        return self.components[component].buffer(name)

    def graph_sizes(self, component: str = "target") -> tuple[int, ...]:
        """The capture sizes some reachable batch of `component` replays.

        Capacities are sized for reachable batches only, so an engine must capture a
        component's graphs at these sizes and no larger: a DFlash drafter's query never
        exceeds S*q, so its graphs stop at pad(S*q). An engine that captures the drafter at
        every ladder size instead needs vLLM's max(S*q, max capture) rows.
        """
        comp = self.component(component)
        if self.config.engine is not Engine.VLLM or not self.has_graphs:
            return self.capture_sizes if self.has_graphs else ()
        reach = max((stream_reach(self.config, d.stream) for b in comp.buffers
                     for d in b.demands if d.stream.padded), default=self.max_capture_size)
        table = padding_table(self.capture_sizes)
        top = padded_peak(reach, table)
        return tuple(s for s in self.capture_sizes if s <= top)

    def pad(self, num_tokens: int, *, uniform_decode: bool = False, num_reqs: int | None = None,
            component: str = "target") -> Dispatch:
        """Where a batch goes: O(1) lookup in the component's precomputed table."""
        comp = self.components.get(component)
        if comp is None:
            comp = self.component(component)  # raises BatchError naming the known ones
        return comp.tables.lookup(num_tokens, uniform_decode=uniform_decode, num_reqs=num_reqs)

    def verify(self, capacities: Mapping[str, int] | None = None) -> Verification:
        """Check padded <= capacity for every reachable batch of every buffer.

        `capacities` ("component.buffer" -> rows) audits a user's own sizing instead.
        """
        if self.config.engine is not Engine.VLLM:
            from graphfit.planner.engines.batched import verify_batch_plan

            return verify_batch_plan(self, capacities or {})
        from graphfit.planner.verify import verify_plan

        return verify_plan(self, capacities or {})


def _size_buffers(component: str, specs: list[BufferSpec], config: EngineConfig,
                  table: tuple[int, ...], layout: str, alignment: int) -> tuple[BufferPlan, ...]:
    out: list[BufferPlan] = []
    offset = 0
    for spec in specs:
        peaks = []
        for demand in spec.demands:
            reach = stream_reach(config, demand.stream)
            rows = padded_peak(reach, table) if demand.stream.padded else reach
            peaks.append(rows + demand.offset)
        capacity = max(peaks) if peaks else spec.reference_capacity
        row_elems = 1
        for dim in spec.leading + spec.trailing:
            row_elems *= dim
        size = itemsize(spec.dtype)
        nbytes = capacity * row_elems * size
        if layout == "arena":
            offset = -(-offset // alignment) * alignment
        out.append(BufferPlan(
            name=spec.name, component=component, dtype=spec.dtype, axis=spec.axis,
            shape=(*spec.leading, capacity, *spec.trailing), axis_dim=len(spec.leading),
            capacity=capacity, reference_capacity=spec.reference_capacity, bytes=nbytes,
            reference_bytes=spec.reference_capacity * row_elems * size,
            offset=offset if layout == "arena" else 0, fill=spec.fill,
            demands=spec.demands, init=spec.init, source=spec.source,
        ))
        offset += nbytes
    return tuple(out)


def plan(config: EngineConfig, *, layout: str = "arena",
         alignment: int = ARENA_ALIGNMENT) -> Plan:
    """Derive the whole plan from one config. Raises ConfigError for inconsistent input."""
    if not isinstance(config, EngineConfig):
        raise ConfigError(f"config: expected an EngineConfig, got {type(config).__name__}")
    if layout not in LAYOUTS:
        raise ConfigError(f"layout: {layout!r} is not one of {', '.join(LAYOUTS)}")
    if alignment < 1 or alignment & (alignment - 1):
        raise ConfigError(f"alignment: must be a power of two, got {alignment}")
    if config.engine is not Engine.VLLM:  # batch-size engines: SGLang, TensorRT-LLM
        from graphfit.planner.engines.batched import batch_plan

        return batch_plan(config, layout=layout, alignment=alignment)
    cfg_ladder = config_ladder(config)
    rt_ladder = resolve_runtime_ladder(config, cfg_ladder)
    sizes = rt_ladder.sizes
    S, q, mode = config.max_num_seqs, config.uniform_query_len, config.cudagraph_mode
    table = padding_table(sizes) if config.cudagraph_mode.value != "NONE" else (0,)
    components: dict[str, ComponentPlan] = {
        "target": ComponentPlan(
            "target",
            _size_buffers("target", target_buffer_specs(config), config, table, layout,
                          alignment),
            target_tables(sizes, mode, q, S), layout, alignment),
    }
    drafter_specs = drafter_buffer_specs(config, cfg_ladder.max_size)
    if drafter_specs:
        components["drafter"] = ComponentPlan(
            "drafter",
            _size_buffers("drafter", drafter_specs, config, table, layout, alignment),
            drafter_tables(sizes, mode, q, S), layout, alignment)
    return Plan(config, cfg_ladder, rt_ladder, MappingProxyType(components))
