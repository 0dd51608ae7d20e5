"""Walking reachable batches: the one enumeration behind capacities, proofs and graph keys.

Every family of a component is dispatched through the component's tables segment by segment
(`DispatchTables.segments`). Within a segment a buffer's rows never decrease as the batch
grows (eager batches grow, graph batches keep their static rows), so a segment's peak is its
last batch and the batches over a capacity are a suffix found by bisection. A component is
walked once (`walk`): each family keeps its reached segments and the most token and request
rows they occupy, from which any buffer's peak follows in O(1). Sizing costs O(capture sizes
+ families x buffers); a proof walks segments only for a family that goes short.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.dispatch import DispatchTables, GraphKey, Segment, static_requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.rows import RowRule
from graphfit.planner.core.shape import BatchShape, occupied


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

    def shape(self, a: int, max_num_seqs: int) -> BatchShape:
        """The shape the batch of `a` units occupies (static when graphed: core.shape)."""
        real = BatchShape(self.family.step * a, self.family.requests_at(a, max_num_seqs))
        return occupied(real, self.segment.dispatch, max_num_seqs)

    def rows(self, rule: RowRule, a: int, max_num_seqs: int) -> int:
        """Rows the batch of `a` units occupies under `rule` (static rows when graphed)."""
        shape = self.shape(a, max_num_seqs)
        return rule.rows(shape.tokens, shape.requests)

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


@dataclass(frozen=True, slots=True)
class FamilyWalk:
    """One family's reached segments, walked once per component and shared by sizing, the
    proof and the graph keys.

    `top_tokens` / `top_requests` are the most token / request rows any reached batch
    occupies (padded tokens and the key's request rows on a graph, real ones eagerly);
    `graph_tokens` / `graph_requests` the same over graph replays only (what a graph runner's
    private inputs see). A rule's rows are `max(tokens * scale + its largest token offset,
    requests * scale + its largest request offset)`, so `peak(rule)` is exact for the whole
    family in O(1).
    """

    family: BatchFamily
    segments: tuple[Segment, ...]
    count: int
    top_tokens: int
    top_requests: int
    graph_tokens: int = 0
    graph_requests: int = 0

    @property
    def parts(self) -> tuple[Reached, ...]:
        """The reached segments with their family (built on demand: the proof needs them
        only for a family that goes short)."""
        return tuple(Reached(self.family, seg) for seg in self.segments)

    def peak(self, rule: RowRule) -> int | None:
        """The most rows any reached batch of the family needs under `rule` (None: none
        is reached)."""
        if not self.segments:
            return None
        if rule.fixed is not None:
            return rule.fixed
        tokens, requests = self.top_tokens, self.top_requests
        if rule.graph_only:
            if not any(seg.dispatch is not None for seg in self.segments):
                return None
            tokens, requests = self.graph_tokens, self.graph_requests
        best = 0
        if rule.token_offsets:
            best = tokens * rule.token_scale + max(rule.token_offsets)
        if rule.request_offsets:
            best = max(best, requests * rule.request_scale + max(rule.request_offsets))
        return best


def _segments(family: BatchFamily, tables: DispatchTables) -> list[Segment]:
    if not family.padded:
        if family.points is not None:  # each listed batch runs eagerly at its own size
            return [Segment(p, p, None) for p in family.points]
        return [Segment(family.first, family.last, None)]
    if family.points is not None:
        return [seg for p in family.points
                for seg in tables.segments(family.step, p, p, uniform=family.uniform)]
    return tables.segments(family.step, family.first, family.last, uniform=family.uniform)


def walk_family(family: BatchFamily, tables: DispatchTables) -> FamilyWalk:
    """The segments of `family` that touch the component's buffers or graphs."""
    if family.empty:
        return FamilyWalk(family, (), 0, 0, 0)
    S = tables.max_num_seqs
    step = family.step
    skip_eager = family.padded and not family.eager_writes
    segments = _segments(family, tables)
    kept: list[Segment] = []
    count = top_tokens = top_requests = graph_tokens = graph_requests = 0
    for seg in segments:
        first, last, d = seg
        if d is None and skip_eager:
            continue  # eager batches of this family never touch the buffers
        # a segment's last batch occupies the most rows of it (core.shape)
        shape = occupied(BatchShape(step * last, family.requests_at(last, S)), d, S)
        tokens, requests = shape.tokens, shape.requests
        if d is not None:
            if tokens > graph_tokens:
                graph_tokens = tokens
            if requests > graph_requests:
                graph_requests = requests
        if skip_eager:
            kept.append(seg)
        count += last - first + 1
        if tokens > top_tokens:
            top_tokens = tokens
        if requests > top_requests:
            top_requests = requests
    return FamilyWalk(family, tuple(kept if skip_eager else segments), count, top_tokens,
                      top_requests, graph_tokens, graph_requests)


def walk(families: Sequence[BatchFamily], tables: DispatchTables) -> tuple[FamilyWalk, ...]:
    """Every family of a component, walked through its tables."""
    return tuple(walk_family(f, tables) for f in families)


def graph_keys(walks: Sequence[FamilyWalk], max_num_seqs: int
               ) -> dict[GraphKey, tuple[CUDAGraphMode, ...]]:
    """Every static shape a reachable batch replays, with the modes that replay it."""
    found: dict[GraphKey, dict[CUDAGraphMode, None]] = {}
    for fw in walks:
        for seg in fw.segments:
            d = seg.dispatch
            if d is not None:
                key = GraphKey(d.padded, static_requests(d, max_num_seqs))
                found.setdefault(key, {})[d.mode] = None
    return {key: tuple(found[key]) for key in sorted(found)}
