"""Measure graphfit against SGLang's own MiniMax-M3 class on lines served as
`minimax_m3_nvfp4`: `python -m tests.oracle.measure_sglang_minimax_nvfp4 [COUNT] [SEED]
[BEFORE]` (default 60 draws, seed 7) from the test module's CONFIGS x SHAPES x top level / VL
wrapper x LAYOUTS; one draw in three is a ModelOpt checkpoint instead (MODELOPT_FP4 /
MODELOPT_FP8, config.json naming the method, x SHAPES x LAYOUTS). It prints how many lines
SGLang builds / refuses and how many graphfit's answer agrees with (the test module's
compare: same verdict, same exception, SGLang's raising line cited).

BEFORE, a repository root (e.g. /work/main), reruns the same draws in a child process whose
`graphfit` is that tree's and whose oracle is this one, and prints its counts first."""

from __future__ import annotations

import random
import sys
from collections import Counter
from typing import Any

from tests.oracle import test_sglang_minimax_nvfp4_oracle as n
from tests.oracle.measure_root import main_before_after

Draw = tuple[dict[str, Any], dict[str, Any], bool, int, int]


def draws(count: int, seed: int) -> list[Draw]:
    """The generated lines: (quantization_config, shape fields, nested, tp, attention DP)."""
    rng = random.Random(seed)
    out: list[Draw] = []
    for i in range(count):
        if i % 3 == 2:
            config = dict(rng.choice((n.MODELOPT_FP4, n.MODELOPT_FP8)))
        else:
            config = {k: v for k, v in {**n.NV, **rng.choice(n.CONFIGS)}.items()
                      if v is not None}
        out.append((config, rng.choice(n.SHAPES), rng.choice((False, True)),
                    *rng.choice(n.LAYOUTS)))
    return out


def measure(count: int, seed: int) -> None:
    counts: Counter[str] = Counter()
    for config, shape, nested, tp, dp in draws(count, seed):
        more, vision, _ = n.t.quantized((config, ()), nested)
        fields = {"head_dim": 128, "qk_norm_type": "per_head", **shape, **more}
        theirs = n.t.mo.build(n.t.mo.target_dir(fields, nested, vision), tp, dp, own=True)
        counts[f"sglang {'refuses' if theirs else 'builds'}"] += 1
        try:
            n.compare({}, shape, nested, tp, dp, config)
            counts["agree"] += 1
        except AssertionError as exc:
            counts["differ"] += 1
            print("differs:", str(exc)[:400])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_nvfp4", measure, sys.argv[1:], 60, 7)
