"""A ModelOpt NVFP4 DeepSeek-family NextN draft's MoE config in SGLang 0.5.23, and the
DeepEPMoE assert it then meets (issue 23, s69d). Paths under sglang/srt/.

Why its own rule: `DeepseekModelNextN` (models/deepseek_nextn.py:58-135; built by
DeepseekV3ForCausalLMNextN, :248-291, and its subclasses GlmMoeDsaForCausalLMNextN,
models/glm4_moe.py:1288, and Glm5NextForConditionalGenerationNextN, glm5_next_nextn.py:24)
does not hand the loader's `modelopt_fp4` config to its layer:

* the decoder layer's config becomes None (:75-79), so its experts are unquantized;
* unless SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is on and the draft's runner (the worker's runner
  context, layers/moe/utils.py:941-954) is deep_gemm (`enable_nextn_moe_bf16_cast_to_fp8`,
  models/deepseek_common/utils.py:126-134, read with the loader's config before it is
  dropped): then the MoE alone gets `Fp8Config(is_checkpoint_fp8_serialized=True,
  weight_block_size=[128, 128])` (`moe_quant_config_override`, deepseek_nextn.py:66-73;
  deepseek_v2.py:2655-2657).

graphfit's draft DeepEPMoE rule (graphfit.planner.engines.sglang_draft_deepep) read such a
draft as quantized by modelopt_fp4, so it planned lines SGLang stops at the draft's build:

* unquantized experts meet "Unquantized DeepEP MoE requires DeepGEMM BF16" (AssertionError,
  layers/moe/ep_moe/layer.py:135-147) under a deepep / pplx draft backend, BF16, a deep_gemm
  draft runner, JIT DeepGEMM off;
* FP8 experts meet "DeepEP ... mode requires deep_gemm" (:168-178) under a legacy draft
  backend (deepep, mooncake, nixl, pplx), --deepep-mode auto / low_latency, JIT DeepGEMM off
  (JIT on, the FP8 branch :109-113 takes it first).

Both need the worker's a2a context (sglang_draft_dispatch.in_context) and CUDA, as the draft
rule's. The method is the one the draft's ModelConfig settles on (sglang_draft_quant.
settled_method: a flag that clashes with the checkpoint gives the checkpoint's). Not
restated: the HIP-only resolution that picks these draft backends (arg_groups/overrides.py:
846-887). s70p: a GLM-5-Next checkpoint whose `ignore` lists the NextN layer
(glm5_next_nextn.py:49-68) hands DeepseekModelNextN no config at all, so the variable never
applies there (`experts` answers "none").

s70r: the FP8 experts' low-latency assert reads the mode a mori target's a2a hook settles on
(auto, and low_latency under EPv2, become normal: arg_groups/moe_hook.py:545-561;
graphfit.planner.engines.sglang_mori_ep.deepep_mode), not the line's own.

s70d: the GLM-4.5 / GLM-4.6 / GLM-4.7, GLM-4.7-Flash and Bailing NextN drafts drop a
`modelopt_fp4` config too (`DROPPING_CLASSES`: models/glm4_moe_nextn.py:52-56,
glm4_moe_lite_nextn.py:55-60, bailing_moe_nextn.py:84-88), with no FP8 override (the variable
is read by DeepseekModelNextN alone, deepseek_nextn.py:66): their experts are always
unquantized, so they meet the unquantized assert above, never the low-latency one.
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import sglang_draft_dispatch, sglang_draft_quant, sglang_mori_ep
from graphfit.planner.engines.sglang_deepep_class import (
    DEEP_GEMM_RUNNERS,
    LEGACY_A2A,
    LOW_LATENCY_MODES,
    UNQUANTIZED_A2A,
)

# the draft classes built by DeepseekModelNextN -> where
NEXTN_CLASSES: dict[str, str] = {
    "DeepseekV3ForCausalLMNextN": "models/deepseek_nextn.py:248-291",
    "GlmMoeDsaForCausalLMNextN": "models/glm4_moe.py:1288",
    "Glm5NextForConditionalGenerationNextN": "models/glm5_next_nextn.py:24",
}
# s70d: the NextN classes that drop a modelopt_fp4 config with no FP8 override -> where
DROPPING_CLASSES: dict[str, str] = {
    "Glm4MoeForCausalLMNextN": "glm4_moe_nextn.py:52-56",
    "Glm4MoeLiteForCausalLMNextN": "glm4_moe_lite_nextn.py:55-60",
    "BailingMoeForCausalLMNextN": "bailing_moe_nextn.py:84-88",
}
METHOD = "modelopt_fp4"  # ModelOptFp4Config.get_name, the name deepseek_nextn.py:75 compares


def experts(config: EngineSettings, runner: str | None) -> str | None:
    """The config a NextN draft's experts are built with where the draft settles on
    modelopt_fp4 (module docstring): "fp8" (the variable and a deep_gemm `runner`) or "none";
    None where this rule does not apply. s70d: always "none" for `DROPPING_CLASSES`."""
    name = config.draft_moe_class or ""
    if name not in NEXTN_CLASSES and name not in DROPPING_CLASSES:
        return None
    if sglang_draft_quant.settled_method(config) != METHOD:
        return None
    if name in DROPPING_CLASSES or config.draft_nextn_unquantized == "ignore":
        return "none"  # s70p: GLM-5-Next's `ignore` hands DeepseekModelNextN no config
    return "fp8" if config.nvfp4_ckpt_fp8_nextn_moe and runner == "deep_gemm" else "none"


def problem(config: EngineSettings, runner: str | None) -> str | None:
    """SGLang's DeepEPMoE assert on such a draft (module docstring), or None; `runner`: the
    draft's runner (sglang_draft_deepep.draft_runner)."""
    moe = experts(config, runner)
    a2a = config.speculative_moe_a2a_backend or ""
    if moe is None or not sglang_draft_dispatch.in_context(config):
        return None
    if picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability) is not False:
        return None
    name = config.draft_moe_class
    if moe == "fp8":
        mode = sglang_mori_ep.deepep_mode(config)  # s70r: as a mori target's hook rewrites it
        if a2a not in LEGACY_A2A or mode not in LOW_LATENCY_MODES:
            return None
        target = config.moe_a2a_backend or "none"
        mode = "low_latency" if target == "pplx" else mode  # moe_hook.py:581-587
        return (f"DeepEP DeepEPMode.{mode.upper()} mode requires deep_gemm (AssertionError, "
                f"ep_moe/layer.py:168-178): {name} FP8 MoE (deepseek_nextn.py:66-73), "
                f"a2a {a2a}, JIT off")
    if a2a not in UNQUANTIZED_A2A or runner not in DEEP_GEMM_RUNNERS:
        return None
    if (config.draft_dtype or config.dtype) != "bfloat16":
        return None
    site = DROPPING_CLASSES.get(name or "", "deepseek_nextn.py:75-79")
    return (f"Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, ep_moe/layer.py:"
            f"135-147): {name} drops modelopt_fp4 ({site}), a2a {a2a}, JIT off")


__all__ = ["DROPPING_CLASSES", "METHOD", "NEXTN_CLASSES", "experts", "problem"]
