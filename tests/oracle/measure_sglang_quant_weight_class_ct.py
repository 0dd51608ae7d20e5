"""Agreement counts on the config classes SGLang 0.5.23's loader builds for compressed-tensors
and w4afp8 (tests.oracle.sglang_quant_weight_class_ct_compare): every fixed config.json
layout, and COUNT generated ones (a compressed-tensors dict's linear_fp8_config keys, or a
w4afp8 dict, drawn at random).

Run: python -m tests.oracle.measure_sglang_quant_weight_class_ct [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys

from tests.oracle.measure_root import count_seed_root, print_family, print_wrong

VERDICTS = ("class", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 200)
    from tests.oracle import sglang_quant_weight_class_ct_compare as cc

    logging.disable(logging.WARNING)
    wrong: list[str] = []
    for family, lines in (("fixed config.json", list(cc.FIXED.values())),
                          (f"generated ({count}, seed {seed})", cc.generated_lines(count, seed))):
        wrong += print_family(family, (cc.compare(flag, spec) for flag, spec in lines),
                              VERDICTS, totals=True)
    return print_wrong(wrong)

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
