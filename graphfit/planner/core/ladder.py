"""Capture ladders as data: sorted, unique sizes, and the padding they imply.

Which sizes an engine captures is each engine model's rule (graphfit.planner.engines); this
module only holds what every engine shares: the `Ladder` value, rounding, and the
next-size-up padding table.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import lt

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES, MAX_PADDING_TABLE


@dataclass(frozen=True)
class Ladder:
    """Sorted, unique capture sizes; `max_size` is the last one (0 for an empty ladder: no
    graphs, every batch eager, as vLLM does when no listed size fits and TensorRT-LLM when no
    batch size passes its filter)."""

    sizes: tuple[int, ...]
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.sizes, tuple) or not all(type(s) is int for s in self.sizes):
            raise ConfigError(f"cudagraph_capture_sizes: a ladder is a tuple of integers, got "
                              f"{excerpt(self.sizes)}")
        if not isinstance(self.warnings, tuple) or not all(
                isinstance(w, str) for w in self.warnings):
            raise ConfigError(f"ladder warnings: a tuple of strings, got "
                              f"{excerpt(self.warnings)}")
        if not all(map(lt, self.sizes, self.sizes[1:])):
            raise ConfigError("cudagraph_capture_sizes: the ladder must be sorted and unique")
        if self.sizes and self.sizes[0] < 1:
            raise ConfigError("cudagraph_capture_sizes: sizes must be >= 1")

    @property
    def max_size(self) -> int:
        return self.sizes[-1] if self.sizes else 0


def check_size_count(count: int, what: str) -> None:
    """ConfigError when a ladder would hold more than MAX_CAPTURE_SIZES sizes; engine models
    call it with the count their rule gives (len() of a range: O(1)) before building the
    ladder, so `--cuda-graph-max-bs 10**9` is refused at once, never enumerated."""
    if count > MAX_CAPTURE_SIZES:
        raise ConfigError(f"{what}: the ladder would hold {count:,} capture sizes; graphfit "
                          f"plans at most {MAX_CAPTURE_SIZES:,} (engines capture hundreds)")


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of `multiple` that is >= value."""
    return -(-value // multiple) * multiple


def padding_table(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """table[n] = smallest capture size >= n, for n in 0..max (bisect_left semantics).

    One entry per batch size: at most MAX_PADDING_TABLE of them (use `Plan.pad` beyond)."""
    if not isinstance(sizes, (tuple, list)) or any(type(s) is not int for s in sizes):
        raise ConfigError("padding_table: expected sorted capture sizes (integers)")
    Ladder(tuple(sizes))  # sorted, unique, >= 1
    top = sizes[-1] if sizes else 0
    if top >= MAX_PADDING_TABLE:
        raise ConfigError(f"padding_table: {top:,} entries; at most {MAX_PADDING_TABLE:,} "
                          "(Plan.pad answers any batch size)")
    table = [0] * (top + 1)
    n = 0
    for size in sizes:
        while n <= size:
            table[n] = size
            n += 1
    return tuple(table)
