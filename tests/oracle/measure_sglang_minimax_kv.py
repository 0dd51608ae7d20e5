"""Measure graphfit's MiniMax-M3 sparse KV price against SGLang's own `_compute_cell_size`:
`python -m tests.oracle.measure_sglang_minimax_kv [COUNT] [SEED] [BEFORE]` (default 60 draws,
seed 23) from the test module's `draw` (layer kinds, KV heads, head / index dims, TP /
attention DP / PP, KV dtype, backend flag, H100 / B200 / A100, the kill switch, the VL
wrapper). It prints how many lines SGLang prices / refuses and how many graphfit's per-stage
prices and page agree with.

BEFORE, a repository root (e.g. /work/main), also pastes each priced line into that tree's
`graphfit plan` (a child process a line, its own `graphfit`) and counts the lines whose
output states SGLang's per-token figure ("<N> B a token"), printed first."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.oracle import test_sglang_minimax_kv_oracle as t
from tests.oracle.before_tree import frozen


def before_states(root: str, c: dict[str, Any], totals: tuple[int, ...]) -> bool:
    """Whether `root`'s graphfit plan of the pasted line states every stage's figure."""
    out = subprocess.run(
        [sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", c["gpu"], "--",
         shlex.join(t.pasted_line(c))], capture_output=True, text=True, check=False, cwd=root,
        env={**os.environ, "PYTHONPATH": root, "COLUMNS": "400"})
    text = " ".join((out.stdout + out.stderr).split())
    return all(f"{total} B a token" in text for total in totals)


def _states_totals(root: str, c: dict[str, Any], theirs: Any) -> bool:
    return before_states(root, c, theirs[0])


def measure(draw: Callable[[random.Random], dict[str, Any]],
            verdict: Callable[[dict[str, Any]], tuple[str, Any, Any]],
            shown: Callable[[dict[str, Any]], tuple[Any, ...]],
            count: int, seed: int, root: str | None,
            states: Callable[[str, dict[str, Any], Any], bool] = _states_totals,
            labels: tuple[str, str] = ("states it", "no figure"),
            ours_width: int | None = None) -> None:
    """COUNT drawn cases' verdicts (a differing case printed with `shown(c)`, graphfit's
    answer cut to `ours_width`), with BEFORE `root` the lines its graphfit states SGLang's
    figure on (`states`, counted under `labels`); shared with the draft KV and KV quant
    measures (issue 23, s56x)."""
    rng = random.Random(seed)
    after: Counter[str] = Counter()
    before: Counter[str] = Counter()
    for _ in range(count):
        c = draw(rng)
        outcome, theirs, ours = verdict(c)
        after[outcome] += 1
        if outcome == "sglang refuses":
            print("sglang refuses:", str(theirs)[:160], "| graphfit:", str(ours)[:80])
        if outcome == "differ":
            print("differs:", theirs, ours if ours_width is None else str(ours)[:ours_width],
                  *shown(c))
        if root and not isinstance(theirs, str):
            before[labels[0] if states(frozen(root), c, theirs) else labels[1]] += 1
    if root:
        print(f"before ({root}): {dict(sorted(before.items()))}")
    print(f"after (this tree): {dict(sorted(after.items()))}")


def main(count: int = 60, seed: int = 23, root: str | None = None) -> None:
    measure(t.draw, t.verdict,
            lambda c: (t.argv_of(c), c["gpu"], c["env"], c["fields"]), count, seed, root)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 60, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
