"""graphfit against SGLang's own ModelConfig on plain classes whose written sub-config dict
has RoPE values of the wrong type, a per-layer-type nested RoPE dict, a `layer_types`, or a
dtype string (issue 23, s70e; tests.oracle.sglang_bare_values).

    python -m tests.oracle.measure_sglang_bare_values [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn configs; print and return the counts."""
    from tests.oracle import sglang_bare_values as bv

    rng = random.Random(seed)
    counts = {"agree": 0, "refused": 0, "differ": 0}
    shown = 0
    for _ in range(count):
        data = bv.draw(rng)
        said = bv.verdict(data)
        counts[said.split(":")[0]] += 1
        if said.startswith("differ") and shown < 8:
            shown += 1
            print(f"  {data}: {said}")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_bare_values", measure, argv, 100, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
