"""Data-parallel replicas beside attention DP on a pasted line, graphfit's config file and a
live record (graphfit.planner.engines.sglang_dp_replicas; issue 23, s70o) over drawn cases
(tests.oracle.sglang_dp_replicas_oracle.draw), against SGLang's own resolution and checks;
BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_dp_replicas [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dp_replicas_oracle as dro
    from tests.oracle import sglang_server_args_oracle as sao

    targets = sao.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)
    drawn = iter([dro.draw(rng) for _ in range(count)])
    return print_agreement(count, lambda: dro.compare(targets, *next(drawn)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dp_replicas", measure,
                                      sys.argv[1:], 40, "cases"))
