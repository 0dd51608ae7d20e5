"""The chunk / page check on SM103 (GB300) and SM120 (RTX 5090) for plain MHA architectures
(issue 23, s68j; tests.oracle.sglang_sm100_page_oracle.draw_blackwell) over drawn lines;
BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_blackwell_page [COUNT] [SEED] [BEFORE_ROOT]
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
        gpu, name, argv = sp.draw_blackwell(rng)
        said, line = sp.compare(targets[name], argv, gpu)
        return said, f"{gpu} {name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_blackwell_page", measure, sys.argv[1:],
                                      60, "lines"))
