"""Quantized MoE drafts' low-latency DeepEPMoE assert beyond FP8 (issue 23, s69e) over drawn
EAGLE lines on a Qwen3-MoE target (tests.oracle.sglang_draft_deepep_oracle's draw: draft and
target a2a backends, --deepep-mode, runners, JIT DeepGEMM, --quantization fp8, attention DP,
multi-layer EAGLE, a dense draft 15% of the time). The draft: a ModelOpt FP8 / NVFP4 / MIXED,
Quark or fp8 checkpoint on a Qwen3.5 MTP, Qwen3-Next MTP, DeepSeek, GLM-MoE-DSA or GLM-4.5
NextN draft (tests.oracle.sglang_draft_lowlat_oracle.DRAFTS). SGLang: its resolution, the
target's MoE block and the draft's build on meta under its own loader's quantization config;
graphfit: its CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_draft_lowlat [COUNT] [SEED] [BEFORE_ROOT]

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
    from tests.oracle import sglang_draft_lowlat_oracle as lo
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import tally_refusals

    so.oracle()
    paths = lo.dirs(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for _ in range(count):
            line, jit = ddo.draw(rng, paths, tuple(lo.DRAFTS))
            theirs, (code, said) = lo.answers(paths, line, jit)
            yield (f"{Path(line[9]).name} {line[10:]} jit={jit}", theirs, code, said,
                   ddo.agree(theirs, code, said))

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_draft_lowlat", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
