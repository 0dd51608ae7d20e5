"""Walking reachable batches: the one enumeration behind capacities, proofs and graph keys.

Every family of a component is dispatched through the component's tables segment by segment
(`DispatchTables.segments`). Within a segment a buffer's rows never decrease as the batch
grows (eager batches grow, graph batches keep their static rows), so a segment's peak is its
last batch and the batches over a capacity are a suffix found by bisection: the cost is
O(capture sizes x buffers x log T), whatever T is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.dispatch import DispatchTables, GraphKey, Segment, static_requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.rows import RowRule


@dataclass(frozen=True, slots=True)
class Reached:
    """A segment of one family's batches, as the buffers see it."""

    family: BatchFamily
    segment: Segment

    @property
    def first(self) -> int:
        return self.segment.first

    @property
    def last(self) -> int:
        return self.segment.last

    @property
    def graph(self) -> bool:
        return self.segment.dispatch is not None

    def count(self) -> int:
        return self.last - self.first + 1

    def tokens(self, a: int) -> int:
        """Real tokens of the batch of `a` units."""
        return self.family.step * a

    def rows(self, rule: RowRule, a: int, max_num_seqs: int) -> int:
        """Rows the batch of `a` units occupies under `rule` (static rows when graphed)."""
        real = self.family.requests_at(a, max_num_seqs)
        d = self.segment.dispatch
        if d is None:
            return rule.rows(self.family.step * a, real)
        return rule.rows(d.padded, max(static_requests(d, max_num_seqs), real))

    def first_over(self, rule: RowRule, limit: int, max_num_seqs: int) -> int | None:
        """The smallest a whose rows exceed `limit` (rows never fall as a grows), or None."""
        if self.rows(rule, self.last, max_num_seqs) <= limit:
            return None
        lo, hi = self.first, self.last
        while lo < hi:
            mid = (lo + hi) // 2
            if self.rows(rule, mid, max_num_seqs) > limit:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def last_with_tail(self, max_num_seqs: int) -> int | None:
        """The largest a whose graph replay has padded rows (tokens or requests), or None."""
        d = self.segment.dispatch
        if d is None:
            return None
        static = static_requests(d, max_num_seqs)

        def full(a: int) -> bool:
            return (self.family.step * a >= d.padded
                    and self.family.requests_at(a, max_num_seqs) >= static)

        top = self.last if not full(self.last) else self.last - 1
        return top if top >= self.first and not full(top) else None


def reach(families: Sequence[BatchFamily], tables: DispatchTables) -> Iterator[Reached]:
    """Every segment of batches that touches the component's buffers or graphs."""
    for family in families:
        if family.empty:
            continue
        if not family.padded:
            yield Reached(family, Segment(family.first, family.last, None))
            continue
        if family.points is not None:
            parts: Iterator[Segment] = (
                seg for p in family.points
                for seg in tables.segments(family.step, p, p, uniform=family.uniform))
        else:
            parts = tables.segments(family.step, family.first, family.last,
                                    uniform=family.uniform)
        for seg in parts:
            if seg.dispatch is None and not family.eager_writes:
                continue  # eager batches of this family never touch the buffers
            yield Reached(family, seg)


def graph_keys(families: Sequence[BatchFamily], tables: DispatchTables
               ) -> dict[GraphKey, tuple[CUDAGraphMode, ...]]:
    """Every static shape a reachable batch replays, with the modes that replay it."""
    found: dict[GraphKey, dict[CUDAGraphMode, None]] = {}
    for part in reach(families, tables):
        d = part.segment.dispatch
        if d is not None:
            key = GraphKey(d.padded, static_requests(d, tables.max_num_seqs))
            found.setdefault(key, {})[d.mode] = None
    return {key: tuple(found[key]) for key in sorted(found)}
