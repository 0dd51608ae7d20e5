"""How often graphfit's default `mem_fraction_static` equals SGLang 0.5.23's on drawn lines with
--attention-backend torch_native / flex_attention (tests/oracle/sglang_graphless_fraction).

    python -m tests.oracle.measure_sglang_graphless_fraction [N] [SEED]   # default 60, 23
"""

from __future__ import annotations

import random
import sys

from tests.oracle import sglang_graphless_fraction as gf


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    rejected = refused = compared = equal = 0
    first = ""
    for _ in range(n):
        out = gf.compare(*gf.draw_graphless(rng))
        if out.rejected:
            rejected += 1
        elif out.refused:
            refused += 1
        else:
            compared += 1
            if out.difference is None:
                equal += 1
            elif not first:
                first = f"{' '.join(out.argv)} @{out.gb}: {out.difference}"
    print(f"{n} graph-less attention lines: SGLang rejects {rejected}, graphfit refuses "
          f"{refused} (not modelled), fraction equal {equal} / {compared} compared")
    if first:
        print(f"first difference: {first}")


if __name__ == "__main__":
    main()
