"""A live ServerArgs' explicit None in a serving field SGLang compares (graphfit.inputs.
sglang_server_serving_sources.live; issue 23, s69v) over drawn mappings (tests.oracle.
sglang_server_serving_sources_oracle.draw_none), against SGLang's own ServerArgs, resolved,
then its whole `check_server_args`; BEFORE_ROOT's graphfit on the same draw in a child process
(through tests.oracle.before_tree.frozen, measure_root.main_with_before).

    python -m tests.oracle.measure_sglang_live_none [COUNT] [SEED] [BEFORE_ROOT]
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
    left = iter([sso.draw_none(rng) for _ in range(count)])

    def one() -> tuple[str, str]:
        return sso.compare_live(target, next(left))

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_live_none", measure, sys.argv[1:], 40,
                                      "records"))
