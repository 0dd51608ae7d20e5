"""The local draft checkpoints whose class SGLang builds with FusedMoE layers, as graphfit
restates them (graphfit.planner.engines.sglang_draft_dispatch; issue 23 s54e).

Its own module, with no imports, because `SglangOptions` validates `draft_moe_class` against
these names: the option module must not pull the planner's runner modules in (the engine
registry answers without importing a model, tests/planner/test_registry.py).
"""
from __future__ import annotations

# s60d: the NextN classes' one decoder layer is sparse whatever `first_k_dense_replace` says
# (`_is_layer_sparse` answers `is_nextn or ...`), so they always build a FusedMoE
_DEEPSEEK = ("DeepseekV3ForCausalLMNextN",
             "configs/model_config.py:1032-1036, models/deepseek_nextn.py:127-135, "
             "models/deepseek_v2.py:2785-2791")
_BAILING = ("BailingMoeForCausalLMNextN",
            "configs/model_config.py:1115-1121, models/bailing_moe_nextn.py:113-133, "
            "models/bailing_moe.py:719-723, models/bailing_moe_linear.py:839-841")

# the architecture in the draft's config.json -> (the class SGLang builds, where)
MOE_DRAFTS: dict[str, tuple[str, str]] = {
    "Qwen3MoeForCausalLM": ("Qwen3MoeForCausalLMMTP",
                            "configs/model_config.py:1155-1157, models/qwen3_moe_mtp.py:56"),
    "MixtralForCausalLM": ("MixtralForCausalLM", "models/mixtral.py:100, 227"),
    "DeepseekV3ForCausalLM": _DEEPSEEK,
    "DeepseekV32ForCausalLM": _DEEPSEEK,
    "GlmMoeDsaForCausalLM": ("GlmMoeDsaForCausalLMNextN",
                             "configs/model_config.py:1038-1039, models/glm4_moe.py:1288, "
                             "models/deepseek_nextn.py:127-135, models/deepseek_v2.py:2785-2791"),
    "Glm4MoeForCausalLM": ("Glm4MoeForCausalLMNextN",
                           "configs/model_config.py:1059-1060, models/glm4_moe_nextn.py:72-79, "
                           "models/glm4_moe.py:828-833"),
    "Glm4MoeLiteForCausalLM": ("Glm4MoeLiteForCausalLMNextN",
                               "configs/model_config.py:1061-1065, "
                               "models/glm4_moe_lite_nextn.py:76-83, "
                               "models/glm4_moe_lite.py:520-523"),
    "BailingMoeForCausalLM": _BAILING,
    "BailingMoeV2ForCausalLM": _BAILING,
    "BailingMoeV2_5ForCausalLM": _BAILING,
    "BailingMoeV3ForCausalLM": _BAILING,
    # s62d: the MTP model's one layer is built sparse (`is_layer_sparse = True`)
    "Qwen3NextForCausalLM": ("Qwen3NextForCausalLMMTP",
                             "configs/model_config.py:1134-1135, models/qwen3_next_mtp.py:66-74, "
                             "models/qwen3_next.py:702-706"),
}
# s63d: Qwen3.5 / InternS2 drafts become Qwen3_5ForCausalLMMTP (configs/model_config.py:
# 1159-1181), one layer built with `is_nextn` (models/qwen3_5_mtp.py:116-143) from the text
# config; its MLP is a sparse MoE block only for a MoE text config (`_qwen3_5_is_moe`,
# models/qwen3_5.py:257-260, 1147-1148, 1381-1382; a dense Qwen3.5 builds a plain MLP)
_QWEN3_5 = ("Qwen3_5ForCausalLMMTP",
            "configs/model_config.py:1159-1181, models/qwen3_5_mtp.py:116-143, "
            "models/qwen3_5.py:257-260, 1381-1382, models/qwen2_moe.py:318")
_QWEN3_5_ARCHS = ("Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
                  "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM",
                  "InternS2PreviewForConditionalGeneration")
