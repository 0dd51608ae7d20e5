"""An all-to-all backend on a dense model (issue 23, s68m): graphfit against SGLang 0.5.23's
pipeline and runners on `sglang_moe_a2a_compare.draw`'s lines moved onto a dense Qwen3
config.json (tests.oracle.sglang_dense_a2a). Before s68m graphfit refused every such line
with a live backend as "not modelled"; now it plans the runners as SGLang builds them (no
backend: the MoE flags are never seeded) under the backend's start-up rules.

    python -m tests.oracle.measure_sglang_dense_a2a [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_with_before, tally_verdicts


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_dense_a2a as da

    return tally_verdicts(count, seed, da.draw, da.verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dense_a2a", measure, sys.argv[1:], 100,
                                      "dense-model a2a lines"))
