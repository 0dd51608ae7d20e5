"""Inkling's MTP architecture served as the target, graphfit vs SGLang 0.5.23: the prefill
component per aspect (tests/oracle/sglang_plan_prefill.compare, input_embeds among the
buffers) over measure_sglang_plan_prefill's drawn lines, and the state cache sized from
memory (tests/oracle/test_sglang_mamba_memory_oracle.agree) over drawn TP / scattered-sconv /
request-pool / feature-transport lines, both on the oracle's MTP config.json.

    python -m tests.oracle.measure_sglang_inkling_mtp_target [N] [SEED]   # default 40, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle.measure_sglang_plan_prefill import draw, print_aspects
from tests.oracle.test_sglang_mamba_memory_oracle import _line, agree


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    model = mm.model_dir(mm.INKLING_MTP)
    equal: Counter[str] = Counter()
    first: dict[str, str] = {}
    compared = skipped = 0
    for _ in range(n):
        argv, gb, _ = draw(rng)
        out = spp.compare(argv, gb, model)
        if not out.compared:
            skipped += 1
            continue
        compared += 1
        for aspect in spp.ASPECTS:
            if aspect in out.diffs:
                first.setdefault(aspect, f"{' '.join(argv)} @{gb}: {out.diffs[aspect][0]}")
            else:
                equal[aspect] += 1
    print(f"{n} MTP-target prefill lines: {skipped} rejected / refused, {compared} compared\n")
    print_aspects(spp.ASPECTS, equal, compared, first)
    sized = agreed = 0
    for _ in range(n):
        p = {"tp": rng.choice(((1, 1), (2, 1), (4, 1), (4, 2))),
             "more": rng.choice(((), ("--enable-scattered-sconv",))),
             "S": rng.choice((None, 64, 3000)), "weights": rng.choice((0.3, 0.9))}
        if rng.random() < 0.3:
            p.update(mmt="cuda_ipc", gb=24.0)
        result = agree(_line(shape=mm.INKLING_MTP, **p))
        sized += 1
        agreed += result is True
    print(f"\nstate cache sized from memory: {agreed} / {sized} agree")


if __name__ == "__main__":
    main()
