"""The RoPE dict some of SGLang's own config classes carry, and the files they fail to load.

`get_context_length` (utils/hf_transformers/common.py:677-700) scales the first length key by
the `factor` of the RoPE dict left on the loaded config. For transformers' own classes that
dict is the standardized one (graphfit.inputs.sglang_context_length.standardized); SGLang's
own classes below (SGLang 0.5.23 `configs/<file>.py`, transformers 5.25, the oracle's) take it
differently, because their `__init__` does not name `rope_parameters` or calls
`PreTrainedConfig.__init__` before setting the attributes transformers' RoPE code reads:

* no dict written: no dict on the loaded config (`RAW_CLASSES` but Kimi-Linear, and
  Qwen3-Next): transformers' RoPE conversion runs only for a class with a `rope_parameters`
  attribute or a `rope_scaling` kwarg (configuration_utils.py:472-479), so an override dict
  replaces nothing and is standardized on its own (config.py:411-424, the setter :730-739);
* a written `rope_parameters` (`RAW_CLASSES`) reaches `PreTrainedConfig.__init__` as a plain
  kwarg and is set as written (configuration_utils.py:510-517), not standardized, then
  validated at the end of that `__init__` (huggingface_hub dataclasses.py:276 ->
  modeling_rope_utils.py:913): llama3 needs `rope_theta` in the dict (:1088-1094), yarn and
  longrope `original_max_position_embeddings` (:990-994, :1035-1040), else KeyError; yarn
  and llama3 with them read `max_position_embeddings` (:1022, :1124) and longrope
  `hidden_size` (:1042), which
  OLMo-3 and Qwen3-Next set only after that call (olmo3.py:67, :75-76; qwen3_next.py:221,
  :223-224) and Mamba not at all unless written (mamba.py:41-71): AttributeError. Those
  two then replace the dict by their `rope_scaling` argument (olmo3.py:90,
  qwen3_next.py:235; none written: no dict);
* Mamba has no `max_position_embeddings` (mamba.py:41-71), so standardizing a llama3 / yarn /
  longrope `rope_scaling` (written: configuration_utils.py:474-479; by the override args, the
  setter :739) raises AttributeError (modeling_rope_utils.py:860), unless the file writes
  `max_position_embeddings` and the dict comes by the override args (set by then);
* the text configs SGLang builds with its own DeepseekV2Config (DeepSeek-VL2's
  language_config, Dots-VLM's top level) or BailingMoeV2Config (Bailing-MM's llm_config)
  take a written rope_parameters as written as well (graphfit.inputs.sglang_sub_configs
  calls this module with the sub-config's dict), and Dots-VLM's parent config, built first
  from the same top-level keys (dots_vlm.py:61-62), fails as Mamba's;
* HY-V4 (hy_v4.py:9-90) calls `PreTrainedConfig.__init__` first (:51), so a written llama3 /
  yarn / longrope `rope_scaling` is standardized before `max_position_embeddings` is set (:60):
  AttributeError; any other written `rope_scaling` is then replaced by its `rope_parameters`
  (:85-89): the written one as written, else `{"rope_theta": 1e7, "rope_type": "default"}`;
  a written `rope_parameters` without `rope_theta` fails at :90 (KeyError);
* Step-3.5 (`step3p5`, `STEP3P5`) loads twice: `AutoConfig.from_pretrained`
  (utils/hf_transformers/config.py:228) builds transformers' own Step3p7TextConfig, which
  transformers 5.25 registers for that model type (models/auto/auto_mappings.py:741), and
  only then is the file reloaded with SGLang's Step3p5Config, a `_CONFIG_REGISTRY` class
  (config.py:281-295; configs/step3p5.py). Step3p7TextConfig drops a written
  `rope_parameters` and builds a per-layer-type dict, then merges a written `rope_scaling`
  into its `full_attention` entry as written (configuration_step3p7.py:253-306), after the
  standardization that would add `original_max_position_embeddings`; its validation (:913)
  then needs that key for a llama3 / yarn / longrope `rope_type` (a dict naming it by
  `type` is validated as the entry's "default" `rope_type`, so it loads). Step3p5Config's
  `__init__` names no `rope_parameters` (step3p5.py:10-107), so a written one is kept as
  written and validated as above (KeyError). The override args reach only the reloaded
  config, whose length keys are all set by then: they load. Building Step3p5Config
  directly loads a written `rope_scaling` (its own `__init__` standardizes it with
  `max_position_embeddings` set, step3p5.py:90-91): only the first load fails on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# classes that set a written `rope_parameters` as written (measured through the oracle:
# tests/oracle/test_sglang_own_rope_oracle.py)
RAW_CLASSES = frozenset({"chatglm", "dbrx", "olmo3", "mamba", "kimi_linear", "nemotron_h",
                         "qwen3_next",
                         # transformers' GPT-2 family: no RoPE argument either
                         # (gpt2/configuration_gpt2.py, gptj/..., gpt_bigcode/...)
                         "gpt2", "gptj", "gpt_bigcode",
                         # text configs SGLang builds with its DeepseekV2Config
                         # (deepseekvl2.py:550-641) or BailingMoeV2Config (bailing_moe_v2.py:
                         # 19-111), and Dots-VLM's parent (dots_vlm.py:61-62)
                         "deepseek_vl_v2", "bailingmm_moe_v2_lite", "dots_vlm",
                         "internlm2",  # InternVL's InternLM2Config (internvl.py:80-131)
                         # MiniMax-M3-VL's plain text config and its parent
                         # (minimax_vl.py:26-57; common.py:565-571)
                         "minimax_m3_vl",
                         # the parents of the llm_config / language_config classes
                         "multimodal parent"})
# classes whose loaded config has no RoPE dict when the file writes none (chatglm.py,
# dbrx.py, nemotron_h.py, mamba.py: no rope attribute; olmo3.py:90, qwen3_next.py:235: the
# rope_scaling argument, None)
NO_DICT_CLASSES = frozenset({"chatglm", "dbrx", "olmo3", "mamba", "nemotron_h", "qwen3_next",
                             "gpt2", "gptj", "gpt_bigcode",
                         # text configs SGLang builds with its DeepseekV2Config
                         # (deepseekvl2.py:550-641) or BailingMoeV2Config (bailing_moe_v2.py:
                         # 19-111), and Dots-VLM's parent (dots_vlm.py:61-62)
                         "deepseek_vl_v2", "bailingmm_moe_v2_lite", "dots_vlm",
                         "internlm2",  # InternVL's InternLM2Config (internvl.py:80-131)
                         # MiniMax-M3-VL's plain text config and its parent
                         # (minimax_vl.py:26-57; common.py:565-571)
                         "minimax_m3_vl",
                         # the parents of the llm_config / language_config classes
                         "multimodal parent"})
# classes without max_position_embeddings / hidden_size when validation reads them: set
# after PreTrainedConfig.__init__ (olmo3.py:67, :75-76; qwen3_next.py:221, :223-224); Mamba
# sets no max_position_embeddings (mamba.py:41-71: only a written one is there)
_LATE_LENGTH = frozenset({"olmo3", "qwen3_next"})
_LATE_HIDDEN = frozenset({"olmo3", "qwen3_next"})
# classes that then replace the dict by their rope_scaling argument (olmo3.py:90,
# qwen3_next.py:235; none written: no dict)
_RESETS = frozenset({"olmo3", "qwen3_next"})
# classes with no max_position_embeddings unless the file writes one (mamba.py:41-71;
# Dots-VLM's parent config, dots_vlm.py:58-69)
_NO_LENGTH_ATTR = frozenset({"mamba", "dots_vlm", "multimodal parent", "minimax_m3_vl"})
# the parent configs of InternVL, Janus, DeepSeek-VL2 and Bailing-MM call
# PreTrainedConfig.__init__ with the top-level keys and hold no max_position_embeddings of
# their own (internvl.py:299, janus_pro.py:137, deepseekvl2.py:667, bailing_moe_v2.py:172)
PARENT = "multimodal parent"
_NEEDS_ORIGINAL = frozenset({"llama3", "yarn", "longrope"})  # modeling_rope_utils.py:853-860
STEP3P5 = "step3p5"
HY_V4_DEFAULT = {"rope_theta": 10000000.0, "rope_type": "default"}  # hy_v4.py:85-89


def _kind(data: Mapping[str, Any]) -> str:
    value = data.get("model_type")
    return value if isinstance(value, str) else ""


def _rope_type(rope: Mapping[str, Any]) -> object:
    return rope.get("rope_type", rope.get("type", "default"))


def modelled(data: Mapping[str, Any], kind: str | None = None) -> bool:
    """Whether this module restates the class's loaded RoPE dict (`kind`: the class,
    default the file's model_type)."""
    return (kind or _kind(data)) in RAW_CLASSES | NO_DICT_CLASSES | {"hy_v4"}


