"""Inkling MTP draft heads' conv caches, graphfit vs SGLang 0.5.23 over drawn lines
(tests/oracle/test_sglang_inkling_draft_conv_oracle.verdict): the bytes each rank's draft
pools take. "before" counts the same lines against no figure (what graphfit stated before
issue 23 s47m: nothing, as if SGLang allocated none).

    python -m tests.oracle.measure_sglang_inkling_draft_conv [N] [SEED]   # default 60, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle.test_sglang_inkling_draft_conv_oracle import SCATTERED, line, verdict
from tests.oracle.test_sglang_mamba_memory_oracle import argv_of


def draw(rng: random.Random) -> dict:
    shape = rng.choice((mm.INKLING, mm.INKLING_DEFAULTS))
    kw = {"tp": rng.choice(((1, 1), (2, 1), (4, 1), (4, 2), (8, 1), (2, 2))),
          "weights": rng.choice((0.2, 0.5, 0.9)),
          "S": rng.choice((None, 64, 3000)), "radix_off": rng.random() < 0.2}
    if rng.random() < 0.25:
        kw["M"] = rng.choice((500, 4000, 40000))
    return line(shape=shape, draft=rng.choice((None, mm.INKLING, mm.INKLING_DEFAULTS)),
                steps=rng.randint(1, 5), multi=rng.random() < 0.8,
                more=rng.choice(((), (SCATTERED,))), **kw)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    after: Counter[str] = Counter()
    before: Counter[str] = Counter()
    cloned = 0
    first = ""
    for _ in range(n):
        p = draw(rng)
        outcome, theirs, ours = verdict(p)
        after[outcome] += 1
        cloned += isinstance(theirs, int)
        if outcome == "differ" and not first:
            first = f"{' '.join(argv_of(p))}: SGLang {theirs}, graphfit {ours}"
        if isinstance(theirs, str):
            before[outcome] += 1  # refusals: unchanged by this rule
        else:
            before["agree" if theirs is None else "differ"] += 1
    print(f"{n} Inkling NEXTN lines, {cloned} where SGLang clones draft conv pools")
    print(f"after:  {dict(sorted(after.items()))}")
    print(f"before: {dict(sorted(before.items()))} (no figure stated)")
    if first:
        print(f"first differ: {first}")


if __name__ == "__main__":
    main()
