"""Padding fill policies: what the tail `[real, static)` of a buffer holds when a graph replays.

A graph replays the same addresses every step, so rows past the real batch still hold the
previous batch's values unless they are rewritten. Stale slot ids or request lengths there are
what crashed SGLang (#10892); filling the tail per the plan's policy on every step rules it out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from graphfit.planner import ConfigError, FillKind, FillPolicy, excerpt

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
    _check_arguments(tensor, axis, start, policy)
    kind = policy.kind
    # checked even when there is no tail: a policy the buffer cannot hold is an error always
    value = sentinel_value(policy, tensor.dtype) if kind is FillKind.SENTINEL else 0
    length = tensor.shape[axis] - start
    if length <= 0 or kind is FillKind.KEEP:
        return None
    tail = tensor.narrow(axis, start, length)
    if kind is FillKind.ZERO or (kind is FillKind.COPY_REAL_ROWS and start == 0):
        return tail.zero_
    if kind is FillKind.SENTINEL:
        return partial(tail.fill_, value)
    return partial(tail.copy_, tensor.narrow(axis, start - 1, 1).expand_as(tail))


def _check_arguments(tensor: object, axis: object, start: object, policy: object) -> None:
    """ConfigError unless `fill_tail`'s arguments name a tail of a tensor with data."""
    if not isinstance(tensor, torch.Tensor):
        raise ConfigError(f"fill: expected a tensor, got {type(tensor).__name__}")
    if tensor.device.type == "meta":
        raise ConfigError("fill: a meta tensor holds no data to fill")
    if type(axis) is not int or not -tensor.dim() <= axis < tensor.dim():
        raise ConfigError(f"fill: axis must be an integer in {-tensor.dim()}.."
                          f"{tensor.dim() - 1} for a {tensor.dim()}-d tensor, got "
                          f"{excerpt(axis)}")
    if type(start) is not int or start < 0:
        raise ConfigError(f"fill: start must be an integer >= 0, got {excerpt(start)}")
    if not isinstance(policy, FillPolicy):
        raise ConfigError(f"fill: expected a FillPolicy, got {type(policy).__name__}")


def _check_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype):
        raise ConfigError(f"dtype: expected a torch.dtype, got {excerpt(dtype)}")
    return dtype


def sentinel_value(policy: FillPolicy, dtype: torch.dtype) -> float | int | bool:
    """The sentinel as a Python scalar of the buffer's kind (e.g. -1 for int64 slot ids).

    A value the dtype cannot hold exactly is refused rather than converted: 1.5 into int64
    would become 1 and -1 into bool or uint8 would become True or 255 -- a different marker
    than the plan says, which a kernel reads as a real row."""
    if not isinstance(policy, FillPolicy):
        raise ConfigError(f"fill: expected a FillPolicy, got {type(policy).__name__}")
    dtype = _check_dtype(dtype)
    value = policy.value
    if dtype == torch.bool:
        if value not in (0, 1):
            raise ConfigError(f"fill: sentinel {value!r} is not a bool (0 or 1)")
        return bool(value)
    if dtype.is_floating_point or dtype.is_complex:
        limit = torch.finfo(dtype).max
        if abs(value) > limit:
            raise ConfigError(f"fill: sentinel {value!r} is out of {dtype}'s range")
        return float(value)
    info = torch.iinfo(dtype)
    if value != int(value) or not info.min <= value <= info.max:
        raise ConfigError(f"fill: sentinel {value!r} is not an integer in {dtype}'s range "
                          f"{info.min}..{info.max}")
    return int(value)


def poison_value(dtype: torch.dtype) -> float | int | bool:
    """A value no real row holds: NaN for floats, 0x5A5A5A5A (clipped) for ints, False for bool.

    False for bool (e.g. is_padding) makes a stale row look real, the dangerous direction.
    """
    dtype = _check_dtype(dtype)
    if dtype == torch.bool:
        return False
    if dtype.is_floating_point:
        return float("nan")
    return min(POISON_INT, int(torch.iinfo(dtype).max))
