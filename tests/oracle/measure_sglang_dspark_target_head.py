"""Count how graphfit's target lm_head group under attention DP with --enable-dp-lm-head
(graphfit.inputs.sglang_dspark_minimax_tp.lm_group) compares with SGLang's own target classes
(tests/oracle/sglang_dspark_target_head.py), over every class the oracle builds, tied or not,
at TP 4 / DP 2, TP 2 / DP 2, TP 8 / DP 2 and (tied) PP 2.

    python -m tests.oracle.measure_sglang_dspark_target_head

Prints "agree" (same group and shard size, or no shard and graphfit says not modelled),
"not modelled" (graphfit says "unknown" where SGLang has a shard) and "differ". Works with an
older graphfit whose `lm_group` takes no pipeline size (then PP is not passed).
"""

from __future__ import annotations

import inspect
from collections import Counter

from graphfit.inputs.sglang_dspark_minimax_tp import lm_group
from tests.oracle import sglang_dspark_target_head as th


def main() -> None:
    takes_pp = "pp_size" in inspect.signature(lm_group).parameters
    cases = [(a, t, tp, dp, 1) for a in sorted(th.MODEL_TYPES) for t in (False, True)
             for tp, dp in ((4, 2), (2, 2), (8, 2))]
    cases += [(a, True, 4, 2, 2) for a in sorted(th.MODEL_TYPES)]
    counts: Counter[str] = Counter()
    for arch, tied, tp, dp, pp in cases:
        ours = lm_group(arch, tied, pp) if takes_pp else lm_group(arch, tied)
        head = th.lm_head(arch, tied, tp, dp, pp)
        if head is None:
            counts["agree" if ours == "unknown" else "differ"] += 1
            continue
        if ours == "unknown":
            counts["not modelled"] += 1
            continue
        theirs = "attn_tp" if head[0] else "tp"
        size = tp // dp if ours == "attn_tp" else tp
        counts["agree" if (ours, size) == (theirs, head[1]) else "differ"] += 1
    print(f"{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
