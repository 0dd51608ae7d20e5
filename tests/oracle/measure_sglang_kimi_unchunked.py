"""Kimi-K3 MegaMoE with chunked prefill off (graphfit.planner.engines.sglang_kimi_megamoe;
issue 23, s70l): tests.oracle.sglang_kimi_unchunked's drawn lines, each judged by its
`verdict` (SGLang's pipeline, runners, PrefillAdder and MegaMoE assert against graphfit's
plan); "other" is a line graphfit calls not modelled. BEFORE_ROOT's graphfit on the same draw
in a child process.

    python -m tests.oracle.measure_sglang_kimi_unchunked [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_kimi_unchunked as ku

    rng = random.Random(seed)
    asserting = []

    def one() -> tuple[str, str]:
        said, line = ku.verdict(ku.draw(rng))
        if said == "other":
            asserting.append("(MoE asserts)" in line)
        return said, line

    counts = print_agreement(count, one)
    print(f"of the {len(asserting)} not modelled, SGLang's MoE asserts on {sum(asserting)}")
    return counts


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_kimi_unchunked", measure,
                                      sys.argv[1:], 40, "lines"))
