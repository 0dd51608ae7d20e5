"""A mori target's rewritten `--deepep-mode` as a quantized MoE draft's low-latency DeepEPMoE
assert reads it (issue 23, s70r; arg_groups/moe_hook.py:545-561, ep_moe/layer.py:168-178)
over drawn EAGLE lines (tests.oracle.sglang_mori_mode_oracle.draw: the target's a2a, mostly
mori; the draft's; the mode; SGLANG_MORI_EP_V2 unset / on / off / unparsable;
SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE; JIT DeepGEMM). SGLang: its resolution under the environment
and the quantized draft's build on meta; graphfit: its CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_mori_mode [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main, read through before_tree.frozen by measure_root) in a child process.
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_mori_mode_oracle as mm
    from tests.oracle import sglang_oracle as so
    from tests.oracle.measure_root import tally_refusals

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")  # SGLang's EnvBool warns on the unparsable values drawn
    so.oracle()
    paths = mm.dirs(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for _ in range(count):
            line, env, jit = mm.draw(rng, paths)
            theirs, (code, said) = mm.answers(paths, line, env, jit)
            yield (f"{' '.join(env)} {Path(line[9]).name} {line[10:]} jit={jit}", theirs, code,
                   said, ddo.agree(theirs, code, said))

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_mori_mode", measure, argv, 40, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
