"""Qwen3.5 decision checkpoints and Clef / Kev heads (graphfit.inputs.sglang_decision_heads;
issue 23, s70a) over drawn lines (tests.oracle.sglang_decision_heads_oracle.draw) against
SGLang's own resolution and `check_server_args`, and one draw in three a config file on a hook
class (`draw_file`: graphfit.inputs.sglang_file_chunk_off; SGLang: a caller's ServerArgs);
BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_decision_heads [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_chunk_off_hooks_oracle as hooks
    from tests.oracle import sglang_decision_heads_oracle as dh
    from tests.oracle import sglang_lora_runner_oracle as lro
    from tests.oracle import sglang_server_args_oracle as sao

    root = Path(tempfile.mkdtemp())
    targets, hook_targets = dh.targets(root / "heads"), hooks.targets(root / "hooks")
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        if rng.random() < 1 / 3:
            name, data = dh.draw_file(rng)
            theirs, at_check = lro.sglang_file(hook_targets[name], data)
            code, said = lro.graphfit_file(hook_targets[name], data)
            return (sao.verdict(theirs, at_check, code, said),
                    f"{name} file {data}: SGLang {theirs}; graphfit {code} {said[:100]}")
        name, argv = dh.draw(rng)
        said, line = sao.compare(targets[name], argv, {})
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_decision_heads", measure, sys.argv[1:],
                                      60, "lines"))
