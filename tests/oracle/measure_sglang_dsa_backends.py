"""The DSA backend checks without HiSparse (graphfit.planner.engines.sglang_dsa_backends;
issue 23, s69m) over drawn lines (tests.oracle.sglang_dsa_backends_oracle.draw: DeepSeek-V3.2,
GLM-5's class, a V3 NextN head and a plain V3 MLA checkpoint on H100, B200, RTX 5090, MI300X
and A100) against SGLang's resolution and its whole `check_server_args`, about 40% of them as
graphfit's own config file (the flags as keys); BEFORE_ROOT's graphfit on the same draw in a
child process.

    python -m tests.oracle.measure_sglang_dsa_backends [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dsa_backends_oracle as dbo

    targets = dbo.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv, gpu = dbo.draw(rng)
        return dbo.compare(targets[name], argv, gpu, file=rng.random() < 0.4)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dsa_backends", measure, sys.argv[1:],
                                      100, "lines"))
