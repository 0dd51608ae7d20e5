"""DFLASH drafts whose config.json writes no `num_hidden_layers` (issue 23, s60d), drawn:
a draft of a common model type (graphfit.inputs.sglang_draft_layer_default.CLASS_LAYERS; s62d:
also composite ones, TEXT_CLASS_LAYERS, with or without a text config) with or without a
written layer count and target layer ids, beside a target of 1-64 layers.
SGLang: its target-layer resolution on the draft config its loader builds
(tests.oracle.sglang_dflash_layers.sglang_refusal, `loaded`); graphfit:
`graphfit.inputs.sglang_dflash_layers.refusal`. Agree: the same sentence or both resolve.

    python -m tests.oracle.measure_sglang_draft_layer_default [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then BEFORE_ROOT's (default /work/main) on the same pairs in a
child process ("before").
"""

from __future__ import annotations

import random
import sys
from typing import Any

MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "gpt_oss", "deepseek_v3",
               "glm4_moe", "minimax_m2",
               # s62d: more plain classes, and composite ones (a text config, written or not)
               "mixtral", "gemma2", "phi3", "qwen3_next", "ernie4_5_moe", "starcoder2")
COMPOSITE_TYPES = ("gemma3", "mistral3", "paligemma", "qwen2_5_vl", "qwen3_vl", "llama4",
                   "glm4v_moe")


def _pair(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    target = {"num_hidden_layers": rng.choice((1, 2, 3, 4, 8, 24, 40, 64))}
    composite = rng.random() < 0.4
    draft: dict[str, Any] = {"architectures": ["DFlashDraftModel"], "block_size": 4,
                             "model_type": rng.choice(COMPOSITE_TYPES if composite
                                                      else MODEL_TYPES)}
    if rng.random() < 0.25:
        draft["num_hidden_layers"] = rng.choice((1, 2, 5))
    if composite and rng.random() < 0.5:
        draft["text_config"] = rng.choice(({}, {"num_hidden_layers": rng.choice((1, 2, 5))}))
    ids = [rng.randrange(-1, 66) for _ in range(rng.choice((1, 2, 3)))]
    where = rng.random()
    if where < 0.2:
        draft["target_layer_ids"] = ids
    elif where < 0.35:
        draft["dflash_config"] = {"target_layer_ids": ids}
    return target, draft


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn pairs; print and return the counts."""
    from graphfit.inputs.sglang_dflash_layers import refusal
    from tests.oracle import sglang_dflash_layers as dl

    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "sglang refuses": 0}
    shown = 0
    for _ in range(count):
        target, draft = _pair(rng)
        theirs = dl.sglang_refusal(target, draft, loaded=True)
        ours = refusal(target, draft)
        counts["sglang refuses"] += theirs is not None
        if theirs == ours:
            counts["agree"] += 1
        else:
            counts["differ"] += 1
            if shown < 6:
                shown += 1
                print(f"  {target} {draft}: SGLang {theirs}; graphfit {ours}")
    print({**counts, "pairs": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_draft_layer_default", measure, argv, 200, "pairs")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
