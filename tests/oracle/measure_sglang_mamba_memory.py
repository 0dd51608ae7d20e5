"""Agreement counts: graphfit's mamba state cache sized from GPU memory (and the pool it caps)
vs SGLang 0.5.23's own code over a grid of lines on Qwen3-Next-shaped, GraniteMoeHybrid,
Nemotron-H and Falcon-H1 models, with and without speculative decoding.
Run: python -m tests.oracle.measure_sglang_mamba_memory"""

from __future__ import annotations

import itertools

from tests.oracle.sglang_mamba_memory_oracle import ALL_SHAPES, SHAPES
from tests.oracle.test_sglang_mamba_memory_oracle import (
    SPECS,
    _line,
    agree,
    argv_of,
    sglang_side,
)


def spec_grid() -> list[dict]:
    """Speculative lines: the joint solve with the intermediate states (NEXTN 4 and 6 draft
    tokens, NGRAM's 12), request count given or the speculative default."""
    return [_line(shape=shape, tp=tp, weights=weights, spec=spec, S=s, overlap=overlap)
            for shape, tp, weights, spec, s, overlap in itertools.product(
                range(len(SHAPES)), ((1, 1), (4, 1), (4, 2)), (0.2, 0.5),
                (SPECS[1], SPECS[3], SPECS[4]), (None, 3000), (True, False))]


def grid() -> list[dict]:
    return spec_grid() + [
        _line(shape=shape, tp=tp, weights=weights, ssm=ssm, radix_off=radix_off, S=s,
              ratio=ratio)
        for shape, tp, weights, ssm, (radix_off, s, ratio) in itertools.product(
                range(ALL_SHAPES), ((1, 1), (2, 1), (4, 1), (4, 2)), (0.2, 0.5, 0.9),
                (None, "bfloat16"), ((False, None, None), (False, 3000, 0.5),
                                     (True, None, 2.0)))]


def main() -> None:
    counts: dict[bool | None, int] = {True: 0, False: 0, None: 0}
    capped = refused = 0
    lines = grid()
    for p in lines:
        verdict = agree(p)
        counts[verdict] += 1
        theirs = sglang_side(p)
        if isinstance(theirs, str):
            refused += 1
        elif verdict and (requests := p["S"] or (48 if p["spec"] else None)) is not None \
                and theirs.pool < requests // p["tp"][1]:
            capped += 1
        if verdict is False:
            print("DISAGREE", argv_of(p), p, theirs)
    print(f"mamba memory: {counts[True]} agree ({capped} with the pool capped by the state "
          f"cache, {refused} refused by both), {counts[False]} disagree, {counts[None]} "
          f"refused by SGLang only, of {sum(counts.values())} lines "
          f"({len(spec_grid())} speculative)")


if __name__ == "__main__":
    main()
