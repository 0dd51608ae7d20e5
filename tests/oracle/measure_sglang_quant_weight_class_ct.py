"""Agreement counts on the config classes SGLang 0.5.23's loader builds for compressed-tensors
and w4afp8 (tests.oracle.sglang_quant_weight_class_ct_compare): every fixed config.json
layout, and COUNT generated ones (a compressed-tensors dict's linear_fp8_config keys, or a
w4afp8 dict, drawn at random).

Run: python -m tests.oracle.measure_sglang_quant_weight_class_ct [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import collections
import logging
import sys

from tests.oracle.measure_root import count_seed_root

VERDICTS = ("class", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 200)
    from tests.oracle import sglang_quant_weight_class_ct_compare as cc

    logging.disable(logging.WARNING)
    wrong: list[str] = []
    for family, lines in (("fixed config.json", list(cc.FIXED.values())),
                          (f"generated ({count}, seed {seed})", cc.generated_lines(count, seed))):
        seen: collections.Counter[str] = collections.Counter()
        agree: collections.Counter[str] = collections.Counter()
        for flag, spec in lines:
            verdict, bad = cc.compare(flag, spec)
            seen[verdict] += 1
            agree[verdict] += bad is None
            if bad:
                wrong.append(bad)
        print(f"{family}: {sum(agree.values())}/{sum(seen.values())} agree; " + ", ".join(
            f"SGLang {v}: graphfit agrees {agree[v]}/{seen[v]}" for v in VERDICTS if seen[v]))
    for line in wrong[:12]:
        print("  " + line)
    return 0 if not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
