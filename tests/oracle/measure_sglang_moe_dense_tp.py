"""`--moe-dense-tp-size` on drawn MoE all-to-all lines (issue 23, s69c;
graphfit.planner.engines.sglang_mlp_gather, sglang_moe_a2a, sglang_server_nodes): graphfit's
plan of each pasted line against SGLang 0.5.23's own resolution and runners on every aspect
the a2a oracle compares plus the runners' `global_num_tokens` entries
(tests.oracle.sglang_moe_dense_tp); BEFORE_ROOT's graphfit on the same draw in a child
process ("other": graphfit refuses as not modelled a line SGLang starts).

    python -m tests.oracle.measure_sglang_moe_dense_tp [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_moe_dense_tp as ag

    logging.disable(logging.WARNING)
    rng = random.Random(seed)
    return print_agreement(count, lambda: ag.verdict(ag.draw(rng)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_moe_dense_tp", measure, sys.argv[1:],
                                      60, "lines"))
