"""`check_server_args`'s node-count, torch.compile, pipeline-parallel, chunked-prefill / page
and PD-multiplexing checks (graphfit.planner.engines.sglang_server_nodes,
sglang_server_chunk; issue 23, s67b) over drawn lines (tests.oracle.sglang_server_args_oracle.
draw) against SGLang's own `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a
child process.

    python -m tests.oracle.measure_sglang_server_args [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_server_args_oracle as sao

    targets = sao.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, env, argv = sao.draw(rng)
        said, line = sao.compare(targets[name], argv, env)
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_server_args", measure, sys.argv[1:],
                                      100, "lines"))
