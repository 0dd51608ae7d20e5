"""Two facts of SGLang 0.5.23's DeepSeek-V2-family / GLM-4-MoE targets that s69q's "more TP
ranks than experts" rule (`sglang_qwen_moe_experts.SPARSE`) did not read (issue 23, s70c).

1. **Layer defaults.** Where config.json has no `first_k_dense_replace`, SGLang reads the
   attribute from transformers' config class of the model type (`get_config` ->
   `AutoConfig`; `_is_layer_sparse`, models/deepseek_v2.py:2785-2792, glm4_moe.py:828-834),
   whose default is not 0: DeepseekV3Config / DeepseekV32Config / GlmMoeDsaConfig 3,
   Glm4MoeConfig 1, DeepseekV2Config 0 (transformers 5.25.0,
   configuration_deepseek_v3.py:102, configuration_deepseek_v32.py:121,
   configuration_glm_moe_dsa.py:126, configuration_glm4_moe.py:110,
   configuration_deepseek_v2.py:101). Reading 0 made every layer sparse: a V3 config of
   three or fewer layers without the field was refused for TP above its experts where
   SGLang builds no MoE block and starts.
2. **The experts' EP split.** Once the TP check passes, the first sparse layer's `FusedMoE`
   asserts its routed experts split over the EP ranks (layers/moe/fused_moe_triton/
   layer.py:414, `_num_global_routed % storage_ep_size`). The routed count is the block's
   `num_experts` less its shared slots (:395-404):
   * `DeepseekV2MoE` (DeepSeek-V2/V3/V3.2, GLM-MoE-DSA): `n_routed_experts` + the fused
     shared experts + `--ep-num-redundant-experts` (deepseek_v2.py:694-703, 750-754), less
     the shared slots: `n_routed_experts` + redundant whether or not fusion is on, where at
     most one shared expert is fused per rank (two or more under a DeepEP-class or MegaMoE
     backend give `ep` slots for `ep` x shared: not judged);
   * `Glm4MoeSparseMoeBlock`: `n_routed_experts` + fused shared experts, WITHOUT the
     redundant ones (glm4_moe.py:437); fusion is off under EP above 1 on CUDA
     (glm4_moe.py:1022-1025), so the split is of `n_routed_experts` alone;
   * `Glm4MoeLiteSparseMoeBlock`: `n_routed_experts` + fused + redundant
     (glm4_moe_lite.py:210-212); fusion is off under EP above 1 (:742-743).
   An elastic scale-up joiner's storage EP size (:405-409) is not judged (as the Qwen rule).

Why a module of its own: the Qwen / sparse-block rule module is shared with another lane;
this one holds the table and the check, that module calls them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_beam_build import count
from graphfit.inputs.sglang_spec_dp import size_or_one
from graphfit.planner.engines.sglang_eplb_checks import resolved_ep_size

# model_type -> transformers 5.25.0's class default of first_k_dense_replace (its site)
FIRST_DENSE: dict[str, tuple[int, str]] = {
    "deepseek_v2": (0, "configuration_deepseek_v2.py:101"),
    "deepseek_v3": (3, "configuration_deepseek_v3.py:102"),
    "deepseek_v32": (3, "configuration_deepseek_v32.py:121"),
    "glm_moe_dsa": (3, "configuration_glm_moe_dsa.py:126"),
    "glm4_moe": (1, "configuration_glm4_moe.py:110"),
}
# architecture -> the site where its MoE block sizes its experts
EXPERTS_SITE: dict[str, str] = {
    "DeepseekV2ForCausalLM": "models/deepseek_v2.py:750-754",
    "DeepseekV3ForCausalLM": "models/deepseek_v2.py:750-754",
    "DeepseekV32ForCausalLM": "models/deepseek_v2.py:750-754",
    "GlmMoeDsaForCausalLM": "models/deepseek_v2.py:750-754",
    "Glm4MoeForCausalLM": "models/glm4_moe.py:437",
    "Glm4MoeLiteForCausalLM": "models/glm4_moe_lite.py:210-212",
}
# the block that leaves the redundant experts out of its FusedMoE (glm4_moe.py:437)
NO_REDUNDANT = frozenset({"Glm4MoeForCausalLM"})
SPLIT_SITE = "layers/moe/fused_moe_triton/layer.py:414"


def with_class_defaults(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """config.json as SGLang's config object reads it: a missing `first_k_dense_replace`
    takes its config class's default (unknown model types: unchanged)."""
    if "first_k_dense_replace" in data:
        return data
    model_type = data.get("model_type")
    found = FIRST_DENSE.get(model_type) if isinstance(model_type, str) else None
    return data if found is None else {**data, "first_k_dense_replace": found[0]}


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def split_problem(arch: str, values: Mapping[str, Any], data: Mapping[str, Any]
                  ) -> str | None:
    """FusedMoE's AssertionError where the class's routed experts do not split over the
    line's EP ranks, or None (call it only where some layer builds the MoE block)."""
    site = EXPERTS_SITE.get(arch)
    experts = _whole(data.get("n_routed_experts"))
    if site is None or experts is None or values.get("elastic_ep_backend"):
        return None
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    a2a = str(values.get("moe_a2a_backend") or "none").strip().lower()
    ep = resolved_ep_size(size_or_one(values.get("ep_size")), tp, a2a)
    shared = _whole(data.get("n_shared_experts")) or 0
    if ep <= 1 or (a2a != "none" and shared > 1 and arch not in NO_REDUNDANT):
        return None
    redundant = 0 if arch in NO_REDUNDANT else max(count(
        values.get("ep_num_redundant_experts")) or 0, 0)
    routed = experts + redundant
    if routed % ep == 0:
        return None
    return (f"SGLang cannot build {arch}: {routed} routed experts ({site}) do not split "
            f"over EP size {ep} (AssertionError, {SPLIT_SITE})")


__all__ = ["EXPERTS_SITE", "FIRST_DENSE", "NO_REDUNDANT", "SPLIT_SITE", "split_problem",
           "with_class_defaults"]
