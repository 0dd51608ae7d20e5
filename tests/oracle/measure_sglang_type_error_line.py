"""The line graphfit cites for SGLang's TypeError on a live ServerArgs' wrongly typed serving
field (graphfit.inputs.sglang_server_serving `_at`; issue 23, s70g) over drawn records
(tests.oracle.sglang_server_serving_sources_oracle.draw_typed): "other" where both refuse and
graphfit cites a line other than the one SGLang's own traceback ends on; BEFORE_ROOT's
graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_type_error_line [COUNT] [SEED] [BEFORE_ROOT]
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
    drawn = iter([sso.draw_typed(rng) for _ in range(count)])
    return print_agreement(count, lambda: sso.compare_type_line(target, next(drawn)))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_type_error_line", measure,
                                      sys.argv[1:], 40, "records"))
