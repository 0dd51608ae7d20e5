"""The one row rule: how many rows of a buffer one batch occupies.

A buffer needs, for a batch, the largest of `tokens * scale + offset` over its demands on
token streams and `requests * scale + offset` over its demands on request streams (the scale
is 1 except for flat buffers holding several entries per token). The same rule gives a
graph's static rows (padded tokens, the key's request rows), a batch's real rows, and every
capacity (its peak over the reachable batches), in the planner and in the runtime alike.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import Demand
from graphfit.planner.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class RowRule:
    """Rows a buffer occupies for a batch of (tokens, requests); `fixed` for unscaled ones."""

    token_offsets: tuple[int, ...]
    request_offsets: tuple[int, ...]
    fixed: int | None = None
    token_scale: int = 1
    request_scale: int = 1
    graph_only: bool = False  # read only by graph replays (a graph runner's private inputs)

    def rows(self, tokens: int, requests: int) -> int:
        if self.fixed is not None:
            return self.fixed
        best = 0
        for offset in self.token_offsets:
            best = max(best, tokens * self.token_scale + offset)
        for offset in self.request_offsets:
            best = max(best, requests * self.request_scale + offset)
        return best

    @property
    def reads_requests(self) -> bool:
        return bool(self.request_offsets)

    @property
    def single(self) -> tuple[str, int] | None:
        """("tokens" | "requests", offset) when one demand pins the count (used to infer it)."""
        if self.fixed is not None or len(self.token_offsets) + len(self.request_offsets) != 1:
            return None
        if self.token_scale != 1 or self.request_scale != 1:
            return None
        if self.token_offsets:
            return "tokens", self.token_offsets[0]
        return "requests", self.request_offsets[0]


_REQUEST_STREAMS = frozenset(s for s in Stream if s.on_requests)


def rule_for(demands: Iterable[Demand], streams: Collection[Stream]) -> RowRule | None:
    """The rule of the demands on `streams`; None when the buffer reads none of them."""
    if type(demands) is tuple and len(demands) == 1:  # most buffers: one demand
        d = demands[0]
        if d.stream not in streams:
            return None
        if d.stream in _REQUEST_STREAMS:
            return RowRule((), (d.offset,), request_scale=d.scale)
        return RowRule((d.offset,), (), token_scale=d.scale, graph_only=d.stream.graph_only)
    tokens: set[int] = set()
    requests: set[int] = set()
    scales: tuple[set[int], set[int]] = (set(), set())
    graph_only: set[bool] = set()
    for d in demands:
        if d.stream in streams:
            on_requests = d.stream in _REQUEST_STREAMS
            (requests if on_requests else tokens).add(d.offset)
            scales[int(on_requests)].add(d.scale)
            graph_only.add(d.stream.graph_only)
    if not tokens and not requests:
        return None
    if len(scales[0]) > 1 or len(scales[1]) > 1:
        raise ConfigError("demands: one scale per axis (a flat buffer has one row layout)")
    if len(graph_only) > 1:
        raise ConfigError("demands: a buffer is a graph runner's own or shared, not both")
    return RowRule(tuple(sorted(tokens)), tuple(sorted(requests)),
                   token_scale=min(scales[0], default=1), request_scale=min(scales[1], default=1),
                   graph_only=graph_only.pop())
