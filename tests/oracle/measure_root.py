"""The `[COUNT] [SEED] [GRAPHFIT_ROOT]` command line the whole-line SGLang measure scripts
share (not a test; measure_sglang_ep_rules, measure_sglang_class_picks): a before figure
scores another checkout's `graphfit` on this tree's cases and SGLang side.

This module imports no graphfit, so calling it first leaves `graphfit` unbound until the
checkout to score is on sys.path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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


def print_before_in_child(module: str, count: int, seed: int, root: str) -> None:
    """Run `tests.oracle.<module>.measure(count, seed)` in a child process whose `graphfit` is
    `root`'s and whose `tests` is this tree's, and print its last counts line (a before
    figure for the scripts whose `measure` prints a `{...}` counts dict)."""
    here = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="graphfit-before-") as shim:
        os.symlink(Path(root) / "graphfit", Path(shim) / "graphfit")
        os.symlink(here / "tests", Path(shim) / "tests")
        env = {**os.environ, "PYTHONPATH": shim}
        code = f"from tests.oracle import {module} as m; m.measure({count}, {seed})"
        # run from the shim: a `-c` child puts its working directory first on sys.path
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, check=False, cwd=shim)
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
        print(f"before ({root}):", lines[-1] if lines else result.stderr[-500:])
