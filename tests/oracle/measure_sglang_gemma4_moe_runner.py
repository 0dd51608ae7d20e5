"""A Gemma 4 MoE target under pplx, a LoRA MoE runner, or an override switching
`enable_moe_block` (issue 23, s70h): graphfit against SGLang 0.5.23's own Gemma4MoE build on
`tests.oracle.sglang_gelu_target_oracle.draw_runner`'s lines. Both must start, or both
refuse with graphfit naming DeepGemmRunnerCore's assert where SGLang's refusal is it
(graphfit.planner.engines.sglang_gelu_target).

    python -m tests.oracle.measure_sglang_gemma4_moe_runner [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_with_before, tally_verdicts


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_gelu_target_oracle as gt

    return tally_verdicts(count, seed, gt.draw_runner, gt.verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_gemma4_moe_runner", measure,
                                      sys.argv[1:], 40, "Gemma 4 MoE runner lines"))
