"""Whether a target config seeds SGLang's MoE runner flags (issue 23, s70h): graphfit's
`dense_model` against SGLang 0.5.23's own `Scheduler.init_moe_gemm_config` on
`tests.oracle.sglang_moe_seed_oracle.draw_words`' config.json files (Gemma 4 nested and
unified, Llama, Qwen3; with or without the MoE fields).

    python -m tests.oracle.measure_sglang_moe_seed [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_with_before, tally_verdicts


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_moe_seed_oracle as ms

    return tally_verdicts(count, seed, ms.draw_words, ms.verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_moe_seed", measure, sys.argv[1:], 40,
                                      "target configs"))
