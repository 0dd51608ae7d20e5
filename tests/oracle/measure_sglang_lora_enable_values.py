"""A config file's `enable_lora` of any JSON value (issue 23, s68l; graphfit.inputs.sglang_lora.
_enable_lora, graphfit.planner.engines.sglang_native): drawn config files
(tests.oracle.sglang_lora_runner_oracle.draw_enable_value: `draw_paths`' LoRA keys with
`enable_lora` one of True, False, "false", "true", "no", "0", 0, 1, "", [] or absent) against
SGLang's own `ServerArgs(**data)` resolution and `check_server_args`, which read the value by
Python's truth (lora_hook.py:39-50); BEFORE_ROOT's graphfit on the same draw in a child
process.

    python -m tests.oracle.measure_sglang_lora_enable_values [COUNT] [SEED] [BEFORE_ROOT]
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
    return print_agreement(count, lambda: lro.draw_enable_value(rng, target))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_enable_values", measure,
                                      sys.argv[1:], 60, "config files"))
