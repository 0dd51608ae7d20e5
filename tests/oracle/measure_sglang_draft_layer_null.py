"""A DFLASH / DSPARK draft of a composite (multimodal) class whose config.json leaves the layer
count to a class default: `text_config` null, absent or an empty dict, with or without a
top-level count (issue 23, s63c), Kimi-VL and DeepSeek-VL2 among the classes. SGLang: the
layer count its DFLASH parse reads off the config its loader builds (or the error's class
name; tests.oracle.test_sglang_draft_layer_default_oracle._sglang_layers); graphfit: DSPARK's
draft layer count (graphfit.inputs.sglang_dspark.draft_layers), None standing for SGLang's
"requires draft num_hidden_layers" ValueError.

    python -m tests.oracle.measure_sglang_draft_layer_null [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
from typing import Any

TYPES = ("gemma3", "gemma3n", "mistral3", "paligemma", "llava", "llama4", "mllama",
         "idefics3", "internvl", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe",
         "qwen3_5", "glm4v", "glm4v_moe", "kimi_vl", "deepseek_vl_v2")
ABSENT = object()


def _draft(rng: random.Random) -> dict[str, Any]:
    draft: dict[str, Any] = {"architectures": ["DFlashDraftModel"], "block_size": 4,
                             "model_type": rng.choice(TYPES)}
    text = rng.choice((None, None, ABSENT, {}, {"num_hidden_layers": 3}))
    if text is not ABSENT:
        draft["text_config"] = text
    if rng.random() < 0.4:
        draft["num_hidden_layers"] = rng.choice((1, 2, 5))
    return draft


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn drafts; print and return the counts."""
    from graphfit.inputs.sglang_dspark import draft_layers
    from tests.oracle import sglang_oracle as so
    from tests.oracle.test_sglang_draft_layer_default_oracle import _sglang_layers

    so.oracle()
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "sglang raises": 0}
    shown = 0
    for _ in range(count):
        draft = _draft(rng)
        theirs = _sglang_layers(draft)
        try:
            ours: Any = draft_layers(draft, "draft")
        except Exception as exc:  # graphfit's refusal, by kind
            ours = type(exc).__name__
        counts["sglang raises"] += not isinstance(theirs, int)
        same = theirs == ours or (theirs == "ValueError" and ours is None)
        counts["agree" if same else "differ"] += 1
        if not same and shown < 6:
            shown += 1
            print(f"  {draft}: SGLang {theirs}; graphfit {ours}")
    print({**counts, "drafts": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_draft_layer_null", measure, argv, 200, "drafts")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
