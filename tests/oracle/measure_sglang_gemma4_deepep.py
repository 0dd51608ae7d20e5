"""A Gemma 4 MoE target's own DeepEPMoE asserts (issue 23, s69w): graphfit against SGLang
0.5.23's own Gemma4MoE build on `tests.oracle.sglang_gelu_target_oracle.draw_deepep`'s lines
(a legacy a2a backend, the runner, the DeepEP mode, FP8, JIT DeepGEMM mostly off; the target
with or without MoE blocks). Both must start, or both refuse with graphfit naming
ep_moe/layer.py where SGLang's refusal is DeepEPMoE's
(graphfit.planner.engines.sglang_deepep_class.GEMMA4_MOE).

    python -m tests.oracle.measure_sglang_gemma4_deepep [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_with_before, tally_verdicts


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_gelu_target_oracle as gt

    return tally_verdicts(count, seed, gt.draw_deepep, gt.verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_gemma4_deepep", measure, sys.argv[1:],
                                      40, "Gemma 4 MoE target DeepEP lines"))
