"""Plans and proofs for engines that capture per batch size (SGLang, TensorRT-LLM).

Dispatch tables are keyed on tokens like vLLM's, so `Plan.pad` works unchanged: a decode
batch of bs requests of `width` tokens is the uniform batch bs * width, padded to the next
captured batch size (bisect_left) or, without padding, replayed only on an exact size. Mixed
(prefill) batches and batches above the ladder run eagerly, unpadded.

The proof enumerates every batch a buffer can see: each captured size (capture runs it),
each decode batch 1..max_requests through `Plan.pad`, and for TensorRT-LLM the eager batches
that share the buffers. It also checks that every padded tail is filled safely.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from graphfit.planner.buffers import Axis, Demand, FillKind
from graphfit.planner.config import EngineConfig
from graphfit.planner.dispatch import Dispatch, DispatchTables, padding_table
from graphfit.planner.dtypes import itemsize
from graphfit.planner.engines.catalogue import BatchBufferSpec, BatchRunner
from graphfit.planner.engines.sglang import sglang_runners
from graphfit.planner.engines.trtllm import trtllm_runners
from graphfit.planner.enums import CUDAGraphMode, Engine
from graphfit.planner.errors import ConfigError
from graphfit.planner.ladder import Ladder, config_ladder
from graphfit.planner.plan import BufferPlan, ComponentPlan, Plan
from graphfit.planner.streams import Stream
from graphfit.planner.verify import Verification, Violation, checked_capacities

_NONE = Dispatch(CUDAGraphMode.NONE, 0, None)
_STREAMS = {
    ("target", Axis.TOKENS): Stream.TARGET_TOKENS,
    ("target", Axis.REQUESTS): Stream.TARGET_REQUESTS,
    ("drafter", Axis.TOKENS): Stream.DRAFTER_TOKENS,
    ("drafter", Axis.REQUESTS): Stream.DRAFTER_REQUESTS,
}


def runners(config: EngineConfig, ladder: Ladder) -> list[BatchRunner]:
    """The engine's graph runners for this config and ladder."""
    if config.engine is Engine.SGLANG:
        return sglang_runners(config, ladder.max_size)
    if config.engine is Engine.TRTLLM:
        return trtllm_runners(config, ladder.max_size)
    raise ConfigError(f"engine: {config.engine.value} is not a batch-size engine")


def batch_tables(sizes: tuple[int, ...], width: int, max_num_seqs: int, *, padding: bool,
                 graphs: bool) -> DispatchTables:
    """Token-keyed tables for a batch-size ladder: only uniform batches replay graphs."""
    top = sizes[-1] * width
    mixed = (_NONE,) * (top + 1)
    uniform = [_NONE] * (top + 1)
    if graphs:
        pad = padding_table(sizes)
        exact = set(sizes)
        for bs in range(1, sizes[-1] + 1):
            padded = pad[bs] if padding else (bs if bs in exact else 0)
            if padded:
                uniform[bs * width] = Dispatch(CUDAGraphMode.FULL, padded * width, padded)
    return DispatchTables(top, mixed, tuple(uniform), width, max_num_seqs)


def _graphs_on(config: EngineConfig) -> bool:
    return config.cudagraph_mode is not CUDAGraphMode.NONE


def _peak_rows(runner: BatchRunner, spec: BatchBufferSpec, ladder: Ladder,
               graphs: bool) -> int:
    """Closed form of the largest batch: capture runs every size, the largest pads the most."""
    per_request = runner.width if spec.axis is Axis.TOKENS else 1
    graph_rows = ladder.max_size * per_request if graphs else 0
    eager = runner.eager_tokens if spec.axis is Axis.TOKENS else runner.eager_requests
    return max(graph_rows, eager)


def _uses_buffers(runner: BatchRunner, graphs: bool) -> bool:
    return graphs or runner.eager_tokens > 0


