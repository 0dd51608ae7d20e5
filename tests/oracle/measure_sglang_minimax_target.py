"""Measure graphfit against SGLang's own MiniMax-M3 target class over generated combinations:
`python -m tests.oracle.measure_sglang_minimax_target [COUNT] [SEED]` (default 400 draws,
seed 7, from the test module's layouts x nested x fields x activations) prints how many lines
SGLang builds / refuses and how many graphfit's answer agrees with (test module's compare)."""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import test_sglang_minimax_target_oracle as t


def main(count: int = 400, seed: int = 7) -> None:
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    for _ in range(count):
        tp, dp = rng.choice(t.LAYOUTS)
        nested = rng.choice((False, True))
        fields = {k: rng.choice(v) for k, v in t.FIELDS.items()}
        fields.update(rng.choice(t.ACTS))
        theirs = t.mo.build(t.mo.target_dir({"head_dim": 128, **fields}, nested), tp, dp)
        counts["sglang refuses" if theirs else "sglang builds"] += 1
        try:
            t._compare(fields, nested, tp, dp)
            counts["agree"] += 1
        except AssertionError as exc:
            counts["differ"] += 1
            print("differs:", exc)
    print(dict(counts))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
