"""`check_server_args`'s serving-flag checks (graphfit.inputs.sglang_server_serving; issue 23,
s68b) over drawn lines (tests.oracle.sglang_server_serving_oracle.draw) against SGLang's own
`check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_server_serving [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_server_args_oracle as sao
    from tests.oracle import sglang_server_serving_oracle as sso

    targets = sao.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, env, argv = sso.draw(rng)
        said, line = sao.compare(targets[name], argv, env)
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_server_serving", measure, sys.argv[1:],
                                      100, "lines"))
