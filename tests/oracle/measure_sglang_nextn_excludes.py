"""DeepSeek-V3 / GLM-5-Next NextN drafts whose checkpoint's Quark `exclude` entry or
GLM-5-Next `ignore` leaves the NextN layer unquantized, or keeps it (issue 23, s70p), over
drawn EAGLE lines on a Qwen3-MoE target (tests.oracle.sglang_nextn_excludes_oracle.draw: half
dropping drafts, half kept; the draft a2a backend, --deepep-mode, target and draft runners,
JIT DeepGEMM, dtype, a clashing FP8 flag, attention DP, multi-layer EAGLE). SGLang: its
resolution, the target's MoE block and the draft's build on meta under its own loader's
quantization config; graphfit: its CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_nextn_excludes [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_nextn_excludes_oracle as ne
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import tally_refusals

    so.oracle()
    paths = ne.dirs(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for _ in range(count):
            line, jit = ne.draw(rng, paths)
            theirs, (code, said) = ne.answers(paths, line, jit)
            yield (f"{Path(line[9]).name} {line[10:]} jit={jit}", theirs, code, said,
                   ddo.agree(theirs, code, said))

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_nextn_excludes", measure, argv, 40, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
