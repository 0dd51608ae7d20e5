"""Figures for Inkling under `--enable-unified-memory` (issue 23 s40h): generated pasted
lines (the default, FULL or breakable prefill graphs; no, base or split attention flags; a
PD role with a transfer backend, maybe --pp-size 2; an A100 or H100) resolved by SGLang
0.5.23 (its final prefill-graph backend after the FULL fallback, kv_cache_hook.py:690-712,
and its mem_fraction_static) and planned by graphfit, counted as agree / refused by both /
graphfit not modelled / differ (tests/oracle/sglang_unified_backends_oracle.verdict).
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING is left unset (the test module's docstring says why).
With BEFORE_ROOT, the same draw is first scored in a child whose `graphfit` is BEFORE_ROOT's
HEAD commit, copied once (`measure_root.main_before_after` -> `before_tree.frozen`; issue 23,
s70m: "before" used to mean running it with another tree on PYTHONPATH).

    python -m tests.oracle.measure_sglang_unified_inkling [LINES] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle.measure_root import main_before_after

PREFILL = ((), (), ("--cuda-graph-backend-prefill", "full"),
           ("--cuda-graph-backend-prefill", "breakable"))


def measure(count: int, seed: int) -> dict[str, int]:
    """`count` lines drawn with `random.Random(seed)`; prints the differing / not-modelled ones
    and the `{...}` counts line (the one `print_before_in_child` reads back)."""
    from tests.oracle import sglang_unified_backends_oracle as ub
    from tests.oracle.test_sglang_unified_inkling_oracle import graphfit_side, sglang_side

    rng = random.Random(seed)
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
    out = {k: counts[k] for k in ("agree", "refused by both", "graphfit not modelled",
                                  "differ")}
    print(f"{count} Inkling unified-memory lines:")
    print(out)
    return out


if __name__ == "__main__":
    main_before_after("measure_sglang_unified_inkling", measure, sys.argv[1:], 80, 40)
