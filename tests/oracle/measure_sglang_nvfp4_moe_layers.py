"""Agreement counts on which FusedMoE layers take ModelOpt's NVFP4 MoE method
(tests.oracle.sglang_nvfp4_moe_layers_oracle; issue 23, s60q): every fixed line and COUNT
generated ones (modelopt_fp4 with exclusions, modelopt_mixed, the fp8 + NVFP4 hybrid, on
Qwen3-MoE / Qwen2-MoE, since s62q DeepSeek-V2 / V3, GLM-4-MoE and Mixtral, since s63q
DeepSeek-V3.2, GLM-5 (GlmMoeDsa), Kimi-K2.5 and Bailing-V2.5, built by
SGLang on the meta device, on H100 / A100 / B200 / L40S).

Run: python -m tests.oracle.measure_sglang_nvfp4_moe_layers [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("refused", "built", "args", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 60)
    from tests.oracle import sglang_nvfp4_moe_layers_oracle as lo

    return print_fixed_and_generated(lo, count, seed, VERDICTS)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
