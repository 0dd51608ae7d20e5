"""A Gemma 4 unified assistant MoE draft under the a2a and runner flags (issue 23, s68i):
graphfit against SGLang 0.5.23's own target and draft builds on
`tests.oracle.sglang_draft_gelu_oracle.draw`'s lines (the draft's a2a backend, --deepep-mode,
the runner, a draft runner, FP8, JIT DeepGEMM; the draft MoE or dense). Both must start, or
both refuse with graphfit naming the file SGLang's refusal comes from: the DeepGEMM runner's
activation assert (graphfit.planner.engines.sglang_draft_gelu_runner), DeepEPMoE's FP8
low-latency assert (sglang_draft_deepep), a dispatcher's raise.

    python -m tests.oracle.measure_sglang_draft_gelu [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_with_before, tally_verdicts


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_draft_gelu_oracle as go

    return tally_verdicts(count, seed, go.draw, go.verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_draft_gelu", measure, sys.argv[1:], 60,
                                      "unified-draft lines"))
