"""Shared helpers for the benchmark scripts: best-of timing and Markdown tables.

Benchmarks print tables (paste them into the README); they assert nothing about speed, so a
slow machine never fails a build.
"""

from __future__ import annotations

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
