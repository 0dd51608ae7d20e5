"""A DFLASH / DSPARK draft's layer count where its config.json writes none (issue 23, s60d).

SGLang 0.5.23 reads the draft's layer count off the draft ModelConfig's `hf_config`
(`parse_dflash_draft_config`, speculative/dflash_utils.py:588-597, through `_cfg_get` /
`_get_text_config`, :420-440; `require_num_layers`, :545-551; called by the target runner,
model_runner_components/spec_aux_hidden_state.py:211-219). That config is the object
SGLang's `get_config` loads (utils/hf_transformers/common.py): the config class of its
`model_type`, so a config.json with no `num_hidden_layers` carries the class default, and
"DFLASH requires draft num_hidden_layers" is raised only where the loaded object has none.

`CLASS_LAYERS` restates the default of the classes SGLang loads for common draft model types
(transformers 5.25's, none of them in SGLang's own `_CONFIG_REGISTRY`); a model type outside it
keeps graphfit's earlier answer (the file's value only).

s62d: more plain model types, and the composite (multimodal) classes in `TEXT_CLASS_LAYERS`,
whose loaded config always carries a `text_config` object that `_get_text_config`
(dflash_utils.py:426-440) reads: with no `text_config` in the file it is the class's default
text config (the top-level `num_hidden_layers` is not read, except by Qwen2-VL / Qwen2.5-VL,
whose class hands it on), with a `text_config` dict that writes no count it is the sub-config
class's own default (Mistral3's and PaliGemma's differ from the first). A plain class given a
`text_config` dict fails at load (not this rule's words).

s63c: a null `text_config` on a composite class reads as an absent one; Kimi-VL (SGLang's
own config class) is in the table; DeepSeek-VL2 has no class default (SGLang reads the
file's top-level count, and raises without one), so graphfit's reading of the file stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# model_type -> `num_hidden_layers` of transformers 5.25's config class
CLASS_LAYERS: dict[str, int] = {
    "llama": 32,        # LlamaConfig
    "mistral": 32,      # MistralConfig
    "qwen2": 32,        # Qwen2Config
    "qwen3": 32,        # Qwen3Config (DFLASH drafts are written as qwen3)
    "qwen3_moe": 24,    # Qwen3MoeConfig
    "gpt_oss": 36,      # GptOssConfig
    "deepseek_v3": 61,  # DeepseekV3Config
    "glm4_moe": 46,     # Glm4MoeConfig
    "minimax_m2": 62,   # MiniMaxM2Config
    # s62d
    "mixtral": 32, "qwen2_moe": 24, "deepseek_v2": 32, "glm4": 40, "gemma": 28, "gemma2": 26,
    "gemma3_text": 26, "phi3": 32, "qwen3_next": 48, "olmo2": 32, "granite": 32, "exaone4": 32,
    "ernie4_5_moe": 28, "starcoder2": 30, "hunyuan_v1_dense": 32, "lfm2": 32,
}

# s62d: composite model_type -> (layers with no `text_config` in the file, layers with a
# `text_config` dict writing none, whether a top-level `num_hidden_layers` is read when the file
# has no `text_config`), as SGLang's `get_config` (transformers 5.25) loads them
TEXT_CLASS_LAYERS: dict[str, tuple[int, int, bool]] = {
    "gemma3": (26, 26, False), "gemma3n": (35, 35, False), "mistral3": (40, 32, False),
    "paligemma": (18, 28, False), "llava": (32, 32, False), "llama4": (48, 48, False),
    "mllama": (40, 40, False), "idefics3": (32, 32, False), "internvl": (32, 32, False),
    "qwen2_vl": (80, 80, True), "qwen2_5_vl": (80, 80, True), "qwen3_vl": (32, 32, False),
    "qwen3_vl_moe": (24, 24, False), "qwen3_5": (48, 48, False), "qwen3_5_moe": (48, 48, False),
    "glm4v": (40, 40, False), "glm4v_moe": (46, 46, False),
    # s63c: SGLang's own KimiVLConfig builds SGLang's DeepseekV2Config (30 layers,
    # configs/deepseekvl2.py:560) for a missing / null / dict text config (configs/kimi_vl.py:
    # 29-33)
    "kimi_vl": (30, 30, False),
}


def class_default(data: Mapping[str, Any]) -> int | None:
    """The layer count SGLang's loaded draft config has where the top-level config.json
    (`data`) writes no `num_hidden_layers` and no `text_config` dict: its class default
    (`CLASS_LAYERS`), else None (not restated, or the file writes the key or a text config)."""
    if "num_hidden_layers" in data or isinstance(data.get("text_config"), dict):
        return None
    model_type = data.get("model_type")
    return CLASS_LAYERS.get(model_type) if isinstance(model_type, str) else None


def composite_layers(data: Mapping[str, Any]) -> int | None:
    """The layer count of a composite class's loaded text config (`TEXT_CLASS_LAYERS`) where
    the file leaves it to a class default: no `text_config` (and no top-level count the class
    hands on), or a `text_config` dict writing no `num_hidden_layers`. None otherwise: the
    file's own text-config value (or handed-on top-level value) is read as before."""
    model_type = data.get("model_type")
    row = TEXT_CLASS_LAYERS.get(model_type) if isinstance(model_type, str) else None
    if row is None:
        return None
    absent, empty, hands_on = row
    # s63c: a null `text_config` is the class's `text_config=None`, which builds the default
    # text config as an absent one does (transformers' composite __init__; SGLang's loaded
    # config then reads as with none)
    if data.get("text_config") is None:
        return None if hands_on and "num_hidden_layers" in data else absent
    text = data["text_config"]
    return empty if isinstance(text, dict) and "num_hidden_layers" not in text else None


__all__ = ["CLASS_LAYERS", "TEXT_CLASS_LAYERS", "class_default", "composite_layers"]
