"""Figures for the live check's post-capture KV sizing (issue 23, s38l): lines of the
post-capture grid (measure_sglang_post_capture.generate_new, with --max-running-requests 48)
planned by SGLang's pipeline, by graphfit's live path (`from_sglang` on SGLang's own
ServerArgs) and by the pasted line:

    python -m tests.oracle.measure_sglang_live_post_capture [LINES] [SEED] [BEFORE_ROOT]

With BEFORE_ROOT, the same draw is first scored in a child process whose `graphfit` is
BEFORE_ROOT's HEAD commit, copied once (`before_tree.frozen` through
`measure_root.main_before_after`; issue 23, s70m: it used to be whichever graphfit the
caller's PYTHONPATH named, so a merge mid-run could split the figure), and whose `tests` are
this tree's; then this tree's figure.
"""

from __future__ import annotations

import random
import sys
import warnings
from collections import Counter

from tests.oracle.measure_root import main_before_after


def measure(count: int, seed: int) -> dict[str, int]:
    """`count` lines of the new grid drawn with `random.Random(seed)`, each compared live vs
    pasted vs SGLang (`test_sglang_live_post_capture.compare`); prints which graphfit answered
    and the `{...}` counts line (the one `print_before_in_child` reads back)."""
    import graphfit
    from tests.oracle import measure_sglang_post_capture as grid
    from tests.oracle import test_sglang_live_post_capture as t

    rng = random.Random(seed)
    tally: Counter[str] = Counter()
    for _ in range(count):
        case = grid.generate_new(rng)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tally[t.compare(case)] += 1
        except AssertionError as exc:
            kind = str(exc).split(": ", 2)[-1].split(" ", 1)[0]
            tally[f"differs ({kind})"] += 1
    print(f"{count} lines (seed {seed}), graphfit at {graphfit.__file__}:")
    counts = dict(sorted(tally.items()))
    print(counts)
    return counts


if __name__ == "__main__":
    main_before_after("measure_sglang_live_post_capture", measure, sys.argv[1:], 80, 38)
