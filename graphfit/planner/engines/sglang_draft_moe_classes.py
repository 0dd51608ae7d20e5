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
DRAFT_MOE_CLASSES = frozenset(name for name, _ in MOE_DRAFTS.values())


__all__ = ["DRAFT_MOE_CLASSES", "MOE_DRAFTS"]
