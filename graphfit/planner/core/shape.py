"""One batch shape, and the one step from a batch to the rows it occupies.

A buffer's rows follow from two counts of a batch: its tokens and its requests
(`core.rows.RowRule.rows`). Which counts those are is decided here, once, for the walk that
sizes and proves (core.reach), the runtime that copies batches into graphs
(graphfit.cudagraph.runner) and `explain`: an eager batch occupies its real counts; a graph
replay its static ones -- the padded tokens, and the request rows the graph bakes in (never
fewer than the real requests).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.dispatch import Dispatch, static_requests
from graphfit.planner.core.enums import CUDAGraphMode

__all__ = ["BatchShape", "occupied", "real_requests"]


@dataclass(frozen=True, slots=True)
class BatchShape:
    """A batch as the buffers see it: `tokens` rows on the token axis, `requests` on the
    request axis."""

    tokens: int
    requests: int


def real_requests(tokens: int, *, uniform: bool, width: int, max_num_seqs: int) -> int:
    """The requests of a batch nobody counted: a uniform decode carries `width` tokens per
    request; a mixed batch at most one request per token, within the request pool (its
    worst case for request-axis buffers)."""
    if uniform:
        return tokens // width
    return tokens if tokens < max_num_seqs else max_num_seqs


def occupied(real: BatchShape, dispatch: Dispatch | None, max_num_seqs: int) -> BatchShape:
    """The shape a batch occupies in its component's buffers: its real one when it runs
    eagerly (`dispatch` None or mode NONE), else the graph's static one."""
    if dispatch is None or dispatch.mode is CUDAGraphMode.NONE:
        return real
    requests = static_requests(dispatch, max_num_seqs)
    return BatchShape(dispatch.padded, requests if requests > real.requests else real.requests)
