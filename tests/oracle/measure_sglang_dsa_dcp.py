"""The DSA DCP refusals (graphfit.planner.engines.sglang_dsa_dcp; issue 23, s69r) over drawn
lines (tests.oracle.sglang_dsa_dcp_oracle.draw: DeepSeek-V3.2, GLM-5's class, a V3 NextN head,
a plain V3 MLA checkpoint and the V3.2 with sinks, on the H100, `--dcp-size` 1 or 2 with
HiSparse, a PD mode or an EAGLE topk) against SGLang's resolution and its whole
`check_server_args`, about 40% of them as graphfit's own config file; BEFORE_ROOT's graphfit on
the same draw in a child process.

    python -m tests.oracle.measure_sglang_dsa_dcp [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dsa_backends_oracle as dbo
    from tests.oracle import sglang_dsa_dcp_oracle as ddo

    targets = dbo.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv = ddo.draw(rng)
        return ddo.compare(targets[name], argv, file=rng.random() < 0.4)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dsa_dcp", measure, sys.argv[1:],
                                      100, "lines"))
