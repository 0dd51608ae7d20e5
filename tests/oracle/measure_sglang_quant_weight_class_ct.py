"""Agreement counts on the config classes SGLang 0.5.23's loader builds for compressed-tensors
and w4afp8 (tests.oracle.sglang_quant_weight_class_ct_compare): every fixed config.json
layout, and COUNT generated ones (a compressed-tensors dict's linear_fp8_config keys, or a
w4afp8 dict, drawn at random).

Run: python -m tests.oracle.measure_sglang_quant_weight_class_ct [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("class", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 200)
    from tests.oracle import sglang_quant_weight_class_ct_compare as cc

    return print_fixed_and_generated(cc, count, seed, VERDICTS, "fixed config.json")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
