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


def check(config: EngineSettings, method: str | None, runner: tuple[bool, str]) -> None:
    """Refuse a modelopt_fp4 line (`method`: the quantization the loader builds) of a
    MOE_CLASSES model whose settled runner (`runner`: known, name) the NVFP4 MoE method
    refuses on the line's GPU; nothing where the GPU, the runner or the model's MoE layers
    are unknown to graphfit."""
    known, name = runner
    capability = config.gpu_capability
    arch = config.architecture
    if method != "modelopt_fp4" or arch not in MOE_CLASSES or not known or capability is None:
        return
    if (config.moe_a2a_backend or "none") == "flashinfer_megamoe":
        return  # its module resolves its own runner (sglang_flashinfer_megamoe)
    said = problem(name, capability)
    if said is None:
        return
    where = "2373-2376" if said == LORA_WORDS else "2377-2387"
    raise ConfigError(f"modelopt_fp4 MoE, {name} runner, SM{capability}: {said} SGLang "
                      f"refuses at load (modelopt_quant.py:{where})"[:200])


__all__ = ["LORA_WORDS", "MOE_CLASSES", "PLATFORM_WORDS", "check", "problem"]
