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
keeps graphfit's earlier answer (the file's value only). Only a top-level config is judged: a
`text_config` dict's class default (a sub-config's own class) is not restated.
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
}


def class_default(data: Mapping[str, Any]) -> int | None:
    """The layer count SGLang's loaded draft config has where the top-level config.json
    (`data`) writes no `num_hidden_layers` and no `text_config` dict: its class default
    (`CLASS_LAYERS`), else None (not restated, or the file writes the key or a text config)."""
    if "num_hidden_layers" in data or isinstance(data.get("text_config"), dict):
        return None
    model_type = data.get("model_type")
    return CLASS_LAYERS.get(model_type) if isinstance(model_type, str) else None


__all__ = ["CLASS_LAYERS", "class_default"]
