"""The sub-config pick fold (issue 23, s69s): graphfit's answers before and after on the same
drawn config.json objects. Not a test.

    python -m tests.oracle.measure_sglang_text_pick_fold [COUNT] [SEED] [BEFORE_ROOT]

s69s made graphfit.inputs.sglang_text_pick the one statement of SGLang's sub-config order
(`get_hf_text_config`, utils/hf_transformers/common.py:582-608) and its asserted keys
(:597, :605), which graphfit.inputs.sglang_hf_text_config and sglang_processor_path held as
copies. A fold must change no answer: each drawn config (thinker / llm / language / text
sub-configs, present or not, as a dict with or without `num_attention_heads`, a nested
text_config, null, or another JSON value; a dtype; a RoPE dict the bare check refuses; a
class that builds its own sub-configs; a Llava first architecture) is put to every function
that reads the pick: `sglang_text_pick.pick` (plain and `bare`), `sglang_text_values.
text_source`, `sglang_dtype.text_config`, `sglang_hf_text_config.text_config` / `bare` /
`keeps_null` and `sglang_processor_path`'s `_sub_config`. It prints the answers' counts and
a digest of all of them in order, for this tree and (a child process, graphfit from
BEFORE_ROOT's HEAD through tests.oracle.before_tree.frozen, default /work/main) the before
tree; exit 1 where the two lines differ. SGLang's own agreement is the oracle modules'
(test_sglang_text_values_oracle, test_sglang_draft_load_oracle,
test_sglang_dflash_text_config_oracle, test_sglang_processor_path_oracle).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import random
import sys
from collections.abc import Mapping
from typing import Any

KEYS = ("thinker_config", "llm_config", "language_config", "text_config")
KINDS = ("llama", "qwen2", "deepseek_v3", "qwen2_5_omni", "qwen3_omni_moe", "internvl_chat",
         "deepseek_vl_v2", "bailingmm_moe_v2_lite", "llava", "kimi_vl", "gemma3")
ARCHS = ("LlamaForCausalLM", "LlavaLlamaForCausalLM", "Qwen2ForCausalLM",
         "InternVLChatModel", "Gemma3ForConditionalGeneration")
BAD_ROPE = {"rope_type": "yarn", "factor": 2.0}  # no original length: the bare check


def _sub(rng: random.Random, depth: int) -> Any:
    """A drawn sub-config value."""
    pick = rng.randrange(8)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice((7, "text", [1], True))
    found: dict[str, Any] = {"hidden_size": rng.choice((1024, 2048))}
    if rng.random() < 0.7:
        found["num_attention_heads"] = 16
    if rng.random() < 0.6:
        found["num_hidden_layers"] = rng.choice((4, 12, None))
    if rng.random() < 0.15:
        found["rope_scaling"] = dict(BAD_ROPE)
    if rng.random() < 0.2:
        found["architectures"] = [rng.choice(("InternLM2ForCausalLM", "Qwen2ForCausalLM"))]
    if rng.random() < 0.15:
        found["torch_dtype"] = rng.choice(("bfloat16", "float32"))
    if depth == 0 and rng.random() < 0.25:
        found["text_config"] = _sub(rng, 1)
    return found


def draw(rng: random.Random) -> dict[str, Any]:
    """A drawn config.json object (module docstring)."""
    data: dict[str, Any] = {"model_type": rng.choice(KINDS), "hidden_size": 4096,
                            "num_attention_heads": 32, "num_hidden_layers": 24}
    if rng.random() < 0.9:
        data["architectures"] = [rng.choice(ARCHS)]
    if rng.random() < 0.3:
        data[rng.choice(("torch_dtype", "dtype"))] = rng.choice(("bfloat16", "float16"))
    for key in rng.sample(KEYS, len(KEYS)):  # the written order varies too
        if rng.random() < 0.45:
            data[key] = _sub(rng, 0)
    return data


def _where(found: object, data: Mapping[str, Any]) -> str:
    """Which dict of `data` a function returned, by identity."""
    if found is None:
        return "none"
    if found is data:
        return "top"
    for key in KEYS:
        sub = data.get(key)
        if found is sub:
            return key
        if isinstance(sub, dict) and found is sub.get("text_config"):
            return f"{key}.text_config"
    return "other"


def answers(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Every pick reader's answer on `data` (module docstring)."""
    from graphfit.inputs import (
        sglang_dtype,
        sglang_hf_text_config,
        sglang_processor_path,
        sglang_text_pick,
        sglang_text_values,
    )

    kind = str(data["model_type"])
    first = str((data.get("architectures") or [""])[0])
    plain, bare = (sglang_text_pick.pick(data, kind, bare=b) for b in (False, True))
    return [
        ("pick", f"{plain.key}|{plain.failure}"),
        ("pick_bare", f"{bare.key}|{bare.failure}"),
        ("text_source", str(sglang_text_values.text_source(data, data).key)),
        ("dtype_text", _where(sglang_dtype.text_config(data), data)),
        ("hf_text", _where(sglang_hf_text_config.text_config(data), data)),
        ("hf_bare", str(sglang_hf_text_config.bare(data))),
        ("hf_keeps_null", str(sglang_hf_text_config.keeps_null(data))),
        ("processor_sub", str(sglang_processor_path._sub_config(data, first))),
    ]


def measure(count: int, seed: int) -> dict[str, int]:
    """Answer `count` drawn configs; print and return the counts (with the digest)."""
    rng = random.Random(seed)
    counts: collections.Counter[str] = collections.Counter()
    digest = hashlib.sha256()
    for _ in range(count):
        for name, said in answers(draw(rng)):
            digest.update(f"{name}={said};".encode())
            counts[f"{name}:{said.split('|')[0]}"] += 1  # a pick: its key
            if name.startswith("pick") and not said.endswith("|None"):
                counts[f"{name}:failure"] += 1
    found = {**dict(sorted(counts.items())), "digest": int(digest.hexdigest()[:12], 16),
             "lines": count}
    print(found)
    return found


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import print_before_in_child

    count = int(argv[0]) if argv else 2000
    seed = int(argv[1]) if len(argv) > 1 else 23
    before = argv[2] if len(argv) > 2 else "/work/main"
    print(f"after (this checkout), {count} configs, seed {seed}:")
    after = measure(count, seed)
    told = io.StringIO()
    with contextlib.redirect_stdout(told):
        print_before_in_child("measure_sglang_text_pick_fold", count, seed, before)
    print(told.getvalue(), end="")
    same = told.getvalue().rstrip().endswith(str(after))
    print("\nidentical" if same else "\nDIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
