"""A DeepSeek-V4 NextN draft's MoE layer (issue 23, s68n) over drawn EAGLE lines on a Qwen3-MoE
target: the draft backend (DeepEP / pplx / Mooncake / none), --deepep-mode, the target's
backend and runner, attention DP, multi-layer EAGLE, FP8, JIT DeepGEMM drawn
(tests.oracle.sglang_draft_deepep_oracle.draw). SGLang: its resolution, the target's MoE
block, then DeepseekV4ForCausalLMNextN built on the meta device inside the worker's contexts
(tests.oracle.sglang_draft_build); graphfit: its CLI. Both refuse, graphfit naming the file
SGLang raises in (DeepEPMoE's layer.py, a draft dispatcher's), or both start.

    python -m tests.oracle.measure_sglang_dsv4_draft [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

SITES = ("ep_moe/layer.py", "mooncake.py", "nixl.py", "pplx.py")


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import print_counts, tally

    so.oracle()
    paths = ddo.dirs(Path(tempfile.mkdtemp()), ("deepseek_v4",))
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    refused = 0
    for _ in range(count):
        line, jit = ddo.draw(rng, paths, ("deepseek_v4",))
        theirs, (code, said) = ddo.answers(paths, line, jit)
        refused += theirs is not None
        site = next((s for s in SITES if theirs and s in theirs), None)
        ok = (theirs is None) == (code == 0) and (site is None or site.split("/")[-1] in said)
        tally(counts, lines, ok, said, f"{' '.join(line[10:])} jit={jit}: SGLang "
              f"{theirs and theirs[:110]}; graphfit {code} {said[:140]}")
    print_counts(count, seed, counts, lines)
    print(f"SGLang refused {refused} of {count} lines")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_dsv4_draft", measure, argv, 40, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
