"""The rest of SGLang's LoRA start-up checks (graphfit.planner.engines.sglang_lora_runner;
issue 23, s66l: the adapter limits, overlap loading, the target list, PD-multiplexing in the V2
check, speculative decoding, SGLANG_EXPERIMENTAL_LORA_OPTI / SGLANG_ENABLE_OVERLAP_PLAN_STREAM /
SGLANG_RAGGED_VERIFY_MODE) over drawn lines (tests.oracle.sglang_lora_runner_oracle.
draw_checks) against SGLang's own `check_server_args`; BEFORE_ROOT's graphfit on the same
draw in a child process.

    python -m tests.oracle.measure_sglang_lora_checks [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_lora_runner_oracle as lro

    target = lro.model(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        env, argv = lro.draw_checks(rng)
        return lro.compare(target, argv, env)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_checks", measure, sys.argv[1:],
                                      60, "lines"))
