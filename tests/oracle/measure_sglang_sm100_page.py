"""The chunk / page check on SM100 with both phases' backends named (issue 23, s68b;
tests.oracle.sglang_sm100_page_oracle) over drawn lines; BEFORE_ROOT's graphfit on the same
draw in a child process.

    python -m tests.oracle.measure_sglang_sm100_page [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_server_args_oracle as sao
    from tests.oracle import sglang_sm100_page_oracle as sp

    targets = sao.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv = sp.draw(rng)
        said, line = sp.compare(targets[name], argv)
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_sm100_page", measure, sys.argv[1:], 60,
                                      "lines"))
