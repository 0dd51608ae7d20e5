"""The `--quantization` SGLang 0.5.23's model overrides copy on SM100, as the config-file
rules must see it (issue 23, s67q).

On an SM100 GPU, with `--quantization` unset (and not `--quantization unquant`), the Qwen3-MoE
family's and GLM-4 MoE's hooks (arg_groups/model_overrides/qwen3_moe.py:38-50,
glm4_moe.py:15-33) and the DeepSeek family's post-process (arg_groups/overrides.py:763-797)
copy the checkpoint's `quant_method` into the flag (graphfit.planner.engines.sglang_model_quant
restates which class does). The scheduler's ModelConfig then verifies the copied flag
(managers/scheduler.py:794; configs/model_config.py:2000-2160) before any layer is built. A
GPTQ checkpoint's copied `gptq` gets no Marlin upgrade (the upgrade answers only an unset or a
Marlin flag, gptq/gptq.py:414-438) and is no CUDA method (model_config.py:2150-2155): SGLang
refuses it there.

Why a module of its own: the config-file rules (graphfit.inputs.sglang_quant_config_file) judge
the checkpoint's class and its layers (GPTQ `dynamic`, AutoRound) on the method ModelConfig
settles on without a flag. On SM100 that is not the method SGLang builds with, so a GPTQ
DeepSeek-V3 or Qwen3-MoE with a bad per-layer override got the layer's refusal, where SGLang
says "gptq" first. `flag_on` gives the copied flag for one GPU; the caller verifies it with
the planner's own wording (`sglang_quantization.copy_refusal`).
"""

from __future__ import annotations

from graphfit.planner.engines import sglang_model_quant as smq

# the override kinds that copy the checkpoint's method on SM100 (sglang_model_quant.KIND)
_COPYING = ("sm100_copy", "deepseek_sm100_copy")


def flag_on(architecture: object, flag: str | None, unquant: bool, method: str | None,
            capability: int) -> str | None:
    """The flag the class's override copies into `--quantization` on a GPU of `capability`
    (100: SM 10.0), or None where it copies nothing there (another GPU, a flag given or opted
    out, no method to copy, or a class that does not copy). `method`: the checkpoint's
    `quant_method` as `get_quantization_config` reads it (sglang_quantization.
    checkpoint_method)."""
    if not isinstance(architecture, str) or smq.kind(architecture) not in _COPYING:
        return None
    known, after = smq.flag_after_overrides(architecture, flag, unquant, None, method,
                                            capability // 10 == 10)
    return after if known and after is not None and after != flag else None


__all__ = ["flag_on"]
