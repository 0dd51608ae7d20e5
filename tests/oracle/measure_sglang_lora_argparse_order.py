"""Which error a pasted line reports when its `--lora-paths` item fails SGLang's
`LoRAPathAction` and another flag fails argparse (issue 23, s68l; graphfit.inputs.flagtable's
checked store, graphfit.inputs.sglang_lora.line_paths): drawn lines
(tests.oracle.sglang_lora_runner_oracle.draw_order) against SGLang's own parse, which runs the
action as argparse meets the flag (arg_groups/argparse_actions.py:8-25); BEFORE_ROOT's graphfit
on the same draw in a child process.

    python -m tests.oracle.measure_sglang_lora_argparse_order [COUNT] [SEED] [BEFORE_ROOT]
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
    return print_agreement(count, lambda: lro.compare_order(target, lro.draw_order(rng)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_lora_argparse_order", measure,
                                      sys.argv[1:], 80, "lines"))
