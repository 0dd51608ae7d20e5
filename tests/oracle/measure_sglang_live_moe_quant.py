"""The live check on quantized Qwen3-MoE / DeepSeek-V3 checkpoints against SGLang 0.5.23
(issue 23, s64c; tests.oracle.sglang_live_moe_quant): drawn (architecture, layout, flag, GPU)
cases, SGLang's class overrides, ModelConfig and loader against graphfit's live check.

    python -m tests.oracle.measure_sglang_live_moe_quant [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import sys


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn cases; print and return the counts."""
    from tests.oracle import sglang_live_moe_quant as lm

    counts = {"agree": 0, "differ": 0, "sglang refuses": 0, "not judged": 0}
    shown = 0
    for case in lm.cases(count, seed):
        theirs = lm.sglang(case)
        if theirs == lm.WEIGHTS:
            counts["not judged"] += 1
            continue
        ours = lm.live(case)
        counts["sglang refuses"] += theirs.startswith("refused")
        same = lm.agree(theirs, ours)
        counts["agree" if same else "differ"] += 1
        if not same and shown < 6:
            shown += 1
            print(f"  {case}: SGLang {theirs}; graphfit {ours[:120]}")
    print({**counts, "cases": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_live_moe_quant", measure, argv, 200, "cases")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
