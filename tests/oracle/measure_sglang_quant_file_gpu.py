"""Agreement counts on the reason SGLang 0.5.23 gives for a found quantize_config.json under
`--quantization awq_marlin` / `moe_wna16` when a graphfit config file names the GPU
(`gpu_memory_gb: T4` / A10 / A100 / H100; tests.oracle.sglang_quant_file_gpu_compare):
COUNT generated (flag, body, GPU) lines, the bodies of
tests.oracle.sglang_quant_class_gpu_compare.lines.

Run: python -m tests.oracle.measure_sglang_quant_file_gpu [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys

from tests.oracle.measure_root import count_seed_root, print_wrong
from tests.oracle.measure_sglang_quant_class_gpu import print_per_gpu


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 160)
    from tests.oracle import sglang_quant_file_gpu_compare as fg

    logging.disable(logging.WARNING)
    return print_wrong(print_per_gpu(fg.compare_named, "config file, gpu_memory_gb ", count,
                                     seed))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
