"""Capture ladders as data: sorted, unique sizes, and the padding they imply.

Which sizes an engine captures is each engine model's rule (graphfit.planner.engines); this
module only holds what every engine shares: the `Ladder` value, rounding, and the
next-size-up padding table.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import lt

from graphfit.planner.core.errors import ConfigError


@dataclass(frozen=True)
class Ladder:
    """Sorted, unique capture sizes; `max_size` is the last one (0 for an empty ladder: no
    graphs, every batch eager, as vLLM does when no listed size fits and TensorRT-LLM when no
    batch size passes its filter)."""

    sizes: tuple[int, ...]
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not all(map(lt, self.sizes, self.sizes[1:])):
            raise ConfigError("cudagraph_capture_sizes: the ladder must be sorted and unique")
        if self.sizes and self.sizes[0] < 1:
            raise ConfigError("cudagraph_capture_sizes: sizes must be >= 1")

    @property
    def max_size(self) -> int:
        return self.sizes[-1] if self.sizes else 0


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of `multiple` that is >= value."""
    return -(-value // multiple) * multiple


def padding_table(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """table[n] = smallest capture size >= n, for n in 0..max (bisect_left semantics)."""
    table = [0] * ((sizes[-1] if sizes else 0) + 1)
    n = 0
    for size in sizes:
        while n <= size:
            table[n] = size
            n += 1
    return tuple(table)
