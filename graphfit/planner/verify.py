"""Exhaustive proof that no reachable batch pads past a buffer's capacity.

Every batch size a stream can carry is dispatched through the plan's public `pad` (the same
tables the runtime uses) and its rows are compared with the capacity. This is independent of
the closed-form peaks the planner sized the buffers with, so it checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphfit.planner.buffers import stream_reach
from graphfit.planner.dispatch import Dispatch, static_requests
from graphfit.planner.enums import CUDAGraphMode
from graphfit.planner.errors import ConfigError
from graphfit.planner.streams import Stream

if TYPE_CHECKING:
    from graphfit.planner.plan import Plan


@dataclass(frozen=True, slots=True)
class Violation:
    """A reachable batch whose rows exceed a buffer: `buf[:padded]` would be short."""

    component: str
    buffer: str
    num_tokens: int
    padded: int
    capacity: int
    needed: int

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"


@dataclass(frozen=True, slots=True)
class ViolationRange:
    """Consecutive violating batch sizes that pad to the same size."""

    component: str
    buffer: str
    first: int
    last: int
    padded: int
    capacity: int
    needed: int

    def describe(self) -> str:
        span = f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"
        extra = f" (+{self.needed - self.padded} rows)" if self.needed != self.padded else ""
        return (f"{self.component}.{self.buffer}: num_tokens {span} pad to {self.padded}{extra}"
                f" > capacity {self.capacity}")


@dataclass(frozen=True)
class Verification:
    """Result of `Plan.verify()`: every violation, and how many checks were made."""

    violations: tuple[Violation, ...]
    checked: int
    capacities: Mapping[str, int]

    @property
    def ok(self) -> bool:
        return not self.violations

    def ranges(self) -> tuple[ViolationRange, ...]:
        out: list[ViolationRange] = []
        for v in sorted(self.violations, key=lambda v: (v.key, v.num_tokens)):
            last = out[-1] if out else None
            if (last is not None and last.component == v.component and last.buffer == v.buffer
                    and last.padded == v.padded and last.last + 1 == v.num_tokens):
                out[-1] = ViolationRange(v.component, v.buffer, last.first, v.num_tokens,
                                         v.padded, v.capacity, max(last.needed, v.needed))
            else:
                out.append(ViolationRange(v.component, v.buffer, v.num_tokens, v.num_tokens,
                                          v.padded, v.capacity, v.needed))
        return tuple(out)


def reachable_rows(plan: Plan, stream: Stream) -> list[tuple[int, int]]:
    """(num_tokens, rows) for every batch the stream can carry, rows after dispatch."""
    config = plan.config
    S, q, T = config.max_num_seqs, config.uniform_query_len, config.max_num_batched_tokens
    reach = stream_reach(config, stream)
    if stream is Stream.TARGET_TOKENS:
        rows = [(n, plan.pad(n).padded) for n in range(1, reach + 1)]
        rows += [(r * q, plan.pad(r * q, uniform_decode=True).padded)
                 for r in range(1, min(S, T // q) + 1)]
        return rows
    if stream is Stream.TARGET_REQUESTS:
        # a graph bakes in its key's request rows (PIECEWISE: min(padded, S), see
        # static_requests); an eager batch has only its real requests
        def rows_of(real: int, d: Dispatch) -> int:
            baked = static_requests(d, S) if d.mode is not CUDAGraphMode.NONE else 0
            return max(real, baked)

        out = [(n, rows_of(min(n, S), plan.pad(n, num_reqs=min(n, S))))
               for n in range(1, T + 1)]
        out += [(r * q, rows_of(r, plan.pad(r * q, uniform_decode=True)))
                for r in range(1, min(S, T // q) + 1)]
        return out
    if stream in (Stream.DRAFTER_TOKENS, Stream.DRAFT_QUERY):
        return [(n, plan.pad(n, component="drafter").padded) for n in range(1, reach + 1)]
    return [(n, n) for n in range(1, reach + 1)]


def checked_capacities(plan: Plan, overrides: Mapping[str, int]) -> dict[str, int]:
    """Every buffer's capacity, with the audited overrides validated and applied."""
    caps = {b.key: b.capacity for c in plan.components.values() for b in c.buffers}
    for key, value in overrides.items():
        plan.buffer(key)  # raises ConfigError naming the unknown buffer
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"capacity: {key} must be a non-negative integer, got {value!r}")
        caps[key] = value
    return caps


def verify_plan(plan: Plan, overrides: Mapping[str, int]) -> Verification:
    caps = checked_capacities(plan, overrides)
    cache: dict[Stream, list[tuple[int, int]]] = {}
    violations: list[Violation] = []
    checked = 0
    for component in plan.components.values():
        for buf in component.buffers:
            capacity = caps[buf.key]
            seen: set[tuple[int, int]] = set()
            for demand in buf.demands:
                stream, offset = demand.stream, demand.offset
                if stream not in cache:
                    cache[stream] = reachable_rows(plan, stream)
                batches = cache[stream]
                checked += len(batches)
                limit = capacity - offset
                for n, rows in batches:
                    if rows > limit and (n, rows) not in seen:
                        seen.add((n, rows))
                        violations.append(Violation(component.name, buf.name, n, rows,
                                                    capacity, rows + offset))
    return Verification(tuple(violations), checked, caps)

