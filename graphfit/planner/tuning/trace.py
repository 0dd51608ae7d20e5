"""Batch-size traces: the empirical distribution of batch sizes per engine step.

The optimiser only needs "how often does a step carry n tokens (or n requests, for engines
that capture per batch size)", so every input format is reduced to one `Trace`: distinct
sizes with positive weights. Reading files (CSV, JSON, vLLM's `--cudagraph-metrics` log,
Prometheus text) is the inputs layer's job (`graphfit.inputs.traces`, bounded and strict);
sizes and weights are bounded here too, so sums and means stay finite.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_FLOAT, MAX_INT


@dataclass(frozen=True)
class Trace:
    """Distinct batch sizes (ascending, >= 1) and their weights (> 0; counts or probabilities).

    Integer weights stay integers, so costs computed from a sampled trace are exact.
    """

    sizes: tuple[int, ...]
    weights: tuple[float, ...]
    source: str = "trace"

    def __post_init__(self) -> None:
        where = f"trace {self.source}"
        if not self.sizes:
            raise ConfigError(f"{where}: no batch sizes with a positive weight")
        if len(self.sizes) != len(self.weights):
            raise ConfigError(f"{where}: {len(self.sizes)} sizes but {len(self.weights)} weights")
        for n in self.sizes:
            check_size(where, n)
        if any(a >= b for a, b in pairwise(self.sizes)):
            raise ConfigError(f"{where}: sizes must be ascending and distinct")
        for w in self.weights:
            check_weight(where, w)
            if w == 0:
                raise ConfigError(f"{where}: weights must be > 0 (drop zero-weight sizes)")

    @classmethod
    def from_samples(cls, samples: Iterable[int], source: str = "trace") -> Trace:
        """One entry per engine step: the step's num_tokens."""
        where = f"trace {source}"
        counts: Counter[int] = Counter()
        for n in samples:
            counts[check_size(where, n)] += 1
        return cls._from_counts(counts, source)

    @classmethod
    def from_weights(cls, weights: Mapping[int, float], source: str = "trace") -> Trace:
        """A distribution: num_tokens -> weight (a count or a probability; zeros dropped)."""
        where = f"trace {source}"
        checked: dict[int, float] = {}
        for n, w in weights.items():
            checked[check_size(where, n)] = check_weight(where, w)
        return cls._from_counts(checked, source)

    @classmethod
    def _from_counts(cls, counts: Mapping[int, float], source: str) -> Trace:
        items = sorted((n, w) for n, w in counts.items() if w > 0)
        return cls(tuple(n for n, _ in items), tuple(w for _, w in items), source)

    @property
    def total_weight(self) -> float:
        return sum(self.weights)

    @property
    def max_size(self) -> int:
        return self.sizes[-1]

    @property
    def mean(self) -> float:
        """Expected num_tokens of a step."""
        return sum(n * w for n, w in zip(self.sizes, self.weights)) / self.total_weight

    def weight_above(self, limit: int) -> float:
        """Total weight of steps with more than `limit` tokens (they run eagerly)."""
        return sum(self.weights[bisect_right(self.sizes, limit):])

    def describe(self) -> str:
        total = self.total_weight
        whole = round(total)
        # a spread histogram sums to its step count up to rounding: still steps
        steps = (f"{whole:,} steps" if abs(total - whole) < 1e-6 * max(1, whole)
                 else f"total weight {total:g}")
        return (f"{self.source}: {steps}, {len(self.sizes):,} distinct sizes, "
                f"mean {self.mean:.1f}, max {self.max_size}")


def check_size(where: str, value: object) -> int:
    """A batch size: an int in 1..MAX_INT (bools refused), else a ConfigError naming `where`."""
    if (isinstance(value, bool) or not isinstance(value, int) or value < 1
            or value > MAX_INT):
        raise ConfigError(f"{where}: num_tokens must be a positive integer (at most "
                          f"{MAX_INT}), got {excerpt(value)}")
    return value


def check_weight(where: str, value: object) -> float:
    """A weight: a finite number in 0..MAX_FLOAT (an int up to MAX_INT), else a ConfigError
    naming `where` (bounded, so sums and means never overflow a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: a weight must be a number, got {excerpt(value)}")
    if isinstance(value, int):
        if not 0 <= value <= MAX_INT:
            raise ConfigError(f"{where}: a weight must be >= 0 (at most {MAX_INT}), got "
                              f"{excerpt(value)}")
        return value
    if not math.isfinite(value) or not 0 <= value <= MAX_FLOAT:
        raise ConfigError(f"{where}: a weight must be finite and >= 0 (at most "
                          f"{MAX_FLOAT:g}), got {excerpt(value)}")
    return value
