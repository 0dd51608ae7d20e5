"""The LoRA MoE runners' start-up checks (graphfit.planner.engines.sglang_lora_runner; issue
23, s65d) over drawn lines (tests.oracle.sglang_lora_runner_oracle.draw) against SGLang's
own `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_lora_runner [COUNT] [SEED] [BEFORE_ROOT]
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
        return lro.compare(target, lro.draw(rng))

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_runner", measure, sys.argv[1:],
                                      40, "lines"))
