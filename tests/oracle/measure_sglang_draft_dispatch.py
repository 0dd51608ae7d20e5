"""A MoE draft's Mooncake / NixlEP dispatcher (graphfit.inputs.sglang_draft_a2a; issue 23,
s54e) over drawn EAGLE lines on a Qwen3-MoE target: the draft a Qwen3-MoE, Mixtral or Llama
checkpoint, the draft backend, --deepep-mode, the target's backend, multi-layer EAGLE.
SGLang: its resolution with the oracle's shared build steps (the target's dispatcher,
tests.oracle.sglang_mooncake_build; the draft model, tests.oracle.sglang_draft_build);
graphfit: its CLI. Both must refuse (graphfit naming the dispatcher's file where SGLang's
draft build raises) or both start.

    python -m tests.oracle.measure_sglang_draft_dispatch [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure)."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally


def score(count: int, rng: random.Random, target: Path, drafts: tuple[Path, ...],
          algorithms: tuple[str, ...] = ("EAGLE",),
          target_backends: tuple[str, ...] = ("none", "none", "deepep", "nixl"),
          ) -> tuple[dict[str, int], list[str], int]:
    """Draw and score `count` lines (the counts, the noted lines, how many SGLang refused);
    the algorithm is drawn only where there are several (s60d: NEXTN beside EAGLE), so the
    draws of one algorithm stay s54e's."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_deepep_class_oracle as dc

    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    refused = 0
    for _ in range(count):
        draft = rng.choice(drafts)
        algorithm = rng.choice(algorithms) if len(algorithms) > 1 else algorithms[0]
        args = ["--tp-size", "2", "--ep-size", "2", "--speculative-algorithm", algorithm,
                "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
                "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path",
                str(draft), "--speculative-moe-a2a-backend",
                rng.choice(("mooncake", "mooncake", "nixl", "nixl", "none", "deepep")),
                "--deepep-mode", rng.choice(("auto", "normal", "low_latency")),
                "--moe-a2a-backend", rng.choice(target_backends)]
        if rng.random() < 0.2:
            args.append("--enable-multi-layer-eagle")
        r = so.resolve(tuple(args), model=str(target))
        theirs = r.text if isinstance(r, so.Rejected) else None
        refused += theirs is not None
        code, said = dc.graphfit(target, tuple(args), True)
        site = next((s for s in ("mooncake.py", "nixl.py") if theirs and s in theirs), None)
        tally(counts, lines, (theirs is None) == (code == 0) and (site is None or site in said),
              said, f"{' '.join(args[10:])}: SGLang {theirs and theirs[:110]}; "
                    f"graphfit {code} {said[:140]}")
    return counts, lines, refused


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle import test_sglang_deepep_class_oracle as dc

    so.oracle()
    root = Path(tempfile.mkdtemp())
    mixtral = root / "mixtral"
    mixtral.mkdir()
    (mixtral / "config.json").write_text(json.dumps({**dc.MIXTRAL,  # the target's length
                                                     "max_position_embeddings": 40960}))
    target = sglang_stubs.write_moe_model_dir(root / "target")
    drafts = (sglang_stubs.write_moe_model_dir(root / "qwen3-draft"), mixtral,
              sglang_stubs.write_model_dir(root / "llama-draft"))
    counts, lines, refused = score(count, random.Random(seed), target, drafts)
    print_counts(count, seed, counts, lines)
    print(f"SGLang refused {refused} of {count} lines")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
