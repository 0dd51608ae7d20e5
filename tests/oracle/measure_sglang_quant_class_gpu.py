"""Agreement counts on the reason SGLang 0.5.23 gives for a found quantize_config.json under
`--quantization awq_marlin` / `moe_wna16` on T4 / A10 / A100 / H100
(tests.oracle.sglang_quant_class_gpu_compare): COUNT generated (flag, body, GPU) pasted
lines, then 3/4 COUNT config-file lines giving gpu_capability 60 / 70 / 75 (no named GPU
is below SM75), then every awq_marlin / moe_wna16 line on config.json's AWQ / GPTQ
layouts on those capabilities.

Run: python -m tests.oracle.measure_sglang_quant_class_gpu [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from tests.oracle.measure_root import count_seed_root, print_family, print_wrong

VERDICTS = ("marlin", "wna16", "class", "capability", "refused", "dtype", "passed", "crash")


def print_per_gpu(compare: Callable[[str, str, str], tuple[str, str | None]], label: str,
                  count: int, seed: int) -> list[str]:
    """One family a GPU (named after `label`): `compare` on the drawn (flag, body, GPU) lines
    of that GPU. Shared with measure_sglang_quant_file_gpu. The disagreements."""
    from tests.oracle import sglang_quant_class_gpu_compare as cg

    wrong: list[str] = []
    for gpu in cg.GPUS:
        results = (compare(flag, content, g)
                   for flag, content, g in cg.lines(count, seed) if g == gpu)
        wrong += print_family(f"{label}{gpu}", results, VERDICTS, totals=True)
    return wrong


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 320)
    from tests.oracle import sglang_quant_class_gpu_compare as cg

    logging.disable(logging.WARNING)
    wrong = print_per_gpu(cg.compare, "", count, seed)
    for cap in cg.FILE_CAPABILITIES:
        found = (cg.compare_file(flag, content, c)
                 for flag, content, c in cg.file_lines(count * 3 // 4, seed) if c == cap)
        wrong += print_family(f"config file, gpu_capability {cap}", found, VERDICTS,
                              totals=True)
    for cap in cg.FILE_CAPABILITIES:
        found = (cg.compare_config_json(flag, layout, c)
                 for flag, layout, c in cg.config_json_lines() if c == cap)
        wrong += print_family(f"config file, config.json layouts, gpu_capability {cap}", found,
                              VERDICTS, totals=True)
    return print_wrong(wrong)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
