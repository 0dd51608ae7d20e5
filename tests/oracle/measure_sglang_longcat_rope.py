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
from collections.abc import Iterator
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_longcat_rope_oracle as lr
    from tests.oracle.measure_root import tally_refusals

    so.oracle()
    root = Path(tempfile.mkdtemp())
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for index in range(count):
            target, line = lr.draw(rng, root, index)
            theirs = lr.sglang(target, line)
            code, said = lr.graphfit(target, line)
            yield str(line[-2:]), theirs, code, said, lr.agree(theirs, code, said)

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_longcat_rope", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