def loaded_rope(data: Mapping[str, Any], standard: object, kind: str | None = None) -> object:
    """The RoPE dict on the loaded config before the override args (None: none) for a class
    `modelled` restates; `standard`: the standardized dict transformers' own classes would
    carry (what a written `rope_scaling` gives these classes too). A file `load_failure`
    refuses is not asked about. `kind`: the class (default: the file's model_type)."""
    kind = kind or _kind(data)
    written = data.get("rope_parameters")
    if kind == "hy_v4":
        return dict(written) if isinstance(written, dict) else dict(HY_V4_DEFAULT)
    scaling = data.get("rope_scaling")
    if isinstance(scaling, dict) and scaling:
        return standard
    if kind in RAW_CLASSES and isinstance(written, dict) and written:
        if kind in _RESETS:  # replaced by the rope_scaling argument, none
            return None
        # validation names the type (modeling_rope_utils.py:903-904)
        return {**written, "rope_type": _rope_type(written)}
    if kind in NO_DICT_CLASSES:
        return None
    return standard


def load_failure(data: Mapping[str, Any], overrides: Mapping[str, Any],
                 kind: str | None = None) -> str | None:
    """Why SGLang fails to load this class's config.json with these override args (None:
    it loads, or a class this module does not restate). `kind`: the class (default: the
    file's model_type); `data`: the dict the class is built from."""
    kind = kind or _kind(data)
    written = data.get("rope_parameters")
    scaling = data.get("rope_scaling")
    where = f"SGLang fails loading it: model_type {kind!r}"
    if kind == "hy_v4":
        if isinstance(scaling, dict) and _rope_type(scaling) in _NEEDS_ORIGINAL:
            return (f"{where} standardizes a {_rope_type(scaling)} rope_scaling before it sets "
                    "max_position_embeddings: AttributeError (hy_v4.py:51, :60; "
                    "modeling_rope_utils.py:860)")
        if isinstance(written, dict) and "rope_theta" not in written:
            return (f"{where} reads rope_parameters['rope_theta'], which the written dict has "
                    "not: KeyError (hy_v4.py:90)")
        return None
    if kind == STEP3P5:
        return _step3p5_failure(data)
    if kind in _NO_LENGTH_ATTR:
        type_written = _rope_type(scaling) if isinstance(scaling, dict) and scaling else None
        over = overrides.get("rope_scaling")
        type_over = _rope_type(over) if isinstance(over, dict) and over else None
        if (type_written in _NEEDS_ORIGINAL or (
                type_over in _NEEDS_ORIGINAL and "max_position_embeddings" not in data)):
            return (f"{where} has no max_position_embeddings, which transformers reads "
                    "standardizing a llama3 / yarn / longrope rope_scaling: AttributeError "
                    "(mamba.py:41-71, dots_vlm.py:58-69; modeling_rope_utils.py:860)")
    if (kind not in RAW_CLASSES or not isinstance(written, dict) or not written
            or (isinstance(scaling, dict) and scaling)):
        return None
    rope_type = _rope_type(written)
    missing = _missing(written)
    if missing:
        return (f"{where} keeps the written rope_parameters as written, and transformers' "
                f"{rope_type} check needs {', '.join(sorted(missing))} in it: KeyError "
                "(configuration_utils.py:510-517; modeling_rope_utils.py:1170)")
    late_length = kind in _LATE_LENGTH or (kind in _NO_LENGTH_ATTR
                                           and "max_position_embeddings" not in data)
    late = ("max_position_embeddings" if rope_type in ("yarn", "llama3") and late_length else
            "hidden_size" if rope_type == "longrope" and kind in _LATE_HIDDEN else None)
    if late is not None:
        return (f"{where} has not set {late} when transformers checks its {rope_type} "
                "rope_parameters: AttributeError (modeling_rope_utils.py:1022, :1042, :1124)")
    return None


