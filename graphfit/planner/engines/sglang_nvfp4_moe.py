"""ModelOpt NVFP4's MoE method refuses some runners below Blackwell (issue 23, s54q).

SGLang builds `ModelOptNvFp4FusedMoEMethod` for each FusedMoE layer of a `modelopt_fp4`
checkpoint (ModelOptFp4Config.get_quant_method, layers/quantization/modelopt_quant.py:1704-1728,
the non-serialized path at :1716 too). Its `__init__` (:2369-2388) reads the MoE runner the
server arguments settled:

* a LoRA runner other than lora_marlin (`is_lora`, layers/moe/utils.py:174-179) is refused on
  every GPU: "NVFP4 MoE LoRA requires --moe-runner-backend lora_marlin.";
* auto or a LoRA runner on CUDA falls back to Marlin iff 80 <= capability < 100 (:2378-2380);
  any other runner falls back only where it is marlin / experimental_sgl_marlin (`is_marlin`,
  layers/moe/utils.py:162-169);
* off Blackwell (`is_blackwell`: capability major 10, 11 or 12 with CUDA >= 12.8,
  utils/common.py:297-303) without that fallback it is refused.

This runs while the model is built, after the loader's GPU and dtype checks
(model_loader/loader.py:253-270), so graphfit asks it last (sglang_quantization.check). It is
asked only where graphfit knows the model builds FusedMoE layers (MOE_CLASSES), the GPU's
CUDA capability (a named NVIDIA GPU or `gpu_capability`) and the runner after the model
class's override. graphfit does not model the CUDA version: a Blackwell GPU is taken to run
CUDA >= 12.8.

Since s60q the same method is asked for `modelopt_mixed` layers whose quantized_layers entry is
NVFP4 / W4A16_NVFP4 (:1089-1092) and for the fp8 + NVFP4 hybrid (HybridFp8NvFp4Config,
:1750-1752), where graphfit walked the model's FusedMoE layers (SglangOptions.nvfp4_moe_layers),
and not for a modelopt_fp4 checkpoint whose exclusions leave no MoE layer (:350-355). Past
`__init__`, the method's `create_moe_runner` refuses the cutlass runner (`runner_problem`).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

# model classes whose every MoE block builds FusedMoE (directly or through
# get_moe_impl_class, whose classes are FusedMoE's subclasses): a modelopt_fp4 checkpoint of
# them builds ModelOptNvFp4FusedMoEMethod at load
MOE_CLASSES: dict[str, str] = {
    "DeepseekV2ForCausalLM": "models/deepseek_v2.py:753",
    "DeepseekV3ForCausalLM": "models/deepseek_v2.py:753",
    "Qwen3MoeForCausalLM": "models/qwen3_moe.py:265",
    "Qwen2MoeForCausalLM": "models/qwen2_moe.py:318",
    "MixtralForCausalLM": "models/mixtral.py:100",
    "Glm4MoeForCausalLM": "models/glm4_moe.py:436",
}
LORA = ("lora_cutedsl", "lora_triton", "lora_marlin")
MARLIN = ("marlin", "experimental_sgl_marlin")
LORA_WORDS = "NVFP4 MoE LoRA requires --moe-runner-backend lora_marlin."
PLATFORM_WORDS = ("Current platform does not support NVFP4 quantization with the selected "
                  "MoE backend.")
CUTLASS_WORDS = "moe_runner_backend=cutlass is not supported for NVFP4 MoE."
LATER = "a later MoE layer (other method first)"  # s60q: nvfp4_moe_layers "later"


def problem(runner: str, capability: int) -> str | None:
    """SGLang's refusal sentence for `runner` on a CUDA GPU of `capability` (90: SM 9.0), or
    None where `ModelOptNvFp4FusedMoEMethod.__init__` accepts."""
    if runner in LORA and runner != "lora_marlin":
        return LORA_WORDS
    auto = runner == "auto" or runner in LORA
    fallback = 80 <= capability < 100 if auto else runner in MARLIN
    blackwell = capability // 10 in (10, 11, 12)
    if not blackwell and not fallback:
        return PLATFORM_WORDS
    return None


def runner_problem(runner: str) -> str | None:
    """`create_moe_runner` (modelopt_quant.py:3111-3148), which FusedMoE calls as it is built
    (layers/moe/fused_moe_triton/layer.py:576) once `__init__` accepted the runner: the cutlass
    runner is refused (:3144-3148; auto becomes marlin or flashinfer_trtllm first, :3116-3123,
    and megamoe / LoRA return before, :3127-3134, graphfit's check skipping megamoe itself)."""
    return CUTLASS_WORDS if runner == "cutlass" else None


def asked(config: EngineSettings, method: str | None, hybrid: bool = False) -> str | None:
    """The config class whose FusedMoE layers build the NVFP4 MoE method on this line, or
    None: modelopt_fp4 on a MOE_CLASSES model unless its exclusions leave no MoE layer
    (`nvfp4_moe_layers` "none", s60q); modelopt_mixed, or fp8 with the ModelConfig's
    nvfp4_moe_meta (HybridFp8NvFp4Config), where graphfit walked the layers and some
    builds it (`nvfp4_moe_layers` "first" / "later": graphfit.inputs.sglang_nvfp4_moe_layers).
    `hybrid`: the ModelConfig's nvfp4_moe_meta is set (sglang_quantization.hybrid_nvfp4)."""
    layers = config.nvfp4_moe_layers
    if method == "modelopt_fp4":
        ours = config.checkpoint_quant_method in (None, "modelopt", "modelopt_fp4")
        if layers == "none" and ours:
            return None  # every MoE layer excluded (modelopt_quant.py:350-355)
        return method if config.architecture in MOE_CLASSES or layers else None
    if layers not in ("first", "later"):
        return None
    if method == "modelopt_mixed":
        return method  # modelopt_quant.py:1089-1092
    if method == "fp8" and hybrid:
        return "fp8+NVFP4 hybrid"  # modelopt_quant.py:1750-1752, loader.py:229-251
    return None


def check(config: EngineSettings, method: str | None, runner: tuple[bool, str],
          hybrid: bool = False) -> None:
    """Refuse a line whose loader builds `method` (the quantization the loader builds) with
    FusedMoE layers taking the NVFP4 MoE method (`asked`) where the settled runner
    (`runner`: known, name) is one that method refuses on the line's GPU; nothing where the
    GPU, the runner or the model's MoE layers are unknown to graphfit."""
    known, name = runner
    capability = config.gpu_capability
    which = asked(config, method, hybrid)
    if which is None or not known or capability is None:
        return
    if (config.moe_a2a_backend or "none") == "flashinfer_megamoe":
        return  # its module resolves its own runner (sglang_flashinfer_megamoe)
    said = problem(name, capability)
    where = "2373-2376" if said == LORA_WORDS else "2377-2387"
    if said is None:
        said, where = runner_problem(name), "3144-3148"  # issue 23 s60q
    if said is None:
        return
    if config.nvfp4_moe_layers == "later":  # another method's checks come first, unrestated
        # the cite before SGLang's sentence, cut to fit the CLI's 200-character error line
        raise ConfigError(f"{which}, {name}, SM{capability}, {LATER}, "
                          f"modelopt_quant.py:{where}: {said}"[:192])
    raise ConfigError(f"{which} MoE, {name} runner, SM{capability}: {said} SGLang "
                      f"refuses at load (modelopt_quant.py:{where})"[:200])


__all__ = ["CUTLASS_WORDS", "LORA_WORDS", "MOE_CLASSES", "PLATFORM_WORDS", "asked", "check",
           "problem", "runner_problem"]
