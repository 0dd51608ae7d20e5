"""An SGLang config file whose only serving key is `port` (graphfit.inputs.
sglang_server_serving_sources.read's `sglang`; issue 23, s70g) over drawn files
(tests.oracle.sglang_server_serving_sources_oracle.draw_port), against SGLang's own `--config`
YAML (its merger and argparse); BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_file_port [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_server_args_oracle as sao
    from tests.oracle import sglang_server_serving_sources_oracle as sso

    target = sao.targets(Path(tempfile.mkdtemp()))["dense"]
    rng = random.Random(seed)
    drawn = iter([sso.draw_port(rng) for _ in range(count)])
    return print_agreement(count, lambda: sso.compare_file(target, next(drawn)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_file_port", measure, sys.argv[1:], 40,
                                      "files"))
