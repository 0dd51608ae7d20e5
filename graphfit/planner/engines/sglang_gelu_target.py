"""A Gemma 4 MoE target under the DeepGEMM MoE runner in SGLang 0.5.23 (issue 23, s69l): its
decoder layers' Gemma4MoE experts are GELU, and DeepGemmRunnerCore asserts a gated SiLU
activation.

Why its own rule: s68i restated this assert on the Gemma 4 unified assistant DRAFT
(graphfit.planner.engines.sglang_draft_gelu_runner); the target's own MoE blocks meet it
first, at the target's build (paths under sglang/srt/). A Gemma 4 decoder layer builds
Gemma4MoE where its text config sets `enable_moe_block` (models/gemma4_causal.py:640-653,
684-685), whose experts are made through `get_moe_impl_class` with `activation="gelu"`
(:236, 285-295); Gemma4ForConditionalGeneration and Gemma4UnifiedForConditionalGeneration
reuse Gemma4TextModel (models/gemma4_mm.py:63, gemma4_unified.py:53). FusedMoE's
constructor makes the runner (layers/moe/fused_moe_triton/layer.py:576) before its
dispatcher (:595), so under a DeepGEMM runner `assert self.config.activation in ("silu",
"situ")` (moe_runner/deep_gemm.py:352) raises before any dispatcher or DeepEPMoE assert
(graphfit.planner.engines.sglang_deepep_class). The runner is DeepGEMM where the target's
resolved runner (sglang_quantization.class_runner) is deep_gemm, for an unquantized target
(quantization/unquant.py:1183-1184) or an FP8 one (fp8.py:1528-1529); or an FP8 target's
runner is auto under a deepep / mooncake / nixl backend with JIT DeepGEMM on
(fp8.py:1530-1541). s70h: pplx turns runner auto into deep_gemm at resolution
(arg_groups/moe_hook.py:603-609), so an unquantized or FP8 target under pplx meets it; a LoRA MoE
runner (lora_triton / lora_marlin / lora_cutedsl) gives an UNquantized FusedMoE DeepGEMM
("Unquantized BF16 LoRA uses DeepGEMM's resident weight layout", fused_moe_triton/layer.py:
438-442, unquant.py:1183-1184); an FP8 target's method picks its own runner there and SGLang
starts it. SglangOptions.gelu_moe_target says the target builds such blocks
(graphfit.inputs.sglang_gelu_target reads it from the target's config).

Not restated: other quantization methods' runners under deep_gemm (planned as before).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import sglang_moe_a2a, sglang_quantization
from graphfit.planner.engines.sglang_draft_gelu_runner import AUTO_DEEPGEMM_A2A

# the LoRA MoE runners (MoeRunnerBackend.is_lora, layers/moe/utils.py:174-179): FusedMoE
# gives an unquantized layer DeepGEMM under them (fused_moe_triton/layer.py:438-442, s70h)
LORA_RUNNERS = frozenset({"lora_triton", "lora_marlin", "lora_cutedsl"})

# the target classes whose decoder layers build Gemma4MoE where `enable_moe_block` is set
GELU_TARGETS: dict[str, str] = {
    "Gemma4ForCausalLM": "models/gemma4_causal.py:640-653",
    "Gemma4ForConditionalGeneration": "models/gemma4_mm.py:63, gemma4_causal.py:640-653",
    "Gemma4UnifiedForConditionalGeneration": ("models/gemma4_unified.py:53, "
                                              "gemma4_causal.py:640-653"),
}


def problem(config: EngineSettings) -> str | None:
    """SGLang's DeepGemmRunnerCore assert on a Gemma 4 MoE target (module docstring), or
    None."""
    if not config.gelu_moe_target:
        return None
    known, runner = sglang_quantization.class_runner(config)
    method = sglang_quantization.loader_method(config)
    if not known or method not in (None, "fp8"):
        return None
    backend = sglang_moe_a2a.runtime_backend(config)
    if backend == "pplx" and runner == "auto":
        runner = "deep_gemm"  # handle_a2a_moe's pplx pick (arg_groups/moe_hook.py:603-609)
    auto = (runner == "auto" and method == "fp8" and backend in AUTO_DEEPGEMM_A2A
            and picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability) is True)
    lora = method is None and runner in LORA_RUNNERS  # s70h: layer.py:438-442
    if runner != "deep_gemm" and not auto and not lora:
        return None
    return (f"DeepGEMM MoE runner needs gated SiLU (AssertionError, moe_runner/deep_gemm.py:"
            f"352): the target's Gemma4MoE has gelu experts (models/gemma4_causal.py:236, "
            f"295), runner {runner}")


def check(config: EngineSettings) -> None:
    """Raise `problem`'s reason."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["GELU_TARGETS", "LORA_RUNNERS", "check", "problem"]
