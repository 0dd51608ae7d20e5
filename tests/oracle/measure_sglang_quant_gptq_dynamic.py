"""Agreement counts on GPTQ Marlin's per-module `dynamic` overrides
(tests.oracle.sglang_quant_gptq_dynamic_compare): every fixed line, and COUNT generated ones
(Llama / Qwen2 / Qwen3 built by SGLang on the meta device).

Run: python -m tests.oracle.measure_sglang_quant_gptq_dynamic [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("layer", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 60)
    from tests.oracle import sglang_quant_gptq_dynamic_compare as dc

    return print_fixed_and_generated(dc, count, seed, VERDICTS)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
