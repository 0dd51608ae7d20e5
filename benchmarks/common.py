"""Shared helpers for the benchmark scripts: best-of timing and Markdown tables.

Benchmarks print tables (paste them into the README); they assert nothing about speed, so a
slow machine never fails a build.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python benchmarks/x.py` from a checkout
    sys.path.insert(0, str(ROOT))


def best_of(fn: Callable[[], object], *, repeat: int = 5, number: int = 1) -> float:
    """Seconds per call: the best of `repeat` rounds of `number` calls (least noisy)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def median_of(fn: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Seconds per call: the median of `repeat` rounds of `number` calls (robust to a busy
    machine; the issue's figures are medians)."""
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - start) / number)
    return statistics.median(rounds)


def paired_medians(fns: Sequence[Callable[[], object]], *, repeat: int = 9,
                   number: int = 1) -> list[float]:
    """Seconds per call of each fn: rounds alternate between them, so a figure and its
    reference see the same machine load; the median round of each is returned."""
    rounds: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            rounds[i].append((time.perf_counter() - start) / number)
    return [statistics.median(r) for r in rounds]


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table with a bold title line."""
    lines = [f"**{title}**", "", "| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def fmt_seconds(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"