def _missing(rope: Mapping[str, Any]) -> set[str]:
    """The keys transformers' check of this dict's type needs and it has not
    (modeling_rope_utils.py:990-994, :1035-1040, :1088-1094)."""
    rope_type = _rope_type(rope)
    needed = ({"rope_theta"} if rope_type == "llama3" else set()) | (
        {"original_max_position_embeddings"} if rope_type in _NEEDS_ORIGINAL else set())
    return needed - set(rope)


def _step3p5_failure(data: Mapping[str, Any]) -> str | None:
    """Why Step-3.5's config.json fails to load (module docstring, "Step-3.5"); None: it
    loads. The override args never make it fail."""
    where = f"SGLang fails loading it: model_type {STEP3P5!r}"
    scaling = data.get("rope_scaling")
    if (isinstance(scaling, dict) and scaling.get("rope_type") in _NEEDS_ORIGINAL
            and "original_max_position_embeddings" not in scaling):
        return (f"{where} loads first as transformers' Step3p7TextConfig, which keeps a "
                f"{scaling['rope_type']} rope_scaling without original_max_position_embeddings:"
                " KeyError (configuration_step3p7.py:306; modeling_rope_utils.py:1170)")
    written = data.get("rope_parameters")
    if not isinstance(written, dict) or not written:
        return None
    missing = _missing(written)
    if missing:
        return (f"{where} keeps the written rope_parameters as written (step3p5.py:107), and "
                f"transformers' {_rope_type(written)} check needs {', '.join(sorted(missing))}"
                " in it: KeyError (modeling_rope_utils.py:1170)")
    return None
