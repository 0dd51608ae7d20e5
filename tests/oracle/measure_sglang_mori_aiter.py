"""SGLANG_USE_AITER / MORI_ENABLE_SDMA and an unset SGLANG_MORI_EP_V2 on drawn mori lines
(issue 23, s70s; graphfit.planner.engines.sglang_mori_ep.epv2_supported): graphfit's plan of
each pasted line against SGLang 0.5.23's own resolution and runners on every aspect the a2a
oracle compares plus the runners' `global_num_tokens` entries (tests.oracle.sglang_mori_ep.
draw_aiter); BEFORE_ROOT's graphfit on the same draw in a child process (through
before_tree.frozen, by measure_root).

    python -m tests.oracle.measure_sglang_mori_aiter [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import warnings

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_mori_ep as me

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")  # SGLang's EnvBool warns on the unparsable values drawn
    rng = random.Random(seed)
    return print_agreement(count, lambda: me.verdict(me.draw_aiter(rng)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_mori_aiter", measure, sys.argv[1:],
                                      40, "lines"))
