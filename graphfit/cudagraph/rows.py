"""Row accounting: how many rows of a buffer one batch occupies, real and padded.

A buffer's rows follow its plan demands: each demand on a padded token stream adds
`tokens + offset`, each demand on a request stream `requests + offset`; the buffer needs the
largest. The same rule gives the real rows (real token and request counts) and the static rows
a graph bakes in (the dispatch's padded tokens and its request key), so the padded tail is
exactly `[real, static)`.

Buffers fed only by never-padded token streams (DFlash's context) have no rule: their size
varies independently of the dispatch, so no graph can read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.buffers import Axis
from graphfit.planner.dispatch import static_requests
from graphfit.planner.plan import BufferPlan

__all__ = ["RowRule", "row_rule", "static_requests"]


@dataclass(frozen=True, slots=True)
class RowRule:
    """Rows a buffer occupies for a batch of (tokens, requests); `fixed` for unscaled buffers."""

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


def row_rule(buf: BufferPlan) -> RowRule | None:
    """The buffer's rule, or None when only never-padded token streams (context) feed it."""
    if buf.axis is Axis.FIXED:
        return RowRule((), (), fixed=buf.capacity)
    tokens = tuple(d.offset for d in buf.demands if d.stream.padded)
    requests = tuple(d.offset for d in buf.demands if d.stream.on_requests)
    if not tokens and not requests:
        return None
    return RowRule(tokens, requests)
