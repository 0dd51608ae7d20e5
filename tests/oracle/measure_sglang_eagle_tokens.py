"""The EAGLE draft runners' `global_num_tokens` entries on drawn EAGLE lines (issue 23, s69p;
graphfit.planner.engines.sglang_eagle_tokens): graphfit's plan of each pasted line against
SGLang 0.5.23's own resolution and runners on every aspect the a2a oracle compares plus
those entries on every runner (tests.oracle.sglang_eagle_tokens); BEFORE_ROOT's graphfit on
the same draw in a child process ("other": graphfit refuses as not modelled a line SGLang
starts).

    python -m tests.oracle.measure_sglang_eagle_tokens [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_eagle_tokens as et

    logging.disable(logging.WARNING)
    rng = random.Random(seed)
    return print_agreement(count, lambda: et.verdict(et.draw(rng)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_eagle_tokens", measure, sys.argv[1:],
                                      30, "lines"))
