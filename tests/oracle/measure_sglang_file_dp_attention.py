"""The deprecated `enable_dp_attention` in graphfit's config file (graphfit.inputs.
sglang_file_dp_attention; issue 23, s70g) over drawn files (tests.oracle.
sglang_file_dp_attention_oracle.draw), against SGLang's own record of the same keys;
BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_file_dp_attention [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_file_dp_attention_oracle as fdo
    from tests.oracle import sglang_server_args_oracle as sao

    target = sao.targets(Path(tempfile.mkdtemp()))["dense"]
    rng = random.Random(seed)
    drawn = iter([fdo.draw(rng) for _ in range(count)])
    return print_agreement(count, lambda: fdo.compare(target, next(drawn)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_file_dp_attention", measure,
                                      sys.argv[1:], 40, "files"))
