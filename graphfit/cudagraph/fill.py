"""Padding fill policies: what the tail `[real, static)` of a buffer holds when a graph replays.

A graph replays the same addresses every step, so rows past the real batch still hold the
previous batch's values unless they are rewritten. Stale slot ids or request lengths there are
what crashed SGLang (#10892); filling the tail per the plan's policy on every step rules it out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from graphfit.planner.core.buffers import FillKind, FillPolicy

POISON_INT = 0x5A5A5A5A


def fill_tail(tensor: torch.Tensor, axis: int, start: int, policy: FillPolicy) -> None:
    """Fill `tensor[start:]` along `axis` in place, as `policy` says.

    keep: untouched (only for rows nothing reads); zero; sentinel: `policy.value`;
    copy-real-rows: repeat row `start - 1` (keeps cumulative offsets such as query_start_loc
    non-decreasing, i.e. padded requests are empty), zero when there is no real row.
    """
    fill = tail_filler(tensor, axis, start, policy)
    if fill is not None:
        fill()


def tail_filler(tensor: torch.Tensor, axis: int, start: int, policy: FillPolicy
                ) -> Callable[[], object] | None:
    """`fill_tail` prepared: a call that fills `tensor[start:]` (None: nothing to fill).

    The views it holds are views of `tensor`, so it fills whatever the tail is when called;
    a runner prepares one per (graph, buffer, real rows) once and reuses it every step.
    """
    length = tensor.shape[axis] - start
    if length <= 0 or policy.kind is FillKind.KEEP:
        return None
    tail = tensor.narrow(axis, start, length)
    kind = policy.kind
    if kind is FillKind.ZERO or (kind is FillKind.COPY_REAL_ROWS and start == 0):
        return tail.zero_
    if kind is FillKind.SENTINEL:
        return partial(tail.fill_, sentinel_value(policy, tensor.dtype))
    return partial(tail.copy_, tensor.narrow(axis, start - 1, 1).expand_as(tail))


def sentinel_value(policy: FillPolicy, dtype: torch.dtype) -> float | int | bool:
    """The sentinel as a Python scalar of the buffer's kind (e.g. -1 for int64 slot ids)."""
    if dtype == torch.bool:
        return bool(policy.value)
    if dtype.is_floating_point:
        return float(policy.value)
    return int(policy.value)


def poison_value(dtype: torch.dtype) -> float | int | bool:
    """A value no real row holds: NaN for floats, 0x5A5A5A5A (clipped) for ints, False for bool.

    False for bool (e.g. is_padding) makes a stale row look real, the dangerous direction.
    """
    if dtype == torch.bool:
        return False
    if dtype.is_floating_point:
        return float("nan")
    return min(POISON_INT, int(torch.iinfo(dtype).max))
