"""Written sub-config dicts whose RoPE values, per-layer-type nesting, `layer_types` or dtype
string SGLang 0.5.23's bare PretrainedConfig computes with (issue 23, s70e;
graphfit.inputs.sglang_bare_rope_values, sglang_bare_dtype). Each is a plain class's
config.json (tests.oracle.sglang_text_values' `config`) with the dict picked
(`thinker_config` / `llm_config` / `language_config`) or a `text_config` beside the pick;
SGLang's side and the verdict are tests.oracle.sglang_text_values' (its own ModelConfig for
the line, or its refusal). Used by test_sglang_bare_values_oracle and
measure_sglang_bare_values.
"""

from __future__ import annotations

import random
from typing import Any

from tests.oracle import sglang_text_values as tv

_YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
_LLAMA3 = {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 8192,
           "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0}
_LONG = {"rope_type": "longrope", "short_factor": [1.0] * 64, "long_factor": [1.0] * 64,
         "original_max_position_embeddings": 8192, "factor": 2.0}
# RoPE dicts whose keys are all written, some with a value of the wrong type
TYPED_ROPES: tuple[dict[str, Any], ...] = (
    dict(_YARN), dict(_YARN, original_max_position_embeddings=None),
    dict(_YARN, original_max_position_embeddings="8192"),
    dict(_YARN, original_max_position_embeddings=0), dict(_YARN, factor="4"),
    dict(_YARN, beta_fast="32"), dict(_YARN, beta_fast=32, beta_slow=None),
    dict(_LLAMA3), dict(_LLAMA3, low_freq_factor=None), dict(_LLAMA3, high_freq_factor="4"),
    dict(_LLAMA3, original_max_position_embeddings=None),
    dict(_LLAMA3, factor="4", low_freq_factor="1", high_freq_factor="4"),
    dict(_LONG), dict(_LONG, short_factor=None), dict(_LONG, long_factor=3),
    dict(_LONG, factor="2"), dict(_LONG, partial_rotary_factor=None),
    {"rope_type": "linear", "factor": "2"}, {"rope_type": "linear", "factor": None},
    {"rope_type": "dynamic", "factor": 2.0, "partial_rotary_factor": None},
    {"rope_type": "default", "partial_rotary_factor": 0.5},
)
# per-layer nested values (null: a NoPE layer, skipped)
NESTED: tuple[Any, ...] = (None, {"rope_type": "default"}, {"rope_type": "linear", "factor": 2.0},
                           {"rope_type": "linear"}, dict(_YARN), {"rope_type": "yarn"}, 3)
LAYER_NAMES = ("full_attention", "sliding_attention", "attention", "mamba", "local")
HEAD_DIMS: tuple[Any, ...] = (128, 129, "128", None, 96.0)
DTYPE_STRINGS = ("fp16", "bf16", "torch.bfloat16", "bfloat16", "float16", "float32")


def nested_rope(rng: random.Random, sub: dict[str, Any]) -> None:
    """A `layer_types` (as many entries as the layers, or not) and a RoPE dict nested under
    two of its names (or under names it does not hold: a flat dict)."""
    layers = sub.get("num_hidden_layers", 12)
    names = rng.sample(LAYER_NAMES, 2)
    count = layers if rng.random() < 0.8 else layers + 1
    sub["layer_types"] = [names[i % 2] for i in range(count)]
    keys = names if rng.random() < 0.8 else rng.sample(LAYER_NAMES, 2)
    sub[rng.choice(("rope_parameters", "rope_scaling"))] = {
        key: rng.choice(NESTED) for key in keys}


def mutate(rng: random.Random, sub: dict[str, Any]) -> None:
    """One of: a typed RoPE dict (with a head_dim at times), a nested one, a dtype string."""
    kind = rng.random()
    if kind < 0.45:
        sub[rng.choice(("rope_scaling", "rope_parameters"))] = dict(rng.choice(TYPED_ROPES))
        if rng.random() < 0.3:
            sub["head_dim"] = rng.choice(HEAD_DIMS)
    elif kind < 0.75:
        nested_rope(rng, sub)
    else:
        key = rng.choice(("dtype", "torch_dtype"))
        sub[key] = rng.choice(DTYPE_STRINGS)
        if key == "torch_dtype" and rng.random() < 0.3:
            sub["dtype"] = rng.choice((None, "bfloat16"))


def draw(rng: random.Random) -> dict[str, Any]:
    """A plain class's config whose picked dict, or a text_config beside it, is mutated."""
    key = rng.choice(tv.PICKED)
    beside = rng.random() < 0.3
    found = tv.config(rng.choice(sorted(tv.TYPES)), key, dict(tv.SUB), dict(tv.TEXT), beside)
    mutate(rng, found["text_config" if beside else key])
    if rng.random() < 0.2:
        mutate(rng, found[key])
    return found


def verdict(data: dict[str, Any]) -> str:
    """tests.oracle.sglang_text_values' verdict: "agree", "refused" or "differ: ..."."""
    return tv.verdict(data)
