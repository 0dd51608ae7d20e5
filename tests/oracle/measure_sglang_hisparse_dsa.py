"""HiSparse's DSA backend and KV dtype checks (graphfit.planner.engines.sglang_hisparse_dsa;
issue 23, s69b) over drawn lines (tests.oracle.sglang_hisparse_dsa_oracle.draw: four DSA /
DeepSeek-V4 targets on H100, B200, RTX 5090 and MI300X) against SGLang's resolution and its
whole `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_hisparse_dsa [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_hisparse_dsa_oracle as hdo

    targets = hdo.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv, gpu = hdo.draw(rng)
        return hdo.compare(targets[name], argv, gpu)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_hisparse_dsa", measure, sys.argv[1:],
                                      100, "lines"))
