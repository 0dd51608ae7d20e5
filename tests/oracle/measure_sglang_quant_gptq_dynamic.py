"""Agreement counts on GPTQ Marlin's per-module `dynamic` overrides
(tests.oracle.sglang_quant_gptq_dynamic_compare): every fixed line, and COUNT generated ones
(Llama / Qwen2 / Qwen3, since s63q Qwen3-MoE, s64q Qwen2-MoE, s66q DeepSeek-V2 / V3, built
by SGLang on the meta device); then the same lines with the dict in the quantize_config.json
SGLang's file search finds under `--quantization gptq_marlin`
(the "found file" families, issue 23 s57q).

Run: python -m tests.oracle.measure_sglang_quant_gptq_dynamic [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import functools
import sys
import types

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("layer", "built", "other", "shared")  # s66q: "shared"


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 60)
    from tests.oracle import sglang_quant_gptq_dynamic_compare as dc

    inline = print_fixed_and_generated(dc, count, seed, VERDICTS)
    found = types.SimpleNamespace(FIXED=dc.FIXED, generated_lines=dc.generated_lines,
                                  compare=functools.partial(dc.compare, found=True))
    return max(inline, print_fixed_and_generated(found, count, seed, VERDICTS,
                                                 fixed="found file, fixed"))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
