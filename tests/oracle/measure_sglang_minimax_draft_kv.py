"""Measure graphfit's MiniMax-M3 KV price with a DFLASH / DSPARK draft's own pool against
SGLang's (`_compute_cell_size` + `resolve_dflash_draft_cell_size` +
`scale_kv_cell_size_per_token_for_dflash`, tests/oracle/sglang_minimax_draft_kv_oracle):
`python -m tests.oracle.measure_sglang_minimax_draft_kv [COUNT] [SEED] [BEFORE]` (default 60
draws, seed 23) from the test module's `draw` (DSPARK / DFLASH, the draft's layers, KV heads,
head_dim / v_head_dim, is_causal, TP / attention DP, H100 / B200, target and draft KV dtypes,
the fa4 draft backend, a MiniMax M3.1 draft). It prints how many lines SGLang prices /
refuses and how many graphfit's per-stage totals and page agree with.

BEFORE, a repository root (e.g. /work/main), also pastes each priced line into that tree's
`graphfit plan` (a child process a line) and counts the lines whose output states SGLang's
per-token figure ("<N> B a token"), printed first."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from collections import Counter
from typing import Any

from tests.oracle import test_sglang_minimax_draft_kv_oracle as d
from tests.oracle import test_sglang_minimax_kv_oracle as t


def _before_states(root: str, c: dict[str, Any], totals: tuple[int, ...]) -> bool:
    """Whether `root`'s graphfit plan of the pasted line states every stage's figure."""
    line = ["python", "-m", "sglang.launch_server", "--model-path", t.path_of(c),
            *t.argv_of(c)]
    out = subprocess.run(
        [sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", c["gpu"], "--",
         shlex.join(line)], capture_output=True, text=True, check=False, cwd=root,
        env={**os.environ, "PYTHONPATH": root, "COLUMNS": "400"})
    text = " ".join((out.stdout + out.stderr).split())
    return all(f"{total} B a token" in text for total in totals)


def main(count: int = 60, seed: int = 23, root: str | None = None) -> None:
    rng = random.Random(seed)
    after: Counter[str] = Counter()
    before: Counter[str] = Counter()
    for _ in range(count):
        c = d.draw(rng)
        outcome, theirs, ours = d.verdict(c)
        after[outcome] += 1
        if outcome == "sglang refuses":
            print("sglang refuses:", str(theirs)[:160], "| graphfit:", str(ours)[:80])
        if outcome == "differ":
            print("differs:", theirs, ours, t.argv_of(c), c["gpu"])
        if root and not isinstance(theirs, str):
            before["states it" if _before_states(root, c, theirs[0]) else "no figure"] += 1
    if root:
        print(f"before ({root}): {dict(sorted(before.items()))}")
    print(f"after (this tree): {dict(sorted(after.items()))}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 60, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
