"""LoRA's V2 modes check on ROCm (issue 23, s68l; SglangOptions.gpu_rocm from an AMD GPU name,
graphfit.planner.engines.sglang_lora_runner._v2_mode): drawn LoRA lines with a V2 runner or not
and a mode the check refuses first or not (tests.oracle.sglang_lora_runner_oracle.draw_rocm),
on an MI300X (2 in 3: SGLang under its own platform override, `get_platform().is_hip` true;
graphfit given `--gpu-memory-gb MI300X`) or a figure in GiB (the fake CUDA device), against
SGLang's resolution and `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a
child process.

    python -m tests.oracle.measure_sglang_lora_rocm [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_lora_runner_oracle as lro

    logging.disable(logging.WARNING)
    target = lro.model(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)
    return print_agreement(count, lambda: lro.compare_rocm(
        target, lro.draw_rocm(rng), rng.choice(("MI300X", "MI300X", "80"))))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_rocm", measure, sys.argv[1:], 60,
                                      "lines"))
