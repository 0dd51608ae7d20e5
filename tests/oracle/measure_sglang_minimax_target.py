"""Measure graphfit against SGLang's own MiniMax-M3 target class over generated combinations:
`python -m tests.oracle.measure_sglang_minimax_target [COUNT] [SEED] [BEFORE]` (default 400
draws, seed 7), in turn from three families: attention (the test module's layouts x nested x
FIELDS x ACTS x QUANTS, dense MLPs), MLP (layouts x --ep-size x --disable-shared-experts-fusion x
nested x MOE_FIELDS x MOE_KEYS x ACTS x A2AS x QUANTS, per_head norm) and vision (the VL
wrapper: layouts x --mm-enable-dp-encoder x --attn-cp-size x VISIONS x per_head / per_layer
norm x silu / gelu). It
prints how many lines SGLang builds / refuses and how many graphfit's answer agrees with (the
test module's compare: same verdict, same exception, SGLang's raising line cited).

BEFORE, a repository root (e.g. /work/main), reruns the same draws in a child process whose
`graphfit` is that tree's and whose oracle is this one, and prints its counts first: a
before / after pair from one command."""

from __future__ import annotations

import random
import sys
from collections import Counter
from typing import Any

from tests.oracle import test_sglang_minimax_target_oracle as t
from tests.oracle.measure_root import main_before_after

Draw = tuple[str, dict[str, Any], bool, int, int, tuple[str, ...], dict[str, Any] | None]


def draws(count: int, seed: int) -> list[Draw]:
    """The generated lines: (family, fields, nested, tp, attention DP, extra flags, vision)."""
    rng = random.Random(seed)
    out: list[Draw] = []
    for i in range(count):
        tp, dp = rng.choice(t.LAYOUTS)
        nested = rng.choice((False, True))
        if i % 3 == 0:
            fields = {k: rng.choice(v) for k, v in t.FIELDS.items()}
            fields.update(rng.choice(t.ACTS))
            more, vision, qflags = t.quantized(rng.choice(t.QUANTS), nested)  # s44n
            out.append(("attention", {**fields, **more}, nested, tp, dp, qflags, vision))
        elif i % 3 == 1:
            ep, off = rng.choice(t.EPS), rng.choice((False, True))
            fields = {"qk_norm_type": "per_head",
                      **{k: rng.choice(v) for k, v in t.MOE_FIELDS.items()}}
            fields.update(rng.choice(t.MOE_KEYS))
            fields.update(rng.choice(t.ACTS))
            a2a, quant = t.a2a_flags(rng.choice(t.A2AS), fields), rng.choice(t.QUANTS)  # s42n
            more, vision, qflags = t.quantized(quant, nested, a2a)
            out.append(("mlp", {**fields, **more}, nested, tp, dp,
                        t.flags(ep if tp % ep == 0 else tp, off) + a2a + qflags, vision))
        else:
            fields = {"qk_norm_type": rng.choice(("per_head", "per_layer")),
                      **rng.choice(t.ACTS[:2])}
            extra = ("--mm-enable-dp-encoder",) if rng.choice((False, True)) else ()
            extra += t.cp_flags(tp, dp, rng.choice(t.CPS))  # s42n
            out.append(("vision", fields, True, tp, dp, extra, rng.choice(t.VISIONS)))
    return out


def measure(count: int, seed: int) -> None:
    counts: Counter[str] = Counter()
    for family, fields, nested, tp, dp, extra, vision in draws(count, seed):
        theirs = t.mo.build(t.mo.target_dir({"head_dim": 128, **fields}, nested, vision), tp,
                            dp, extra)
        counts[f"{family}: sglang {'refuses' if theirs else 'builds'}"] += 1
        try:
            t._compare(fields, nested, tp, dp, extra, vision)
            counts[f"{family}: agree"] += 1
        except AssertionError as exc:
            counts[f"{family}: differ"] += 1
            print("differs:", str(exc)[:400])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_target", measure, sys.argv[1:], 400, 7)
