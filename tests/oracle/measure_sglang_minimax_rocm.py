"""Measure graphfit against SGLang's own MiniMax-M3 target class on an MI300X (issue 23, s52e):
`python -m tests.oracle.measure_sglang_minimax_rocm [COUNT] [SEED] [BEFORE]` (default 60
draws, seed 23). Each draw picks a MiniMax-M3 MoE target (unquantized or block FP8, with one
or two shared experts, or a gelu dense second layer; top level or under the VL wrapper), an
a2a backend (none, deepep in each mode, Mooncake low_latency, pplx), a runner (none,
deep_gemm, a LoRA one) and SGLANG_ENABLE_JIT_DEEPGEMM (on / off). SGLang resolves and builds
it as on an MI300X (tests.oracle.sglang_minimax_target_oracle.build's `rocm`) and, first,
on CUDA (the count of lines CUDA refuses and ROCm builds is printed); graphfit plans it with
`--gpu-memory-gb MI300X`; the compare is tests.oracle.test_sglang_minimax_deepep_oracle.agree.

BEFORE, a repository root (e.g. /work/main), reruns the same draws in a child process whose
`graphfit` is that tree's and whose oracle is this one, and prints its counts first."""

from __future__ import annotations

import random
import sys
from collections import Counter
from typing import Any

from tests.oracle import test_sglang_minimax_deepep_oracle as t
from tests.oracle.measure_root import main_before_after

FIELDS: tuple[dict[str, Any], ...] = (
    t.MOE, t.BLOCK, t.SHARED2, {**t.BLOCK, "n_shared_experts": 2}, t.GELU_DENSE)
A2AS: tuple[tuple[int, int, tuple[str, ...]], ...] = (
    (2, 1, ()), (2, 1, t.DEEPEP), (2, 1, t.DEEPEP_LL),
    (2, 1, (*t.DEEPEP, "--deepep-mode", "normal")), (2, 1, t.MOONCAKE_LL), (4, 2, t.PPLX))
RUNNERS: tuple[tuple[str, ...], ...] = (
    (), ("--moe-runner-backend", "deep_gemm"), t.LORA, ("--moe-runner-backend", "lora_marlin"))


def draws(count: int, seed: int) -> list[tuple[dict[str, Any], bool, int, int,
                                               tuple[str, ...], bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        tp, dp, a2a = rng.choice(A2AS)
        out.append((rng.choice(FIELDS), rng.choice((False, True)), tp, dp,
                    a2a + rng.choice(RUNNERS), rng.choice((False, True))))
    return out


def measure(count: int, seed: int) -> None:
    counts: Counter[str] = Counter()
    for line in draws(count, seed):
        cuda, rocm, code, said = t.rocm_answers(*line)
        counts[f"sglang rocm {'refuses' if rocm else 'builds'}"] += 1
        if cuda is not None and rocm is None:
            counts["cuda refuses, rocm builds"] += 1
        if t.agree(rocm, code, said):
            counts["agree"] += 1
        else:
            counts["differ"] += 1
            print("differs:", line[1:], "|", rocm, "|", code, said[:160])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_rocm", measure, sys.argv[1:], 60, 23)
