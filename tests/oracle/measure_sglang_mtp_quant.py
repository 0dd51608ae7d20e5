"""Quantized Qwen3.5 / Qwen4-Exp MTP drafts whose MTP module drops the checkpoint's
quantization config (issue 23, s68d) over drawn EAGLE lines on a Qwen3-MoE target
(tests.oracle.sglang_draft_deepep_oracle's draw: draft and target a2a backends,
--deepep-mode, runners, JIT DeepGEMM, FP8, attention DP, multi-layer EAGLE, a dense draft 15%
of the time). The draft: a ModelOpt NVFP4 / MIXED_PRECISION or Quark checkpoint
(tests.oracle.sglang_mtp_quant_oracle.DRAFTS, less the KEPT ones). SGLang: its resolution,
the target's MoE block and the draft's build on meta under its own loader's quantization
config; graphfit: its CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_mtp_quant [COUNT] [SEED] [BEFORE_ROOT]

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
    from tests.oracle import sglang_mtp_quant_oracle as mq
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import tally_refusals

    so.oracle()
    paths = mq.dirs(Path(tempfile.mkdtemp()))
    drafts = tuple(name for name in mq.DRAFTS if name not in mq.KEPT)
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for _ in range(count):
            line, jit = ddo.draw(rng, paths, drafts)
            theirs, (code, said) = mq.answers(paths, line, jit)
            yield (f"{Path(line[9]).name} {line[10:]}", theirs, code, said,
                   ddo.agree(theirs, code, said))

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_mtp_quant", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
