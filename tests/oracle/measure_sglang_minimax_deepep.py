"""Measure graphfit against SGLang's own MiniMax-M3 target class on generated DeepEP-class lines
(issue 23, s50e): `python -m tests.oracle.measure_sglang_minimax_deepep [COUNT] [SEED] [BEFORE]`
(default 60 draws, seed 23). Each draw picks a MiniMax-M3 MoE target (unquantized or block
FP8, top level or under the VL wrapper), an a2a backend (deepep in each mode, Mooncake
low_latency, pplx), a runner (none, deep_gemm, triton, a LoRA one), --dtype (none or float16)
and SGLANG_ENABLE_JIT_DEEPGEMM (on / off); SGLang resolves it on its own directory and builds
its class; the compare is tests.oracle.test_sglang_minimax_deepep_oracle.agree.

BEFORE, a repository root (e.g. /work/main), reruns the same draws in a child process whose
`graphfit` is that tree's and whose oracle is this one, and prints its counts first."""

from __future__ import annotations

import random
import sys
from collections import Counter
from typing import Any

from tests.oracle import test_sglang_minimax_deepep_oracle as t
from tests.oracle.measure_root import main_before_after

A2AS: tuple[tuple[int, int, tuple[str, ...]], ...] = (
    (2, 1, t.DEEPEP), (2, 1, (*t.DEEPEP, "--deepep-mode", "low_latency")),
    (2, 1, (*t.DEEPEP, "--deepep-mode", "normal")), (2, 1, t.MOONCAKE_LL), (4, 2, t.PPLX))
RUNNERS: tuple[tuple[str, ...], ...] = (
    (), ("--moe-runner-backend", "deep_gemm"), ("--moe-runner-backend", "triton"),
    ("--moe-runner-backend", "lora_triton"), ("--moe-runner-backend", "lora_marlin"))
DTYPES: tuple[tuple[str, ...], ...] = ((), (), ("--dtype", "float16"))


def draws(count: int, seed: int, a2as: tuple[tuple[int, int, tuple[str, ...]], ...] = A2AS
          ) -> list[tuple[dict[str, Any], bool, int, int, tuple[str, ...], bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        tp, dp, a2a = rng.choice(a2as)
        extra = a2a + rng.choice(RUNNERS) + rng.choice(DTYPES)
        out.append((rng.choice((t.MOE, t.BLOCK)), rng.choice((False, True)), tp, dp, extra,
                    rng.choice((False, True))))
    return out


def measure(count: int, seed: int,
            a2as: tuple[tuple[int, int, tuple[str, ...]], ...] = A2AS) -> None:
    """Print the counts (`a2as`: the backends drawn; tests.oracle.measure_sglang_minimax_
    dispatch passes Mooncake's and NixlEP's modes, s52e)."""
    counts: Counter[str] = Counter()
    for line in draws(count, seed, a2as):
        theirs, code, said = t.answers(*line)
        counts[f"sglang {'refuses' if theirs else 'builds'}"] += 1
        if t.agree(theirs, code, said):
            counts["agree"] += 1
        else:
            counts["differ"] += 1
            print("differs:", line[1:], "|", theirs, "|", code, said[:160])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_deepep", measure, sys.argv[1:], 60, 23)
