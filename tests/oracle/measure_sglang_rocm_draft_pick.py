"""ROCm's pick of a DeepSeek-family NVFP4 EAGLE draft's MoE backends (issue 23, s70n;
graphfit.planner.engines.sglang_rocm_draft_pick; arg_groups/overrides.py:846-887): drawn lines
over what the pass reads (tests.oracle.sglang_rocm_draft_pick_oracle.draw: the algorithm,
`--quantization`, the draft backends, `--ep-size`, a target a2a backend, the variable
SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE, MI300X or CUDA) on a DeepSeek-V3, GLM-MoE-DSA or GLM-4 MoE
NVFP4 target, against SGLang's resolution and `check_server_args`; BEFORE_ROOT's graphfit on
the same draw in a child process.

    python -m tests.oracle.measure_sglang_rocm_draft_pick [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before, print_agreement


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_rocm_draft_pick_oracle as rdp

    logging.disable(logging.WARNING)
    so.oracle()
    paths = rdp.dirs(Path(tempfile.mkdtemp()))
    rng = random.Random(seed)

    def one() -> tuple[str, str]:
        target = paths[rng.choice(sorted(paths))]
        line, env, gpu = rdp.draw(rng)
        return rdp.compare(target, line, env, gpu)

    return print_agreement(count, one)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_rocm_draft_pick", measure, sys.argv[1:],
                                      60, "lines"))
