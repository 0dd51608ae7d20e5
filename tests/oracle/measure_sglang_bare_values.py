"""graphfit against SGLang's own ModelConfig on plain classes whose written sub-config dict
has RoPE values of the wrong type, a per-layer-type nested RoPE dict, a `layer_types`, or a
dtype string (issue 23, s70e; tests.oracle.sglang_bare_values).

    python -m tests.oracle.measure_sglang_bare_values [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import sys


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn configs; print and return the counts (the text-values measure's
    scoring, over this oracle module's draw)."""
    from tests.oracle import sglang_bare_values as bv
    from tests.oracle.measure_sglang_text_values import score

    return score(bv, count, seed)


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_bare_values", measure, argv, 100, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
