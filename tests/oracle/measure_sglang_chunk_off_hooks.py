"""Model hooks that turn chunked prefill off (graphfit.inputs.sglang_chunk_off_model; issue
23, s69a) over drawn lines (tests.oracle.sglang_chunk_off_hooks_oracle.draw) against SGLang's
own resolution and `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child
process.

    python -m tests.oracle.measure_sglang_chunk_off_hooks [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_chunk_off_hooks_oracle as hooks
    from tests.oracle import sglang_server_args_oracle as sao

    targets = hooks.targets(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        name, argv = hooks.draw(rng)
        said, line = sao.compare(targets[name], argv, {})
        return said, f"{name} {line}"

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_chunk_off_hooks", measure, sys.argv[1:],
                                      60, "lines"))
