"""Padding waste: how many computed tokens are padding, over a family of batches.

Computed segment by segment from the dispatch tables (each segment pads to one size or runs
eagerly), so a family of a million batches costs as much as its capture sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.dispatch import DispatchTables, Segment
from graphfit.planner.core.enums import CUDAGraphMode


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


def family_stats(label: str, family: BatchFamily, tables: DispatchTables,
                 last: int | None = None, segments: Sequence[Segment] | None = None
                 ) -> PaddingStats:
    """Real vs padded tokens and graph modes over the family's batches (up to `last` units).

    `segments`: the family's whole walk through `tables` when the caller has it already.
    """
    top = family.last if last is None else min(family.last, last)
    real = padded = batches = worst = worst_n = 0
    modes: dict[CUDAGraphMode, int] = {}
    step = family.step
    none = CUDAGraphMode.NONE
    if top >= family.first:
        if segments is None or top != family.last:
            segments = tables.segments(step, family.first, top, uniform=family.uniform)
        for lo, hi, d in segments:
            count = hi - lo + 1
            tokens = step * (lo + hi) * count // 2
            batches += count
            real += tokens
            if d is None:
                padded += tokens
                modes[none] = modes.get(none, 0) + count
                continue
            padded += d.padded * count
            modes[d.mode] = modes.get(d.mode, 0) + count
            waste = d.padded - step * lo
            if waste > worst:
                worst, worst_n = waste, step * lo
    by_name = sorted((mode.value, count) for mode, count in modes.items())
    return PaddingStats(label, batches, real, padded, worst, worst_n, tuple(by_name))
