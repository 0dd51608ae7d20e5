"""Chunked prefill off (`--chunked-prefill-size` <= 0; issue 23, s68b) over drawn lines
(tests.oracle.sglang_chunk_off_oracle.draw): the prefill plan's aspects and the default
`mem_fraction_static` against SGLang 0.5.23's own resolution; BEFORE_ROOT's graphfit on the
same draw in a child process. "not modelled": graphfit refuses the line as not modelled
(before this lane, every one); "both refuse": SGLang rejects it and graphfit refuses it.

    python -m tests.oracle.measure_sglang_chunk_off [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys

from tests.oracle.measure_root import main_with_before


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_chunk_off_oracle as co

    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0, "both refuse": 0}
    shown: list[str] = []
    for _ in range(count):
        out = co.compare(*co.draw(rng))
        counts[out.verdict] += 1
        if out.verdict == "differ":
            shown.append(f"{' '.join(out.argv)} @{out.gb}: "
                         f"{'; '.join(out.diffs) or out.refused or 'graphfit plans it'}"[:300])
    for line in shown[:8]:
        print("  " + line)
    print(counts)
    return counts


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_chunk_off", measure, sys.argv[1:], 60,
                                      "lines"))