MOE_DRAFTS.update({arch: _QWEN3_5 for arch in _QWEN3_5_ARCHS})
# the architectures whose draft builds MoE layers only for some config model types: the
# architecture -> those model types (the config class's own `model_type` decides the text
# config's class: qwen3_5_moe and intern_s2_preview hold a qwen3_5_moe_text one,
# configs/qwen3_5.py:119-135, configs/interns2preview.py:15-20)
MOE_MODEL_TYPES: dict[str, frozenset[str]] = {
    arch: frozenset({"qwen3_5_moe", "qwen3_5_moe_text", "intern_s2_preview"})
    for arch in _QWEN3_5_ARCHS}
# s63d: HY-V4's NextN decoder layer is always a DeepseekV2MoE block
MOE_DRAFTS["HYV4ForCausalLM"] = (
    "HYV4ForCausalLMNextN", "configs/model_config.py:1209-1211, "
    "models/hunyuan_v4_nextn.py:51-81, models/deepseek_v2.py:753")
# s63d: GigaChat-3.5's NextN layer is sparse only where the config says `nextn_is_sparse`
# (models/gigachat35.py:474-484; else a dense MLP, deepseek_v2.py:2650-2667)
MOE_DRAFTS["GigaChat35ForCausalLM"] = (
    "GigaChat35ForCausalLMNextN", "configs/model_config.py:1110-1114, "
    "models/gigachat35_mtp.py:68-76, models/gigachat35.py:474-484, "
    "models/deepseek_v2.py:753")
# the architectures whose draft builds MoE layers only where a config key is true: the
# architecture -> that key
MOE_KEYS: dict[str, str] = {"GigaChat35ForCausalLM": "nextn_is_sparse"}
# s66d: Step-3.5's MTP block is decoder layer 45 (`layer_id = 45`, models/step3p5_mtp.py:
# 77-87), sparse only where the config's comma-separated `moe_layers_enum` names 45
# (`_is_moe_layer`, models/step3p5.py:427, 475-476, 543-545); Step-3.7's draft is its
# Step-3.5 text config renamed (configs/model_config.py:1115-1120)
_STEP3P5 = ("Step3p5MTP", "configs/model_config.py:1097-1098, 1115-1120, "
            "models/step3p5_mtp.py:77-87, models/step3p5.py:475-476, 543-545")
MOE_DRAFTS["Step3p5ForCausalLM"] = _STEP3P5
MOE_DRAFTS["Step3p7ForConditionalGeneration"] = _STEP3P5
# s66d: Exaone-MoE's MTP model holds one decoder layer, id 0 (`num_hidden_layers = 1`,
# models/exaone_moe_mtp.py:47, 56-58), sparse only where the config's `is_moe_layer[0]`
# (models/exaone_moe.py:466-468, 496-503)
_EXAONE = ("ExaoneMoEForCausalLMMTP", "configs/model_config.py:1183-1188, "
           "models/exaone_moe_mtp.py:47, 56-58, models/exaone_moe.py:466-468, 496-503")
MOE_DRAFTS["ExaoneMoEForCausalLM"] = _EXAONE
MOE_DRAFTS["ExaoneMoeForCausalLM"] = _EXAONE
# s66d: InternS2-Mobius's draft is a Qwen3.5 MTP whose text config the rename turns into a
# qwen3_5_moe_text one with the checkpoint's `mtp_num_experts` (configs/model_config.py:
# 1167-1179): MoE whatever the config's own model type
MOE_DRAFTS["InternS2MobiusForConditionalGeneration"] = _QWEN3_5
# s66d: GLM-5-Next's draft is DeepSeek's NextN model over its text config, one decoder layer
# built with `is_nextn`, so sparse (models/glm5_next_nextn.py:24, 72-77)
MOE_DRAFTS["Glm5NextForConditionalGeneration"] = (
    "Glm5NextForConditionalGenerationNextN", "configs/model_config.py:1071-1078, "
    "models/glm5_next_nextn.py:24, 72-77, models/deepseek_nextn.py:127-135, "
    "models/deepseek_v2.py:2785-2791")
