"""SGLang's `--lora-paths` parse and LoRA beside a Gemma 4 assistant draft (issue 23, s67l;
graphfit.inputs.sglang_lora.invalid_paths / line_paths, graphfit.planner.engines.
sglang_lora_runner): drawn config files' `lora_paths` values of every shape and drawn lines
whose EAGLE / NEXTN / FROZEN_KV_MTP draft SGLang promotes to FROZEN_KV_MTP
(tests.oracle.sglang_lora_runner_oracle.draw_s67l), against SGLang's own resolution and
`check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_lora_paths [COUNT] [SEED] [BEFORE_ROOT]
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
    return print_agreement(count, lambda: lro.draw_s67l(rng, target))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_paths", measure, sys.argv[1:],
                                      60, "cases"))
