"""Figures for the live check's post-capture KV sizing (issue 23, s38l): lines of the
post-capture grid (measure_sglang_post_capture.generate_new, with --max-running-requests 48)
planned by SGLang's pipeline, by graphfit's live path (`from_sglang` on SGLang's own
ServerArgs) and by the pasted line, in the graphfit tree on PYTHONPATH:

    PYTHONPATH=. python -m tests.oracle.measure_sglang_live_post_capture [LINES] [SEED]

"before": the same with graphfit from another tree and these tests, e.g. a folder holding
links `graphfit -> /work/main/graphfit` and `tests -> ./tests` as the only PYTHONPATH entry.
"""

from __future__ import annotations

import random
import sys
import warnings
from collections import Counter

from tests.oracle import measure_sglang_post_capture as grid
from tests.oracle import test_sglang_live_post_capture as t


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 38)
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
    import graphfit
    print(f"{count} lines, graphfit at {graphfit.__file__}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
