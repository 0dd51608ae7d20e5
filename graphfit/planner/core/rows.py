"""The one row rule: how many rows of a buffer one batch occupies.

A buffer needs, for a batch, the largest of `tokens + offset` over its demands on token
streams and `requests + offset` over its demands on request streams. The same rule gives a
graph's static rows (padded tokens, the key's request rows), a batch's real rows, and every
capacity (its peak over the reachable batches), in the planner and in the runtime alike.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import Demand


@dataclass(frozen=True, slots=True)
class RowRule:
    """Rows a buffer occupies for a batch of (tokens, requests); `fixed` for unscaled ones."""

    token_offsets: tuple[int, ...]
    request_offsets: tuple[int, ...]
    fixed: int | None = None

    def rows(self, tokens: int, requests: int) -> int:
        if self.fixed is not None:
            return self.fixed
        best = 0
        for offset in self.token_offsets:
            best = max(best, tokens + offset)
        for offset in self.request_offsets:
            best = max(best, requests + offset)
        return best

    @property
    def reads_requests(self) -> bool:
        return bool(self.request_offsets)

    @property
    def single(self) -> tuple[str, int] | None:
        """("tokens" | "requests", offset) when one demand pins the count (used to infer it)."""
        if self.fixed is not None or len(self.token_offsets) + len(self.request_offsets) != 1:
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
            return RowRule((), (d.offset,))
        return RowRule((d.offset,), ())
    tokens: set[int] = set()
    requests: set[int] = set()
    for d in demands:
        if d.stream in streams:
            (requests if d.stream in _REQUEST_STREAMS else tokens).add(d.offset)
    if not tokens and not requests:
        return None
    return RowRule(tuple(sorted(tokens)), tuple(sorted(requests)))