def batch_plan(config: EngineConfig, *, layout: str, alignment: int) -> Plan:
    """`plan()` for SGLang and TensorRT-LLM configs (called by graphfit.planner.plan.plan)."""
    ladder = config_ladder(config)
    graphs = _graphs_on(config)
    components: dict[str, ComponentPlan] = {}
    for runner in runners(config, ladder):
        tables = batch_tables(ladder.sizes, runner.width, config.max_num_seqs,
                              padding=config.cuda_graph_padding, graphs=graphs)
        buffers: list[BufferPlan] = []
        offset = 0
        specs = runner.buffers if _uses_buffers(runner, graphs) else ()
        for spec in specs:
            capacity = _peak_rows(runner, spec, ladder, graphs)
            row = itemsize(spec.dtype)
            for dim in spec.leading + spec.trailing:
                row *= dim
            if layout == "arena":
                offset = -(-offset // alignment) * alignment
            buffers.append(BufferPlan(
                name=spec.name, component=runner.name, dtype=spec.dtype, axis=spec.axis,
                shape=(*spec.leading, capacity, *spec.trailing), axis_dim=len(spec.leading),
                capacity=capacity, reference_capacity=spec.reference_capacity,
                bytes=capacity * row, reference_bytes=spec.reference_capacity * row,
                offset=offset if layout == "arena" else 0, fill=spec.fill,
                demands=(Demand(_STREAMS[(runner.name, spec.axis)]),), init="zeros",
                source=spec.why))
            offset += capacity * row
        components[runner.name] = ComponentPlan(runner.name, tuple(buffers), tables, layout,
                                                alignment)
    return Plan(config, ladder, ladder, MappingProxyType(components))


@dataclass(frozen=True, slots=True)
class FillViolation:
    """A padded graph batch whose tail rows of a buffer hold an unsafe fill (stale data)."""

    component: str
    buffer: str
    batch: int
    padded: int
    fill: FillKind
    safe: frozenset[FillKind]

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"

    def describe(self) -> str:
        safe = ", ".join(sorted(k.value for k in self.safe))
        return (f"{self.key}: a batch of {self.batch} padded to {self.padded} leaves its "
                f"padded rows {self.fill.value}; only {safe} is safe there")


@dataclass(frozen=True)
class BatchVerification(Verification):
    """A `Verification` that also carries fill-policy violations of padded tails."""

    fill_violations: tuple[FillViolation, ...] = ()
    fills: Mapping[str, FillKind] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations and not self.fill_violations


@dataclass(frozen=True, slots=True)
class _Batch:
    num_tokens: int  # tokens of the batch as scheduled (or captured)
    token_rows: int  # rows a token-axis buffer must hold
    request_rows: int  # rows a request-axis buffer must hold
    real_requests: int  # requests before padding (== request_rows when unpadded)
    graph: bool


def reachable_batches(plan: Plan, runner: BatchRunner) -> Iterator[_Batch]:
    """Every batch a runner's buffers see: captures, dispatched decodes, shared eager ones."""
    w = runner.width
    if plan.has_graphs:
        for size in plan.capture_sizes:  # capture replays each size with dummy requests
            yield _Batch(size * w, size * w, size, size, True)
    for bs in range(1, runner.max_requests + 1):
        d = plan.pad(bs * w, uniform_decode=True, component=runner.name)
        if d.mode is not CUDAGraphMode.NONE:
            yield _Batch(bs * w, d.padded, d.num_reqs or bs, bs, True)
        elif runner.eager_tokens:
            yield _Batch(bs * w, bs * w, bs, bs, False)
    if runner.eager_tokens:
        for n in range(1, runner.eager_tokens + 1):  # prefill / mixed batches, never graphed
            d = plan.pad(n, component=runner.name)
            yield _Batch(n, d.padded, min(n, runner.eager_requests), min(n, runner.eager_requests),
                         False)


def _checked(plan: Plan, capacities: Mapping[str, int],
             fills: Mapping[str, FillKind | str]) -> tuple[dict[str, int], dict[str, FillKind]]:
    caps = checked_capacities(plan, capacities)
    kinds = {b.key: b.fill.kind for c in plan.components.values() for b in c.buffers}
    for key, fill in fills.items():
        plan.buffer(key)
        try:
            kinds[key] = FillKind(fill)
        except ValueError:
            choices = ", ".join(k.value for k in FillKind)
            raise ConfigError(f"fill: {key}: {fill!r} is not one of {choices}") from None
    return caps, kinds


def verify_batch_plan(plan: Plan, capacities: Mapping[str, int],
                      fills: Mapping[str, FillKind | str] | None = None) -> BatchVerification:
    """Prove rows <= capacity for every reachable batch and a safe fill for every padded tail.

    `capacities` and `fills` ("component.buffer" keys) audit someone else's sizing and padding
    code instead of graphfit's own.
    """
    caps, kinds = _checked(plan, capacities, fills or {})
    violations: list[Violation] = []
    fill_violations: list[FillViolation] = []
    checked = 0
    for runner in runners(plan.config, plan.config_ladder):
        component = plan.components[runner.name]
        batches = list(reachable_batches(plan, runner))
        for spec in runner.buffers:
            if not component.buffers:
                break
            key = f"{runner.name}.{spec.name}"
            capacity, kind = caps[key], kinds[key]
            tokens = spec.axis is Axis.TOKENS
            seen: set[tuple[int, int]] = set()
            for batch in batches:
                checked += 1
                rows = batch.token_rows if tokens else batch.request_rows
                if rows > capacity and (batch.num_tokens, rows) not in seen:
                    seen.add((batch.num_tokens, rows))
                    violations.append(Violation(runner.name, spec.name, batch.num_tokens, rows,
                                                capacity, rows))
                if (batch.graph and batch.request_rows > batch.real_requests
                        and not spec.fill_is_safe(kind)):
                    fill_violations.append(FillViolation(
                        runner.name, spec.name, batch.real_requests, batch.request_rows, kind,
                        spec.safe_fills or frozenset()))
    return BatchVerification(tuple(violations), checked, MappingProxyType(caps),
                             tuple(fill_violations), MappingProxyType(kinds))
