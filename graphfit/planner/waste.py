"""Padding waste: how many computed tokens are padding, per stream and per ladder."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graphfit.planner.dispatch import Dispatch


@dataclass(frozen=True)
class PaddingStats:
    """Waste over a set of batch sizes, each weighted equally.

    `waste_fraction` is padded tokens / computed tokens over the whole set (eager batches
    count as computed, unpadded).
    """

    label: str
    batches: int
    real_tokens: int
    padded_tokens: int
    worst_waste: int
    worst_num_tokens: int
    modes: tuple[tuple[str, int], ...]

    @property
    def waste_tokens(self) -> int:
        return self.padded_tokens - self.real_tokens

    @property
    def waste_fraction(self) -> float:
        return self.waste_tokens / self.padded_tokens if self.padded_tokens else 0.0

    @property
    def mean_waste(self) -> float:
        return self.waste_tokens / self.batches if self.batches else 0.0


def padding_stats(label: str, sizes: Iterable[int],
                  dispatch: Callable[[int], Dispatch]) -> PaddingStats:
    """Dispatch each size and total up real vs padded tokens and the graph modes used."""
    real = padded = batches = worst = 0
    worst_n = 0
    modes: Counter[str] = Counter()
    for n in sizes:
        d = dispatch(n)
        batches += 1
        real += n
        padded += d.padded
        modes[d.mode.value] += 1
        if d.padded - n > worst:
            worst, worst_n = d.padded - n, n
    return PaddingStats(label, batches, real, padded, worst, worst_n,
                        tuple(sorted(modes.items())))
