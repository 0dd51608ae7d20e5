"""The local draft checkpoints whose class SGLang builds with FusedMoE layers, as graphfit
restates them (graphfit.planner.engines.sglang_draft_dispatch; issue 23 s54e).

Its own module, with no imports, because `SglangOptions` validates `draft_moe_class` against
these names: the option module must not pull the planner's runner modules in (the engine
registry answers without importing a model, tests/planner/test_registry.py).
"""
from __future__ import annotations

# the architecture in the draft's config.json -> (the class SGLang builds, where)
MOE_DRAFTS: dict[str, tuple[str, str]] = {
    "Qwen3MoeForCausalLM": ("Qwen3MoeForCausalLMMTP",
                            "configs/model_config.py:1155-1157, models/qwen3_moe_mtp.py:56"),
    "MixtralForCausalLM": ("MixtralForCausalLM", "models/mixtral.py:100, 227"),
}
DRAFT_MOE_CLASSES = frozenset(name for name, _ in MOE_DRAFTS.values())


__all__ = ["DRAFT_MOE_CLASSES", "MOE_DRAFTS"]
