"""A MoE draft's DeepEPMoE assert (graphfit.planner.engines.sglang_draft_deepep; issue 23,
s61e) over drawn EAGLE lines on a Qwen3-MoE target (tests.oracle.sglang_draft_deepep_oracle
.draw: the draft a Qwen3-MoE or Llama checkpoint, the draft's and the target's a2a backend,
--deepep-mode, the runner, JIT DeepGEMM, the dtype, attention DP, multi-layer EAGLE). Both
must refuse (graphfit naming ep_moe/layer.py where SGLang's assert is there) or both start.

    python -m tests.oracle.measure_sglang_draft_deepep [COUNT] [SEED] [ROOT] [nextn] [runner]

ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure).
`nextn` (s63d): the MoE draft is drawn from the NextN / MTP drafts of
tests.oracle.sglang_draft_build.NEXTN_DRAFTS beside the Qwen3-MoE one; `runner` (s63d): half
the lines set --speculative-moe-runner-backend (deep_gemm, triton, auto, humming)."""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally


def main(argv: list[str]) -> int:
    nextn, runner = "nextn" in argv, "runner" in argv
    count, seed = count_seed_root([word for word in argv if word not in ("nextn", "runner")], 40)
    from tests.oracle import sglang_draft_build as sdb
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_oracle as so

    so.oracle()
    names = sdb.DRAFT_NAMES if nextn else ()
    paths = ddo.dirs(Path(tempfile.mkdtemp()), names)
    drafts = ("qwen3", *names)
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    refused = asserted = 0
    for _ in range(count):
        line, jit = ddo.draw(rng, paths, drafts, ("deep_gemm", "deep_gemm", "triton", "auto",
                                                  "humming") if runner else ())
        theirs, (code, said) = ddo.answers(paths, line, jit)
        refused += theirs is not None
        asserted += bool(theirs and ddo.SITE in theirs)
        tally(counts, lines, ddo.agree(theirs, code, said), said,
              f"{' '.join(line[10:])} jit={jit}: SGLang {theirs and theirs[:110]}; "
              f"graphfit {code} {said[:140]}")
    print_counts(count, seed, counts, lines)
    print(f"SGLang refused {refused} of {count} lines, {asserted} on DeepEPMoE's asserts")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
