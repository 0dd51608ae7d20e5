"""A NextN MoE draft's Mooncake / NixlEP dispatcher (issue 23, s60d) over drawn EAGLE / NEXTN
lines on a Qwen3-MoE target: the draft one of the NextN checkpoints of
tests.oracle.sglang_draft_build.NEXTN_DRAFTS (DeepSeek-V3 / V3.2, GLM-MoE-DSA, GLM-4-MoE(-Lite),
Bailing hybrid), a Qwen3-MoE or a Llama one; the draft backend, --deepep-mode, the target's
backend, multi-layer EAGLE drawn. SGLang: its resolution with the oracle's shared build steps
(the target's dispatcher, tests.oracle.sglang_mooncake_build; the draft model,
tests.oracle.sglang_draft_build); graphfit: its CLI. Both refuse (graphfit naming the
dispatcher's file where SGLang's draft build raises) or both start.

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
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_draft_build as sdb
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle.measure_root import tally

    so.oracle()
    root = Path(tempfile.mkdtemp())
    target = sglang_stubs.write_moe_model_dir(root / "target")
    drafts = (*sdb.write_nextn_drafts(root).values(),
              sglang_stubs.write_moe_model_dir(root / "qwen3-draft"),
              sglang_stubs.write_model_dir(root / "llama-draft"))
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    refused = 0
    for _ in range(count):
        draft = rng.choice(drafts)
        args = ["--tp-size", "2", "--ep-size", "2", "--speculative-algorithm",
                rng.choice(("EAGLE", "NEXTN")), "--speculative-num-steps", "2",
                "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
                "--speculative-draft-model-path", str(draft), "--speculative-moe-a2a-backend",
                rng.choice(("mooncake", "mooncake", "nixl", "nixl", "none", "deepep")),
                "--deepep-mode", rng.choice(("auto", "normal", "low_latency")),
                "--moe-a2a-backend", rng.choice(("none", "none", "none", "deepep", "nixl"))]
        if rng.random() < 0.2:
            args.append("--enable-multi-layer-eagle")
        r = so.resolve(tuple(args), model=str(target))
        theirs = r.text if isinstance(r, so.Rejected) else None
        refused += theirs is not None
        code, said = dc.graphfit(target, tuple(args), True)
        site = next((s for s in ("mooncake.py", "nixl.py") if theirs and s in theirs), None)
        tally(counts, lines, (theirs is None) == (code == 0) and (site is None or site in said),
              said, f"{draft.name} {' '.join(args[10:])}: SGLang {theirs and theirs[:110]}; "
                    f"graphfit {code} {said[:140]}")
    for line in [x for x in lines if not x.startswith("not modelled")][:8]:
        print("  " + line)
    print(f"SGLang refused {refused} of {count} lines")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import print_before_in_child

    count = int(argv[0]) if argv else 40
    seed = int(argv[1]) if len(argv) > 1 else 23
    before = argv[2] if len(argv) > 2 else "/work/main"
    print(f"after (this checkout), {count} lines, seed {seed}:")
    counts = measure(count, seed)
    print_before_in_child("measure_sglang_nextn_draft_dispatch", count, seed, before)
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
