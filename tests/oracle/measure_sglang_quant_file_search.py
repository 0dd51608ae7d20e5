"""Agreement counts on SGLang 0.5.23's quantization config file search where s45q's measure
did not look (tests.oracle.sglang_quant_file_search_compare): modelopt_mixed's fall-through
(model_loader/weight_utils.py:288-298) over COUNT drawn lines of the grid, and every (flag,
directory) line read from a `--config` file (`model_path`, or graphfit's `--model-path`), and
every flag on the config.json configs the restated config classes read, and every flag on
a single hf_quant_config.json (the loader's ModelOpt branch, :396-438).

Run: python -m tests.oracle.measure_sglang_quant_file_search [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys

from tests.oracle.measure_root import count_seed_root, print_family, print_wrong

VERDICTS = ("cannot", "several", "invalid", "class", "built", "unchecked", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 300)
    from tests.oracle import sglang_quant_file_search_compare as fs

    logging.disable(logging.WARNING)
    wrong: list[str] = []
    for family, results in (
            ("fall-through", (fs.compare_mixed(*line) for line in fs.mixed_lines(count, seed))),
            ("config file model_path", (fs.compare_file(*line) for line in fs.file_lines())),
            ("config file + --model-path",
             (fs.compare_file(*line, own_flag=True) for line in fs.file_lines())),
            ("config classes", (fs.compare_class(*line) for line in fs.class_lines())),
            ("hf_quant_config.json", (fs.compare_hf(*line) for line in fs.hf_lines()))):
        wrong += print_family(family, results, VERDICTS)
    return print_wrong(wrong)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
