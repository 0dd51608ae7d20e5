"""`check_server_args`' serving flags given through graphfit's own config file and a live
ServerArgs (graphfit.inputs.sglang_server_serving_sources; issue 23, s68h) over drawn
mappings (tests.oracle.sglang_server_serving_sources_oracle.draw), each judged both ways,
against SGLang's own `--config` YAML and ServerArgs; BEFORE_ROOT's graphfit on the same draw
in a child process.

    python -m tests.oracle.measure_sglang_server_serving_sources [COUNT] [SEED] [BEFORE_ROOT]
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
    drawn = [sso.draw(rng) for _ in range((count + 1) // 2)]
    cases = [(compare, data) for data in drawn
             for compare in (sso.compare_file, sso.compare_live)][:count]
    left = iter(cases)

    def one() -> tuple[str, str]:
        compare, data = next(left)
        return compare(target, data)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_server_serving_sources", measure,
                                      sys.argv[1:], 60, "routes"))
