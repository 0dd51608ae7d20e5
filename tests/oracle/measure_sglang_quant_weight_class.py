"""Agreement counts on the config classes SGLang 0.5.23's loader builds for awq /
awq_marlin / gptq_marlin / modelopt_mixed (tests.oracle.sglang_quant_weight_class_compare):
every flag on every config.json layout, every flag on every fixed found file, and COUNT
generated found files (quantize_config.json / quant_config.json keys and hf_quant_config.json
mixed-precision maps drawn at random).

Run: python -m tests.oracle.measure_sglang_quant_weight_class [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys

from tests.oracle.measure_root import count_seed_root, print_family, print_wrong

VERDICTS = ("class", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 200)
    from tests.oracle import sglang_quant_weight_class_compare as wc

    logging.disable(logging.WARNING)
    wrong: list[str] = []
    for family, results in (
            ("config.json", (wc.compare_config(*line) for line in wc.config_lines())),
            ("found file", (wc.compare_file(*line) for line in wc.file_lines())),
            (f"generated files ({count}, seed {seed})",
             (wc.compare_generated(*line) for line in wc.generated_lines(count, seed)))):
        wrong += print_family(family, results, VERDICTS, totals=True)
    return print_wrong(wrong)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
