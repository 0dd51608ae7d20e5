"""Batch streams: the sets of batch sizes that can reach a buffer, and how they are padded.

A buffer's capacity is the peak of the streams feeding it. The peak has a closed form
(padding is monotone, so the largest reachable batch pads the most); verification checks
that form against every reachable batch one by one.
"""

from __future__ import annotations

from enum import Enum


class Stream(str, Enum):
    """Which batches reach a buffer, on which axis, through which dispatcher."""

    TARGET_TOKENS = "target_tokens"  # 1..T tokens, mixed and uniform, target dispatcher
    TARGET_REQUESTS = "target_requests"  # request rows, incl. FULL graph num_reqs keys
    DRAFTER_TOKENS = "drafter_tokens"  # drafter passes, 1..T (+S for draft_model)
    DRAFT_QUERY = "draft_query"  # DFlash query tokens 1..S*q, drafter dispatcher
    CONTEXT = "context"  # context tokens 1..T, never padded
    DRAFTER_REQUESTS = "drafter_requests"  # 1..S request rows, never padded

    @property
    def padded(self) -> bool:
        return self in (Stream.TARGET_TOKENS, Stream.DRAFTER_TOKENS, Stream.DRAFT_QUERY)

    @property
    def on_requests(self) -> bool:
        return self in (Stream.TARGET_REQUESTS, Stream.DRAFTER_REQUESTS)


def padded_peak(n_max: int, table: tuple[int, ...]) -> int:
    """Largest padded size of batches 1..n_max under a monotone padding table."""
    return table[n_max] if n_max < len(table) else n_max
