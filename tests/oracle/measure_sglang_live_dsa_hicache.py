"""HiCache under DSA DCP in a live ServerArgs not launched yet (graphfit.inputs.
sglang_live_flags; issue 23, s70g) over drawn records (tests.oracle.
sglang_live_dsa_hicache_oracle.draw), against SGLang's own resolution and check;
BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_live_dsa_hicache [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dsa_backends_oracle as dbo
    from tests.oracle import sglang_live_dsa_hicache_oracle as lho

    targets = dbo.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)
    drawn = iter([lho.draw(rng) for _ in range(count)])
    return print_agreement(count, lambda: lho.compare(targets, *next(drawn)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_live_dsa_hicache", measure,
                                      sys.argv[1:], 30, "records"))
