"""Qwen3.5 decision checkpoints and Clef / Kev heads (graphfit.inputs.sglang_decision_heads;
issue 23, s70a) over drawn lines (tests.oracle.sglang_decision_heads_oracle.draw) against
SGLang's own resolution and `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a
child process.

    python -m tests.oracle.measure_sglang_decision_heads [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_decision_heads_oracle as dh
    from tests.oracle import sglang_server_args_oracle as sao

    targets = dh.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv = dh.draw(rng)
        said, line = sao.compare(targets[name], argv, {})
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_decision_heads", measure, sys.argv[1:],
                                      60, "lines"))
