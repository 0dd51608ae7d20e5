"""The `[COUNT] [SEED] [GRAPHFIT_ROOT]` command line the whole-line SGLang measure scripts
share (not a test; measure_sglang_ep_rules, measure_sglang_class_picks): a before figure
scores another checkout's `graphfit` on this tree's cases and SGLang side.

This module imports no graphfit, so calling it first leaves `graphfit` unbound until the
checkout to score is on sys.path.
"""

from __future__ import annotations

import sys
from pathlib import Path


def count_seed_root(argv: list[str], default_count: int) -> tuple[int, int]:
    """COUNT (default `default_count`) and SEED (default 23); with GRAPHFIT_ROOT, `graphfit`
    is imported from that checkout while the `tests` package stays this tree's."""
    count = int(argv[0]) if argv else default_count
    seed = int(argv[1]) if len(argv) > 1 else 23
    if len(argv) > 2:
        here = str(Path(__file__).resolve().parents[2])
        sys.path.insert(0, argv[2])
        import graphfit  # bound to GRAPHFIT_ROOT's package

        sys.path.insert(0, here)  # the tests package stays this tree's
        print(f"graphfit from {Path(graphfit.__file__).parent}")
    return count, seed


def print_counts(count: int, seed: int, counts: dict[str, int], lines: list[str]) -> None:
    """The agree / differ / not-modelled line, then the first 12 lines that are not
    "not modelled" (the differing ones)."""
    print(f"{count} lines (seed {seed}): {counts['agree']} agree, {counts['differ']} differ, "
          f"{counts['not modelled']} not modelled")
    for line in [x for x in lines if not x.startswith("not modelled")][:12]:
        print("  " + line)
