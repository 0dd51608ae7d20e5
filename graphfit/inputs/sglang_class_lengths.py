"""The context length a model class gives SGLang when its config.json writes no length key.

SGLang loads config.json through transformers' config class for its `model_type`
(utils/hf_transformers/config.py:228, AutoConfig), so a length key the file leaves out is the
class's default, and `get_context_length` (utils/hf_transformers/common.py:677-700) reads that
default before its own 2048 (:700). graphfit restates the defaults of the text-only classes
below (transformers 5.25, the oracle's; `models/<type>/configuration_<type>.py:<line>`): each
sets only max_position_embeddings among SGLang's length keys (common.py:668-674). Any other
model type (a multimodal class, whose text sub-config
carries the default; a class SGLang replaces with its own, `_CONFIG_REGISTRY`, common.py:117;
or one not listed) is unknown: graphfit warns and asks for `--context-length` (its own default
length stands meanwhile, as for a hub id with no local files).

The GPT-2 family spells max_position_embeddings `n_positions`, hidden_size `n_embd`,
num_hidden_layers `n_layer` and num_attention_heads `n_head` (their `attribute_map`,
gpt2/configuration_gpt2.py:70-75); transformers reads either name as the same attribute, so
graphfit's readers do too (`ALIASES`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# model_type -> the class default of max_position_embeddings; line numbers in transformers
# 5.25's models/<type>/configuration_<type>.py
CLASS_LENGTHS: Mapping[str, int] = {
    "llama": 2048,  # :70
    "mistral": 131072,  # :70 (4096 * 32)
    "mixtral": 131072,  # :71
    "qwen2": 32768,  # :67
    "qwen2_moe": 32768,  # :82
    "qwen3": 32768,  # :69
    "qwen3_moe": 32768,  # :84
    "gemma": 8192,  # :74
    "gemma2": 8192,  # :75
    "phi": 2048,  # :72
    "phi3": 4096,  # :70
    "deepseek_v3": 4096,  # :105
    "deepseek_v41": 4096,  # SGLang's DeepseekV3Config subclass (configs/deepseek_v41.py:43)
    "deepseek_v41_text": 4096,  # its subclass (configs/deepseek_v41.py:74)
    "gpt2": 1024,  # n_positions, :78
    "gptj": 2048,  # n_positions, :68
    "gpt_bigcode": 1024,  # n_positions, :59
    "gpt_neox": 2048,  # :70
    "falcon": 2048,  # :81
    "olmo": 2048,  # :73
    "olmo2": 2048,  # :76
    "olmoe": 4096,  # :66
    "starcoder2": 4096,  # :67
    "granite": 2048,  # :70
    "cohere": 8192,  # :74
    "cohere2": 8192,  # :73
    "stablelm": 4096,  # :51
    "opt": 2048,  # :57
    "nemotron": 4096,  # :61
    "glm4": 131072,  # :64
    "glm4_moe": 131072,  # :94
    "minimax": 131072,  # :90
    "ernie4_5": 131072,  # :70
    "gpt_oss": 131072,  # :63
    "seed_oss": 524288,  # :68
    "smollm3": 32768,  # :78
    "ministral": 131072,  # :73
    "apertus": 65536,  # :70
    "arcee": 4096,  # :68
    "exaone4": 2048,  # :85
    "exaone_moe": 2048,  # :92
    "glm4_moe_lite": 202752,  # :99
    "granitemoe": 2048,  # :66
    "lfm2": 128000,  # :64
    "lfm2_moe": 128000,  # :75
    "minicpm3": 32768,  # :94
    "minimax_m2": 196608,  # :79
    "ministral3": 262144,  # :81
    "persimmon": 16384,  # :47
    "phimoe": 131072,  # :69
    "sarvam_moe": 131072,  # :97
}

_GPT2_NAMES = {"max_position_embeddings": "n_positions", "hidden_size": "n_embd",
               "num_hidden_layers": "n_layer", "num_attention_heads": "n_head"}
# model_type -> {standard name: the class's own spelling} (transformers' attribute_map)
ALIASES: Mapping[str, Mapping[str, str]] = {
    "gpt2": _GPT2_NAMES,  # gpt2/configuration_gpt2.py:70-75
    "gptj": _GPT2_NAMES,  # gptj/configuration_gptj.py attribute_map
    "gpt_bigcode": _GPT2_NAMES,  # gpt_bigcode/configuration_gpt_bigcode.py attribute_map
}


_DEEPSEEK_V3 = {"hidden_size": 7168, "vocab_size": 129280, "num_hidden_layers": 61,
                "max_position_embeddings": 4096}
# model_type -> class defaults of the facts graphfit reads (hidden size, vocabulary, layers,
# length) where a config that writes none of them still loads: transformers' DeepseekV3Config
# (deepseek_v3/configuration_deepseek_v3.py:83-105), which SGLang's DeepSeek-V4.1 classes
# subclass (configs/deepseek_v41.py:3, 43, 74)
CLASS_FACTS: Mapping[str, Mapping[str, int]] = {
    "deepseek_v3": _DEEPSEEK_V3,
    "deepseek_v41": _DEEPSEEK_V3,
    "deepseek_v41_text": _DEEPSEEK_V3,
}


def class_fact(data: Mapping[str, Any], key: str) -> int | None:
    """`key`'s class default for this config's class (CLASS_FACTS; None: not restated)."""
    return CLASS_FACTS.get(model_type(data) or "", {}).get(key)


def model_type(data: Mapping[str, Any]) -> str | None:
    """The config's `model_type` (None: absent or not a string)."""
    value = data.get("model_type")
    return value if isinstance(value, str) else None


def spelling(data: Mapping[str, Any], key: str) -> str:
    """The key transformers stores `key` under for this config's class: the class's own
    name when the file writes that one and not the standard name, else `key`."""
    alias = ALIASES.get(model_type(data) or "", {}).get(key)
    if alias is not None and key not in data and alias in data:
        return alias
    return key


def class_length(data: Mapping[str, Any]) -> int | None:
    """max_position_embeddings as the config's class defaults it (None: a class graphfit
    does not know, or no model_type)."""
    return CLASS_LENGTHS.get(model_type(data) or "")


def ask(origin: str, data: Mapping[str, Any]) -> str:
    """graphfit's question when it cannot know the length SGLang takes (one line)."""
    kind = model_type(data)
    return (f"{origin}: no context length key, and graphfit does not know the class default "
            f"SGLang takes for model_type {kind!r:.40}: graphfit's max length is used (pass "
            "--context-length)")
