"""Pad lookup cost: graphfit's precomputed tables vs a bisect over the capture sizes.

    python benchmarks/bench_pad.py

vLLM's dispatcher also precomputes a table; the bisect column is what a naive per-step
`sizes[bisect_left(sizes, n)]` costs. `Plan.pad` does more than either: it validates the
batch and returns a full Dispatch (mode, padded size, request key) for the component.
Times are per lookup over random batch sizes.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable

from common import best_of, table

from graphfit import EngineConfig, padding_table, plan

N = 100_000


def _lookup_ns(batch: list[int], sizes: tuple[int, ...], pad: Callable[[int], object],
               lookup: Callable[[int], object]) -> dict[str, float]:
    """ns per lookup for each method, with the bare loop's cost subtracted."""
    table_ = padding_table(sizes)

    def via_plan() -> None:
        for n in batch:
            pad(n)

    def via_tables() -> None:
        for n in batch:
            lookup(n)

    def via_table() -> None:
        for n in batch:
            table_[n]

    def via_bisect() -> None:
        for n in batch:
            sizes[bisect_left(sizes, n)]

    def loop_only() -> None:
        for _ in batch:
            pass

    empty = best_of(loop_only, repeat=7) / N
    return {name: (best_of(fn, repeat=7) / N - empty) * 1e9 for name, fn in (
        ("plan", via_plan), ("tables", via_tables), ("table", via_table),
        ("bisect", via_bisect))}


def pad_times() -> str:
    rows = []
    for label, config in (
            ("S=256", EngineConfig(max_num_seqs=256)),
            ("S=33 dflash k=3", EngineConfig(
                max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")),
            ("S=512 blackwell", EngineConfig(max_num_seqs=512, ceiling_family="blackwell"))):
        p = plan(config)
        sizes = p.capture_sizes
        label = f"{label} ({len(sizes)} graphs, max {sizes[-1]})"
        rng = random.Random(0)
        batch = [rng.randint(1, sizes[-1]) for _ in range(N)]
        ns = _lookup_ns(batch, sizes, p.pad, p.component("target").tables.lookup)
        rows.append((label, f"{ns['plan']:.0f}", f"{ns['tables']:.0f}", f"{ns['table']:.0f}",
                     f"{ns['bisect']:.0f}", f"{ns['bisect'] / max(ns['table'], 1e-9):.1f}x"))
    return table("Pad lookup, ns per call (loop overhead subtracted; best of 7)",
                 ["ladder", "Plan.pad (full Dispatch)", "DispatchTables.lookup",
                  "padding table[n]", "bisect baseline", "bisect / table"], rows)


if __name__ == "__main__":
    print(pad_times())
