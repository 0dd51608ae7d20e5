"""deepep_v2 with chunked prefill off (graphfit.planner.engines.sglang_deepep_v2.
prefill_ceiling; issue 23, s69a): tests.oracle.sglang_moe_a2a_compare's deepep_v2 lines with
`--chunked-prefill-size` -1 or 0 in place of any chunk (and a --max-prefill-tokens on some),
every aspect compared (`mc.compare`); "other" is a line graphfit refuses as not modelled that
SGLang starts. BEFORE_ROOT's graphfit on the same draw in a child process.

    python -m tests.oracle.measure_sglang_deepep_v2_chunk_off [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys

from tests.oracle.measure_root import main_with_before, print_agreement

CHUNK, TOKENS = "--chunked-prefill-size", "--max-prefill-tokens"


def draw(rng: random.Random) -> tuple[str, ...]:
    """A deepep_v2 line with chunking off."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    argv = list(mc.draw(rng, "deepep_v2"))
    for flag in (CHUNK, TOKENS):
        while flag in argv:
            i = argv.index(flag)
            del argv[i:i + 2]
    argv += [CHUNK, rng.choice(("-1", "0"))]
    if rng.random() < 0.5:
        argv += [TOKENS, str(rng.choice((1024, 4096, 8192, 16384, 40000)))]
    return tuple(argv)


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_moe_a2a_compare as mc

    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        argv = draw(rng)
        diffs = mc.compare(argv)
        sg, gf = mc.sglang(argv), mc.graphfit_cli(argv)
        line = (f"{' '.join(argv)[-160:]}: SGLang {sg.rejected and sg.rejected[:80]}; "
                f"graphfit {gf.rejected and gf.rejected[:80]}")
        if not any(diffs.values()):
            return "agree", line
        modelled = gf.rejected is None or "not modelled" not in gf.rejected
        return ("differ" if modelled else "other"), line

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_deepep_v2_chunk_off", measure,
                                      sys.argv[1:], 40, "lines"))