# s67d: Qwen4-Exp's draft ModelConfig renames the composite to Qwen4ExpForCausalLMMTP
# (configs/model_config.py:1138-1153), a Qwen3.5 MTP subclass whose one layer is built with
# `is_nextn` from the text config (models/qwen4_exp_mtp.py:35-64); the text config class is
# Qwen4ExpTextConfig, `model_type = "qwen4_exp_text"` (configs/qwen4_exp.py:15-16), one of
# `_QWEN3_5_MOE_TEXT_MODEL_TYPES` (models/qwen3_5.py:165, 257-260), so the layer's MLP is
# always a sparse MoE block (qwen3_5.py:1381-1382, qwen2_moe.py:318)
MOE_DRAFTS["Qwen4ExpForConditionalGeneration"] = (
    "Qwen4ExpForCausalLMMTP", "configs/model_config.py:1138-1153, "
    "models/qwen4_exp_mtp.py:35-64, configs/qwen4_exp.py:15-16, models/qwen3_5.py:165, "
    "257-260, 1381-1382, models/qwen2_moe.py:318")
# the architectures whose draft builds MoE layers only where a config entry names its layer:
# the architecture -> (the key, the draft layer's id, whether the key lives in `text_config`,
# the entry's form: "ids", a comma-separated string of layer ids (Step-3.5), or "flags", a
# list of booleans by layer id (Exaone-MoE))
MOE_LAYER_KEYS: dict[str, tuple[str, int, bool, str]] = {
    "Step3p5ForCausalLM": ("moe_layers_enum", 45, False, "ids"),
    "Step3p7ForConditionalGeneration": ("moe_layers_enum", 45, True, "ids"),
    "ExaoneMoEForCausalLM": ("is_moe_layer", 0, False, "flags"),
    "ExaoneMoeForCausalLM": ("is_moe_layer", 0, False, "flags"),
}
# s68m: a Gemma 4 unified assistant (a FROZEN_KV_MTP draft) builds Gemma4TextModel over its
# text config (models/gemma4_mtp.py:97-101, 400), every decoder layer a FusedMoE block where
# that config's `enable_moe_block` is true (models/gemma4_causal.py:640-641, 684-685, 285;
# HF's default False). The plain Gemma 4 assistant's config class refuses the MoE block
# (transformers 5.25 configuration_gemma4_assistant.py:88-89), so it stays dense.
MOE_DRAFTS["Gemma4UnifiedAssistantForCausalLM"] = (
    "Gemma4UnifiedAssistantForCausalLM", "models/gemma4_mtp.py:97-101, 400, "
    "models/gemma4_causal.py:285, 640-641")
# the architectures whose draft builds MoE layers only where a `text_config` key is true:
# the architecture -> that key
MOE_TEXT_KEYS: dict[str, str] = {"Gemma4UnifiedAssistantForCausalLM": "enable_moe_block"}
# s68n: a DeepSeek-V4 draft becomes DeepseekV4ForCausalLMNextN where the speculative algorithm
# is one of the a2a context's (a DSpark head is loaded only under DSPARK or no algorithm,
# configs/model_config.py:1041-1061); its one decoder layer is built with `is_nextn` and its
# MLP is always a DeepseekV2MoE block (models/deepseek_v4_nextn.py:111-119, deepseek_v4.py:
# 3155-3166), whatever the config's dense-layer keys
MOE_DRAFTS["DeepseekV4ForCausalLM"] = (
    "DeepseekV4ForCausalLMNextN", "configs/model_config.py:1041-1061, "
    "models/deepseek_v4_nextn.py:111-119, models/deepseek_v4.py:3155-3166")
DRAFT_MOE_CLASSES = frozenset(name for name, _ in MOE_DRAFTS.values())


__all__ = ["DRAFT_MOE_CLASSES", "MOE_DRAFTS", "MOE_KEYS", "MOE_LAYER_KEYS", "MOE_MODEL_TYPES",
           "MOE_TEXT_KEYS"]
