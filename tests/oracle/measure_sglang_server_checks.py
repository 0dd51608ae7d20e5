"""Two-batch overlap's start-up check (graphfit.planner.engines.sglang_server_checks; issue
23, s66b) over drawn lines (tests.oracle.sglang_server_checks_oracle.draw) against SGLang's
own `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_server_checks [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_server_checks_oracle as sco

    targets = sco.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv = sco.draw(rng)
        said, line = sco.compare(targets[name], argv)
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_server_checks", measure, sys.argv[1:],
                                      40, "lines"))
