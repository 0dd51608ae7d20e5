"""SGLang 0.5.23's default attention backend on ROCm from the model's class alone (issue 23,
s41v): a speculative line naming no backend, whose model has no local config.json, planned
with graphfit's `--architecture`.

On ROCm `get_default_attn_backend` answers aiter for every MHA model, before it reads
anything else of the model (attention sinks, K/V widths: model_override_base.py:326-327), and
for an MLA model aiter or triton by its KV heads per rank (:341-347); the only other model
facts the default reads are whether the model is MLA (`use_mla_backend`, from the attention
architecture `_derive_model_shapes` sets, configs/model_config.py:1331-1560) and what its
model override names (arg_groups/model_overrides/). So the class alone decides it for every
architecture that

* `_derive_model_shapes` never names (CONFIG_SHAPED: those it names are MLA by class, or by
  a config key such as `kv_lora_rank`, or MHA with head sizes read from the config), nor
  graphfit's MLA list;
* has no model override that reads the config (the DeepSeek family's DSA branch,
  deepseek_v2.py:98-102; Exaone's sliding-window pattern, exaone.py:15-30) or that graphfit
  does not restate without it (OWN_BACKEND; RESTATED, whose rules read the config).

For those, graphfit runs the same default (`default_attention_backend`) with the GPU "rocm"
and the class; each other class stays unknown (None) as before.
"""

from __future__ import annotations

from graphfit.planner.engines.sglang_arch_overrides import RESTATED
from graphfit.planner.engines.sglang_attn_default import (
    DEEPSEEK_FAMILY,
    EXAONE,
    MLA_ARCHITECTURES,
    OWN_BACKEND,
    AttentionDefaultInputs,
    DefaultBackend,
    default_attention_backend,
)

# every class configs/model_config.py:1331-1560 (`_derive_model_shapes`) names: its
# attention architecture (MLA or not) or its head sizes come from branches that read the
# config
CONFIG_SHAPED = frozenset({
    "BaichuanForCausalLM", "BailingMoeForCausalLMNextN", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMDSpark",
    "DeepseekV4ForCausalLMNextN", "DeepseekVL2ForCausalLM", "Dots3NoteForCausalLM",
    "Dots3NoteForCausalLMNextN", "DotsVLMForCausalLM", "Eagle3DeepseekV2ForCausalLM",
    "GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN", "Glm4MoeForCausalLMNextN",
    "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "Glm5NextForConditionalGeneration", "Glm5NextForConditionalGenerationNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "KimiK25ForConditionalGeneration",
    "KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM", "KimiLinearForCausalLM",
    "KimiVLForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "MiniCPM3ForCausalLM", "MistralForCausalLM",
    "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle", "MistralModel",
    "MixtralForCausalLM", "PixtralForConditionalGeneration", "SarvamMLAForCausalLM",
})
UNKNOWN_BY_CLASS = (CONFIG_SHAPED | MLA_ARCHITECTURES | DEEPSEEK_FAMILY | EXAONE | OWN_BACKEND
                    | RESTATED)


def rocm_class_inputs(architecture: str, *, speculative_algorithm: str | None,
                      topk: int | None, page_size: int | None, kv_cache_dtype: str | None,
                      deterministic: bool, all_unset: bool) -> AttentionDefaultInputs | None:
    """SGLang's default's inputs on ROCm for a model known only by its class (module
    docstring); None where the class alone does not decide the default."""
    if architecture in UNKNOWN_BY_CLASS:
        return None
    return AttentionDefaultInputs(
        gpu="rocm", architecture=architecture, speculative_algorithm=speculative_algorithm,
        topk=topk, page_size=page_size, kv_cache_dtype=kv_cache_dtype,
        deterministic=deterministic, all_unset=all_unset)


def rocm_default_by_class(architecture: str, **line: object) -> DefaultBackend:
    """SGLang's default base backend on ROCm for a model known only by its class; name None
    (with the reason) where the class alone does not decide it. `line`: rocm_class_inputs'
    keywords."""
    inputs = rocm_class_inputs(architecture, **line)  # type: ignore[arg-type]
    if inputs is None:
        return DefaultBackend(None, f"{architecture}: SGLang's default on ROCm reads its "
                                    f"config.json (MLA heads, or its model override)")
    return default_attention_backend(inputs)


__all__ = ["CONFIG_SHAPED", "UNKNOWN_BY_CLASS", "rocm_class_inputs", "rocm_default_by_class"]
