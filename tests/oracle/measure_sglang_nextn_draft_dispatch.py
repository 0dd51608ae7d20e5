"""A NextN MoE draft's Mooncake / NixlEP dispatcher (issue 23, s60d) over drawn EAGLE / NEXTN
lines on a Qwen3-MoE target: the draft one of the NextN checkpoints of
tests.oracle.sglang_draft_build.NEXTN_DRAFTS (DeepSeek-V3 / V3.2, GLM-MoE-DSA, GLM-4-MoE(-Lite),
Bailing hybrid; s62d: ERNIE-4.5-MoE, Qwen3-Next), a Qwen3-MoE or a Llama one; the draft
backend, --deepep-mode, the target's backend, multi-layer EAGLE drawn. SGLang: its resolution
with the oracle's shared build steps (the target's dispatcher,
tests.oracle.sglang_mooncake_build; the draft model, tests.oracle.sglang_draft_build);
graphfit: its CLI. Both refuse (graphfit naming the dispatcher's file where SGLang's draft
build raises) or both start.

    python -m tests.oracle.measure_sglang_nextn_draft_dispatch [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines (tests.oracle.measure_sglang_draft_dispatch.score); print
    and return the counts."""
    from tests.oracle import sglang_draft_build as sdb
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle.measure_sglang_draft_dispatch import score

    so.oracle()
    root = Path(tempfile.mkdtemp())
    target = sglang_stubs.write_moe_model_dir(root / "target")
    drafts = (*sdb.write_nextn_drafts(root).values(),
              sglang_stubs.write_moe_model_dir(root / "qwen3-draft"),
              sglang_stubs.write_model_dir(root / "llama-draft"))
    counts, lines, refused = score(count, random.Random(seed), target, drafts,
                                   ("EAGLE", "NEXTN"), ("none", "none", "none", "deepep", "nixl"))
    for line in [x for x in lines if not x.startswith("not modelled")][:8]:
        print("  " + line)
    print(f"SGLang refused {refused} of {count} lines")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_nextn_draft_dispatch", measure, argv, 40, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
