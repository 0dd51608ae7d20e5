"""The context length a model class gives SGLang when its config.json writes no length key.

SGLang loads config.json through transformers' config class for its `model_type`
(utils/hf_transformers/config.py:228, AutoConfig), so a length key the file leaves out is the
class's default, and `get_context_length` (utils/hf_transformers/common.py:677-700) reads that
default before its own 2048 (:700). graphfit restates the defaults of the text-only classes
below (transformers 5.25, the oracle's; `models/<type>/configuration_<type>.py:<line>`): each
sets only max_position_embeddings among SGLang's length keys (common.py:668-674). SGLang's own
classes (`_CONFIG_REGISTRY`, common.py:117) are restated below: text classes (OWN_CLASS_KEYS,
NO_LENGTH_CLASSES) and multimodal ones, whose text sub-config carries the default
(TEXT_CLASS_KEYS). Any other model type is unknown: graphfit warns and asks for
`--context-length` (its own default length stands meanwhile, as for a hub id with no local
files).

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
    "xglm": 2048,  # :50 (issue 23 s45l; its other names: ALIASES)
}

# SGLang's OWN config classes (its `_CONFIG_REGISTRY`, utils/hf_transformers/common.py:117-180,
# 199-250) whose loaded config is its own text config (get_hf_text_config returns it,
# common.py:547-612): the class defaults of SGLang's length keys, in configs/<file>.py:<line>.
# A class that defaults an EARLIER key than the one a file writes (ChatGLM's seq_length,
# Step-3.5's max_seq_len) gives that default first (common.py:695-698).
OWN_CLASS_KEYS: Mapping[str, Mapping[str, int]] = {
    "afmoe": {"max_position_embeddings": 131072},  # afmoe.py:20
    "bailing_hybrid": {"max_position_embeddings": 32768},  # bailing_hybrid.py:69
    "beam": {"max_position_embeddings": 1048576},  # beam.py:56
    # chatglm.py:27, :57 (max_position_embeddings = seq_length)
    "chatglm": {"seq_length": 2048, "max_position_embeddings": 2048},
    "dbrx": {"max_seq_len": 2048},  # dbrx.py:234 (max_position_embeddings is it, :226)
    "deepseek_v32": {"max_position_embeddings": 4096},  # DeepseekV3Config alias, common.py:207
    "deepseek_v4": {"max_position_embeddings": 4096},  # DeepseekV3Config alias, common.py:210
    "kimi_k2": {"max_position_embeddings": 4096},  # DeepseekV3Config alias, common.py:230
    "exaone": {"max_position_embeddings": 2048},  # exaone.py:147
    "falcon_h1": {"max_position_embeddings": 8192},  # falcon_h1.py:157
    "gigachat3_5": {"max_position_embeddings": 4096},  # gigachat35.py:41
    "hy_v4": {"max_position_embeddings": 262144},  # hy_v4.py:19
    "kimi_linear": {"max_position_embeddings": 4096},  # kimi_linear.py:63
    "laguna": {"max_position_embeddings": 131072},  # laguna.py:98
    "longcat_flash": {"max_position_embeddings": 131072},  # longcat_flash.py:32
    "minicpm_sala": {"max_position_embeddings": 32768},  # minicpm.py:47
    "muse_glimmer": {"max_position_embeddings": 16384},  # muse_glimmer.py:93
    "nanbeige": {"max_position_embeddings": 4096},  # nanbeige.py:131
    "nemotron_h": {"max_position_embeddings": 4096},  # nemotron_h.py:271
    "olmo3": {"max_position_embeddings": 2048},  # olmo3.py:43
    "qwen3_next": {"max_position_embeddings": 32768},  # qwen3_next.py:193
    "qwen3_5_text": {"max_position_embeddings": 32768},  # qwen3_5.py:15 (Qwen3NextConfig's)
    "qwen3_5_moe_text": {"max_position_embeddings": 32768},  # qwen3_5.py (Qwen3NextConfig's)
    "qwen4_exp_text": {"max_position_embeddings": 32768},  # qwen4_exp.py:15 (Qwen3NextConfig's)
    "interns2_mobius_text": {"max_position_embeddings": 32768},  # interns2_mobius.py:17
    "spark2_5": {"max_position_embeddings": 8192},  # spark2_5.py:22
    "step3p5": {"max_seq_len": 128000, "max_position_embeddings": 128000},  # step3p5.py:17, :25
}
# SGLang's own classes that rewrite the RoPE dict they are given (beam.py:23-37, :137;
# laguna.py:40-80): a factor written there does not scale their default as
# get_context_length's reading of a standard dict would; graphfit restates the default only
# when no RoPE factor is given, and asks otherwise (not modelled). HY-V4's dict
# (hy_v4.py:85-90) is restated by graphfit.inputs.sglang_own_rope (issue 23, s41c)
REWRITES_ROPE = frozenset({"beam", "laguna"})
# SGLang's own text classes that default none of the length keys: get_context_length's 2048
# (common.py:700), NOT scaled by a RoPE factor (the factor multiplies a key's value only)
NO_LENGTH_CLASSES = frozenset({
    "falcon_mamba", "mamba", "mamba2",  # mamba.py:41, :64, mamba2.py:22 (HF Mamba classes)
    "jet_nemotron",  # jet_nemotron.py:35 (max_position_embeddings: None)
    "k2_horizon", "xllm",  # k2_horizon.py:25, :29
})

# SGLang's own MULTIMODAL classes that build their text sub-config from `text_config` (a dict,
# or the sub-config class's defaults when absent): get_hf_text_config returns that sub-config
# (common.py:547-612) and get_context_length reads its length keys (:668-700), so with no
# length key written the TEXT class's defaults apply, scaled by the text config's RoPE dict.
# model_type -> those defaults (configs/<file>.py:<line> where the text config is built, then
# where the default is set)
TEXT_CLASS_KEYS: Mapping[str, Mapping[str, int]] = {
    # qwen3_5.py:100-103, Qwen3_5TextConfig(Qwen3NextConfig): qwen3_next.py:193
    "qwen3_5": {"max_position_embeddings": 32768},
    "qwen3_5_moe": {"max_position_embeddings": 32768},  # qwen3_5.py (Qwen3_5MoeTextConfig)
    "intern_s2_preview": {"max_position_embeddings": 32768},  # interns2preview.py:16-20
    "interns2_mobius": {"max_position_embeddings": 32768},  # interns2_mobius.py:34-48
    "qwen4_exp": {"max_position_embeddings": 32768},  # qwen4_exp.py:158-161 (Qwen3Next's)
    "step3_vl": {"max_seq_len": 65536},  # step3_vl.py:161-164, Step3TextConfig :47
    # step3p7.py:75-82, Step3p5Config: step3p5.py:17, :25
    "step3p7": {"max_seq_len": 128000, "max_position_embeddings": 128000},
    "kimi_vl": {"max_position_embeddings": 2048},  # kimi_vl.py:29-32, deepseekvl2.py:583
    # locate_anything.py:44-47, transformers' Qwen2Config (qwen2/configuration_qwen2.py:67)
    "locateanything": {"max_position_embeddings": 32768},
}
# Qwen4-Exp's text-only checkpoints: with no text_config and hidden_size and
# num_hidden_layers at the top level, the top-level keys (its RoPE dict included) build the
# text config (qwen4_exp.py:143-150, :161); the other classes' default text config takes none


# the multimodal classes whose TEXT config has no max_position_embeddings either (Step3-VL's
# Step3TextConfig sets max_seq_len only, step3_vl.py:47, :125), and Qwen4-Exp, whose parent
# config takes its text config's RoPE dict (qwen4_exp.py:169-171): a dict nested in
# text_config reaches a config object with no max_position_embeddings
NESTED_ROPE_FAILS = frozenset({"step3_vl", "qwen4_exp"})
# RoPE types transformers' standardization gives original_max_position_embeddings from
# self.max_position_embeddings (modeling_rope_utils.py:853-860; the argument is read even
# when the dict has the key)
_NEEDS_MPE = frozenset({"llama3", "yarn", "longrope"})


def load_failure(data: Mapping[str, Any]) -> str | None:
    """Why SGLang fails to load a multimodal class's config.json (None: it loads): a
    llama3 / yarn / longrope RoPE dict on a config object with no max_position_embeddings
    (the parent class; NESTED_ROPE_FAILS) raises AttributeError in transformers'
    standardize_rope_params (modeling_rope_utils.py:860) while the class is built."""
    kind = model_type(data) or ""
    if kind not in TEXT_CLASS_KEYS:  # Qwen4-Exp's text-only form too: its parent takes them
        return None
    text = data.get("text_config")
    # a top-level dict: the parent config's checks, graphfit.inputs.sglang_own_rope.PARENT
    # (issue 23, s41c: a yarn rope_parameters dict with its original_max_position_embeddings
    # loads when max_position_embeddings is written at the top)
    holders: list[tuple[str, Mapping[str, Any]]] = [("", data)] if top_level_text(data) else []
    if (isinstance(text, dict) and kind in NESTED_ROPE_FAILS
            and not (kind == "qwen4_exp" and data.get("rope_parameters"))):  # its own wins
        holders.append(("text_config.", text))
    for prefix, holder in holders:
        key = "rope_scaling" if holder.get("rope_scaling") else "rope_parameters"
        rope = holder.get(key)
        kind_of_rope = rope.get("rope_type") or rope.get("type") if isinstance(rope, dict) else None
        # measured: yarn fails under either key (its validator reads max_position_embeddings,
        # :1022); llama3 / longrope under rope_scaling (standardized by transformers' setter)
        fails = kind_of_rope == "yarn" or (key == "rope_scaling" and kind_of_rope in _NEEDS_MPE)
        if fails and "original_max_position_embeddings" not in holder:
            return (f"SGLang fails loading it: transformers' RoPE checks of {prefix}{key} "
                    f"({kind_of_rope}) read max_position_embeddings, which model_type {kind!r} "
                    "has not set there (modeling_rope_utils.py:860, :1022)")
    return None


def text_class_keys(data: Mapping[str, Any]) -> Mapping[str, int] | None:
    """The text sub-config's default length keys for SGLang's own multimodal class
    (TEXT_CLASS_KEYS); None for any other class."""
    return TEXT_CLASS_KEYS.get(model_type(data) or "")


def top_level_text(data: Mapping[str, Any]) -> bool:
    """Whether the text config SGLang builds takes the file's top-level keys: a nested
    `text_config` written, no; Qwen4-Exp's text-only form (qwen4_exp.py:143-150), yes."""
    return (model_type(data) == "qwen4_exp" and data.get("text_config") is None
            and "hidden_size" in data and "num_hidden_layers" in data)


