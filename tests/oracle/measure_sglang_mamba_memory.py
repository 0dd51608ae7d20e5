"""Agreement counts: graphfit's mamba state cache sized from GPU memory (and the pool it caps)
vs SGLang 0.5.23's own code over a grid of lines on Qwen3-Next-shaped models.
Run: python -m tests.oracle.measure_sglang_mamba_memory"""

from __future__ import annotations

import itertools

from tests.oracle.sglang_mamba_memory_oracle import SHAPES
from tests.oracle.test_sglang_mamba_memory_oracle import _line, agree, argv_of, sglang_side


def grid() -> list[dict]:
    return [_line(shape=shape, tp=tp, weights=weights, ssm=ssm, radix_off=radix_off, S=s,
                  ratio=ratio)
            for shape, tp, weights, ssm, (radix_off, s, ratio) in itertools.product(
                range(len(SHAPES) + 1), ((1, 1), (2, 1), (4, 1), (4, 2)), (0.2, 0.5, 0.9),
                (None, "bfloat16"), ((False, None, None), (False, 3000, 0.5),
                                     (True, None, 2.0)))]


def main() -> None:
    counts: dict[bool | None, int] = {True: 0, False: 0, None: 0}
    capped = refused = 0
    for p in grid():
        verdict = agree(p)
        counts[verdict] += 1
        theirs = sglang_side(p)
        if isinstance(theirs, str):
            refused += 1
        elif verdict and p["S"] is not None and theirs.pool < p["S"] // p["tp"][1]:
            capped += 1
        if verdict is False:
            print("DISAGREE", argv_of(p), p, theirs)
    print(f"mamba memory: {counts[True]} agree ({capped} with the pool capped by the state "
          f"cache, {refused} refused by both), {counts[False]} disagree, {counts[None]} "
          f"refused by SGLang only, of {sum(counts.values())} lines")


if __name__ == "__main__":
    main()
