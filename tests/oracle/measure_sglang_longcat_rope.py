"""LongCat-Flash configs whose `rope_scaling` is null or absent (issue 23, s68d) over drawn
NEXTN / EAGLE lines: a LongCat target and draft (the same checkpoint half the time), each
with drawn `rope_scaling` / `rope_parameters` (written, null, empty or absent), and drawn
`--json-model-override-args` on either key (tests.oracle.test_sglang_longcat_rope_oracle.draw).
SGLang: its resolution, then its own target and draft models built on meta; graphfit: its
CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_longcat_rope [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_longcat_rope_oracle as lr

    so.oracle()
    root = Path(tempfile.mkdtemp())
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0}
    refused, wrong = 0, []
    for index in range(count):
        target, line = lr.draw(rng, root, index)
        theirs = lr.sglang(target, line)
        code, said = lr.graphfit(target, line)
        refused += theirs is not None
        ok = lr.agree(theirs, code, said)
        counts["agree" if ok else "differ"] += 1
        if not ok:
            wrong.append(f"{line[-2:]}: SGLang {theirs and theirs[:100]}; graphfit {code} "
                         f"{said[:120]}")
    for text in wrong[:8]:
        print("  " + text)
    print(f"SGLang refused {refused} of {count} lines")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_longcat_rope", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
