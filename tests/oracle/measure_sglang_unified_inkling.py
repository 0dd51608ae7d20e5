"""Figures for Inkling under `--enable-unified-memory` (issue 23 s40h): generated pasted
lines (the default, FULL or breakable prefill graphs; no, base or split attention flags; a
PD role with a transfer backend, maybe --pp-size 2; an A100 or H100) resolved by SGLang
0.5.23 (its final prefill-graph backend after the FULL fallback, kv_cache_hook.py:690-712,
and its mem_fraction_static) and planned by graphfit, counted as agree / refused by both /
graphfit not modelled / differ (tests/oracle/sglang_unified_backends_oracle.verdict).
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING is left unset (the test module's docstring says why).
"Before" figures: run it with PYTHONPATH naming a tree whose `graphfit` is the old one.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_unified_inkling [LINES] [SEED]
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_unified_backends_oracle as ub
from tests.oracle.test_sglang_unified_inkling_oracle import graphfit_side, sglang_side

PREFILL = ((), (), ("--cuda-graph-backend-prefill", "full"),
           ("--cuda-graph-backend-prefill", "breakable"))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 40)
    counts: Counter[str] = Counter()
    for _ in range(count):
        argv = ("--enable-unified-memory", *rng.choice(PREFILL), "--max-running-requests",
                "48", *ub.backend_flags(rng), *ub.pd_flags(rng))
        gpu = rng.choice(tuple(ub.GPUS))
        theirs, ours = sglang_side(argv, gpu), graphfit_side(argv, gpu)
        why = ub.verdict(theirs, ours)
        kind = ("differ" if why else "refused by both" if theirs is None
                else "graphfit not modelled" if isinstance(ours, str) else "agree")
        counts[kind] += 1
        if kind in ("differ", "graphfit not modelled"):
            print(f"{kind}: {gpu} {' '.join(argv[1:])}: {why or ours}", flush=True)
    print(f"{count} Inkling unified-memory lines: " + ", ".join(
        f"{counts[k]} {k}" for k in ("agree", "refused by both", "graphfit not modelled",
                                      "differ")))


if __name__ == "__main__":
    main()
