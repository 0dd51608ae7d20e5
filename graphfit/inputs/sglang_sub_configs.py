"""SGLang's own multimodal classes whose text config is `llm_config` / `language_config`.

`get_hf_text_config` returns `llm_config`, else `language_config`, before `text_config`
(SGLang 0.5.23 utils/hf_transformers/common.py:547-612, priority at :589-600), and
`get_context_length` reads that sub-config's length keys (:668-700). The classes below build
it from the dict under that name alone (their class defaults where the dict leaves a key
out; none written: all defaults), so a top-level length key or RoPE dict does not reach it:

* InternVL (`internvl_chat`, configs/internvl.py:307-325): the class follows
  `llm_config["architectures"][0]`: LlamaConfig (2048, transformers 5.25
  llama/configuration_llama.py:70), InternLM2Config (2048, internvl.py:89; also when no
  `llm_config` is written, :307-311), Qwen2Config (32768, qwen2 :67), Qwen3MoeConfig
  (32768, qwen3_moe :84), Qwen3Config (32768, qwen3 :69), GptOssConfig (131072, gpt_oss
  :63); another architecture raises ValueError (:322-325), a dict without `architectures`
  TypeError (:314, indexing None);
* Janus (`multi_modality`, configs/janus_pro.py:152-156): LlamaConfig (2048);
* DeepSeek-VL2 (`deepseek_vl_v2`, configs/deepseekvl2.py:675-679): SGLang's DeepseekV2Config
  (2048, deepseekvl2.py:583);
* Bailing-MM (`bailingmm_moe_v2_lite`, configs/bailing_moe_v2.py:157-161): BailingMoeV2Config
  (16384, bailing_moe_v2.py:42);
* Dots-VLM (`dots_vlm`, configs/dots_vlm.py:67) builds DeepseekV2Config from the TOP-LEVEL
  keys: read there, default 2048;
* MiniMax-M3-VL (`minimax_m3_vl`, configs/minimax_vl.py:26-61): measured through the oracle,
  the loaded `text_config` is the written dict (the coercion of :10-23, :44 does not
  survive transformers' load), which get_hf_text_config turns into a plain PretrainedConfig
  (common.py:565-571): no class default (2048 with no key, :700), its RoPE dict as the
  plain class takes it (graphfit.inputs.sglang_own_rope); no `text_config` written: the
  parent config's own top-level keys; a null one fails SGLang's assert (common.py:605), and
  one without hidden_size, num_hidden_layers or vocab_size fails ModelConfig's read of it
  (AttributeError, configs/model_config.py:1347 / 1566, 1581, 1605; `_text_reads`).

The sub-config's RoPE dict scales the length as get_context_length reads it (:679-693).
graphfit restates transformers' standardized reading for the transformers classes (Llama,
Qwen, GPT-OSS) and InternLM2's `rope_scaling` (refused unless exactly a linear / dynamic
`type` and a `factor` >= 1, internvl.py:120-158; then standardized as transformers' own).
SGLang's DeepseekV2Config and BailingMoeV2Config standardize a `rope_scaling` and keep a
`rope_parameters` as written (graphfit.inputs.sglang_own_rope, called with the sub-config's
dict; Bailing-MM's rope_type rewrite, bailing_moe_v2.py:166-171, keeps the factor and
`original_max_position_embeddings` get_context_length reads), as InternLM2 its
`rope_parameters` (internvl.py:99-131 names rope_scaling only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs import sglang_context_length

_LLAMA = 2048
_QWEN = 32768
# InternVL: llm_config's architectures[0] -> its class's default length
INTERNVL_CLASSES: Mapping[str, int] = {
    "LlamaForCausalLM": _LLAMA,
    # a rope_scaling it validates (internvl.py:120-158) is then standardized as transformers'
    # own, a rope_parameters kept as written (graphfit.inputs.sglang_own_rope, "internlm2")
    "InternLM2ForCausalLM": 2048,
    "Qwen2ForCausalLM": _QWEN,
    "Qwen3MoeForCausalLM": _QWEN,
    "Qwen3ForCausalLM": _QWEN,
    "GptOssForCausalLM": 131072,
}
# model_type -> (the attribute holding the text config, its default length)
SUB_CONFIGS: Mapping[str, tuple[str, int]] = {
    "multi_modality": ("language_config", _LLAMA),
    "deepseek_vl_v2": ("language_config", 2048),
    "bailingmm_moe_v2_lite": ("llm_config", 16384),
    "internvl_chat": ("llm_config", 2048),  # by architecture: INTERNVL_CLASSES
}
TOP_LEVEL = {"dots_vlm": 2048}  # dots_vlm.py:67 -> deepseekvl2.py:583
MINIMAX_M3_VL = "minimax_m3_vl"


@dataclass(frozen=True)
class SubConfig:
    """The dict SGLang builds the text config from (`prefix`: its name and a dot, "" for
    the top level) and the class's default length (max_position_embeddings, the only length
    key these classes default)."""

    values: Mapping[str, Any]
    prefix: str
    default: int | None  # None: the class defaults no length key (2048, common.py:700)

    def own_class(self, model_type: str) -> str:
        """The class graphfit.inputs.sglang_own_rope restates for this sub-config's RoPE
        dict: InternVL's InternLM2Config, else the model type (its DeepseekV2Config /
        BailingMoeV2Config sub-configs); a transformers class is not one of them."""
        if model_type == "internvl_chat":
            built = _architecture(self.values) if self.values else "InternLM2ForCausalLM"
            return "internlm2" if built == "InternLM2ForCausalLM" else ""
        return model_type

    def __post_init__(self) -> None:
        if self.default is not None and self.default <= 0:
            raise ValueError(f"default: expected a positive length, got {self.default}")


def _kind(data: Mapping[str, Any]) -> str:
    value = data.get("model_type")
    return value if isinstance(value, str) else ""


def _architecture(sub: Mapping[str, Any]) -> object:
    names = sub.get("architectures")
    return names[0] if isinstance(names, list) and names else None


def sub_config(data: Mapping[str, Any]) -> SubConfig | None:
    """The text config SGLang reads the length from for these classes (None: another
    class, or a file `load_failure` refuses)."""
    kind = _kind(data)
    if kind == MINIMAX_M3_VL:  # the written text_config dict, else the parent config
        text = data.get("text_config")
        return (SubConfig(text, "text_config.", None) if isinstance(text, dict)
                else SubConfig(data, "", None))
    if kind in TOP_LEVEL:
        return SubConfig(data, "", TOP_LEVEL[kind])
    if kind not in SUB_CONFIGS:
        return None
    name, default = SUB_CONFIGS[kind]
    sub = data.get(name)
    values: Mapping[str, Any] = sub if isinstance(sub, dict) else {}
    if kind == "internvl_chat" and isinstance(sub, dict):
        found = INTERNVL_CLASSES.get(str(_architecture(values)))
        if found is None:
            return None
        default = found
    return SubConfig(values, f"{name}.", default)


def load_failure(data: Mapping[str, Any]) -> str | None:
    """Why SGLang fails to build InternVL's llm_config or read MiniMax-M3-VL's text config
    (None: it builds, or another class)."""
    text = data.get("text_config")
    if _kind(data) == MINIMAX_M3_VL and "text_config" in data and (
            text is None or (isinstance(text, dict) and "num_attention_heads" not in text)):
        # a dict the override args gave replaces the written one whole
        # (graphfit.inputs.target_overrides.PLAIN_SUB_CONFIGS)
        state = "is null" if text is None else "has no num_attention_heads"
        return (f"SGLang fails loading it: text_config {state}, and get_hf_text_config "
                "asserts it has num_attention_heads (utils/hf_transformers/common.py:605)")
    if _kind(data) == MINIMAX_M3_VL and isinstance(text, dict):
        return _text_reads(text)
    if _kind(data) != "internvl_chat":
        return None
    sub = data.get("llm_config")
    if not isinstance(sub, dict):  # none: InternLM2's defaults (internvl.py:307-311)
        return None
    architecture = _architecture(sub)
    if architecture is None:
        return ("SGLang fails loading it: llm_config has no architectures, which InternVL "
                "indexes (TypeError, configs/internvl.py:314)")
    if architecture not in INTERNVL_CLASSES:
        return (f"SGLang refuses llm_config's architecture {str(architecture)[:60]!r}: "
                "Unsupported architecture (configs/internvl.py:322-325)")
    rope = sub.get("rope_scaling")
    if architecture == "InternLM2ForCausalLM" and rope is not None and not _internlm2_rope(rope):
        return ("SGLang refuses llm_config.rope_scaling: InternLM2 takes exactly `type` "
                "(linear or dynamic) and `factor` >= 1 (configs/internvl.py:134-158)")
    return None


def _text_reads(text: Mapping[str, Any]) -> str | None:
    """MiniMax-M3-VL's text config is a bare PretrainedConfig (common.py:565-571), so the keys
    ModelConfig reads without a default raise AttributeError where the dict lacks them, in
    `_derive_model_shapes`' order (configs/model_config.py:1331-1609): hidden_size (for
    head_dim when the dict has none, :1341-1348, else :1566), num_hidden_layers (:1581),
    vocab_size (:1605). Measured through SGLang's ModelConfig: no other key of a text config
    is read without a default before the model class is built."""
    site = 1566 if text.get("head_dim") is not None else 1347
    for key, line in (("hidden_size", site), ("num_hidden_layers", 1581),
                      ("vocab_size", 1605)):
        if key not in text:
            return (f"SGLang fails loading it: text_config has no {key!r}, which ModelConfig "
                    f"reads (AttributeError, configs/model_config.py:{line})")
    return None


def _internlm2_rope(rope: object) -> bool:
    """InternLM2Config._rope_scaling_validation (internvl.py:134-158) passes."""
    if not isinstance(rope, dict) or len(rope) != 2:
        return False
    factor = rope.get("factor")
    return (rope.get("type") in ("linear", "dynamic") and isinstance(factor, (int, float))
            and not isinstance(factor, bool) and factor >= 1.0)



def nested_override(written: Mapping[str, Any], overrides: Mapping[str, Any]
                    ) -> Mapping[str, Any] | None:
    """The override args given for this class's built sub-config (`{"llm_config": {...}}`),
    None: none. get_config applies them after the class is built, with
    `PretrainedConfig.update`, a setattr per key (utils/hf_transformers/config.py:411-414;
    transformers configuration_utils.py:1353-1361): the sub-config's checks at build time
    saw the written dict only, and its class (InternVL's, by architecture) is already
    chosen."""
    kind = _kind(written)
    if kind not in SUB_CONFIGS or not isinstance(written.get(SUB_CONFIGS[kind][0]), dict):
        return None
    value = overrides.get(SUB_CONFIGS[kind][0])
    return value if isinstance(value, dict) and value else None


def overridden_rope(loaded: object, values: Mapping[str, Any],
                    nested: Mapping[str, Any]) -> object:
    """The sub-config's RoPE dict after `nested_override`'s setattrs, in their order:
    `rope_parameters` is set as given (no check, no standardization); `rope_scaling` goes
    through transformers' setter, which sets `rope_parameters` to it and standardizes it
    (configuration_utils.py:730-739). `loaded`: the dict after the build; `values`: the
    sub-config's keys after the override (max_position_embeddings read there)."""
    rope = loaded
    for key, value in nested.items():
        if key == "rope_parameters":
            rope = value
        elif key == "rope_scaling":
            rope = (sglang_context_length.standardized(values, value)
                    if isinstance(value, dict) and value else value)
    return rope