_GPT2_NAMES = {"max_position_embeddings": "n_positions", "hidden_size": "n_embd",
               "num_hidden_layers": "n_layer", "num_attention_heads": "n_head"}
# model_type -> {standard name: the class's own spelling} (transformers' attribute_map)
ALIASES: Mapping[str, Mapping[str, str]] = {
    "gpt2": _GPT2_NAMES,  # gpt2/configuration_gpt2.py:70-75
    "gptj": _GPT2_NAMES,  # gptj/configuration_gptj.py attribute_map
    "gpt_bigcode": _GPT2_NAMES,  # gpt_bigcode/configuration_gpt_bigcode.py attribute_map
    # SGLang's own classes with an attribute_map (their real config.json files write these)
    "dbrx": {"hidden_size": "d_model", "num_hidden_layers": "n_layers",  # dbrx.py:222-227
             "num_attention_heads": "n_heads", "max_position_embeddings": "max_seq_len"},
    "chatglm": {"num_hidden_layers": "num_layers"},  # chatglm.py:14-16
    "exaone": {"num_hidden_layers": "num_layers"},  # exaone.py:142
    # transformers' XGLMConfig (xglm/configuration_xglm.py:43-46)
    "xglm": {"num_attention_heads": "attention_heads", "hidden_size": "d_model",
             "num_hidden_layers": "num_layers"},
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


def written(data: Mapping[str, Any], key: str) -> bool:
    """Whether the file sets `key` on the loaded config: under its own name, or under the
    name transformers' attribute_map stores it as, or as the standard name of which `key`
    is the class's own spelling (DBRX's max_seq_len is max_position_embeddings)."""
    aliases = ALIASES.get(model_type(data) or "", {})
    names = {key, aliases.get(key, key), *(k for k, v in aliases.items() if v == key)}
    return any(name in data for name in names)


def class_keys(data: Mapping[str, Any]) -> Mapping[str, int]:
    """SGLang's length keys the config's class defaults ({}: none, or a class graphfit does
    not know): CLASS_LENGTHS (transformers' classes) and OWN_CLASS_KEYS (SGLang's own)."""
    kind = model_type(data) or ""
    if kind in OWN_CLASS_KEYS:
        return OWN_CLASS_KEYS[kind]
    length = CLASS_LENGTHS.get(kind)
    return {} if length is None else {"max_position_embeddings": length}


def class_keys_with(data: Mapping[str, Any], rope: object) -> Mapping[str, int]:
    """class_keys, except for a class that rewrites a RoPE dict it is given (REWRITES_ROPE)
    when `rope` (the dict SGLang's config would carry) has a factor: {} (not known)."""
    if (model_type(data) or "") in REWRITES_ROPE and isinstance(rope, dict) and "factor" in rope:
        return {}
    return class_keys(data)


def no_length_class(data: Mapping[str, Any]) -> bool:
    """Whether the config's class defaults no length key (NO_LENGTH_CLASSES): 2048."""
    return (model_type(data) or "") in NO_LENGTH_CLASSES


def ask(origin: str, data: Mapping[str, Any], *, draft: bool = False) -> str:
    """graphfit's question when it cannot know the length SGLang takes (one line); for a
    draft model, that it cannot check the draft against the target's length."""
    kind = model_type(data)
    then = ("SGLang refuses the line if it is below the target's context length (not checked)"
            if draft else "graphfit's max length is used (pass --context-length)")
    return (f"{origin}: no context length key, and graphfit does not know the class default "
            f"SGLang takes for model_type {kind!r:.40}: {then}")
