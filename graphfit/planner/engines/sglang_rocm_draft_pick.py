"""ROCm's pick of a DeepSeek-family NVFP4 EAGLE draft's MoE backends in SGLang 0.5.23, and
the refusal it makes on the way (issue 23, s70n). Paths under sglang/srt/.

Why its own rule: the post-process pass `_deepseek_spec_moe_resolution`
(arg_groups/overrides.py:846-887) runs during resolution, after the quantization pass and
before the a2a hook widens the EP size, on HIP only (`get_platform().is_hip`, :854). For a
target whose first architecture is in `_DEEPSEEK_FAMILY_ARCHS` (:745-760), with
`--quantization modelopt_fp4` as the pass sees it (on ROCm the SM100 copy of the checkpoint's
method, :763-797, never runs: the flag as given), `--speculative-algorithm EAGLE` (spelled so:
NEXTN is still NEXTN here, so it escapes the pass) and either draft backend left unset:

* with SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE on (an EnvBool, environ.py:143-150) it picks the
  deep_gemm draft runner and the deepep draft a2a backend, and first raises a ValueError when
  `--ep-size` is 1 (:866-874): the line never starts;
* otherwise it picks triton / none (:880-886).

graphfit planned the refused lines. The picks themselves change nothing graphfit prices on
ROCm (the draft's DeepEPMoE asserts are CUDA-only, ep_moe/layer.py:142), so only the refusal
is restated.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_quantization
from graphfit.planner.engines.sglang_model_quant import DEEPSEEK_FAMILY

WHERE = "arg_groups/overrides.py:866-874"
METHOD = "modelopt_fp4"


def picks_deep_gemm(config: EngineSettings) -> bool:
    """Whether the pass applies and, with the variable on, picks deep_gemm / deepep (module
    docstring). Unknown flags (a class whose `--quantization` graphfit cannot tell after the
    model overrides) read as not applying."""
    if not config.gpu_rocm or config.architecture not in DEEPSEEK_FAMILY:
        return False
    if config.spec_method is not SpecMethod.EAGLE:  # "EAGLE" only (:857)
        return False
    if (config.speculative_moe_runner_backend is not None
            and config.speculative_moe_a2a_backend is not None):
        return False
    if not sglang_quantization.flag_known(config):
        return False
    if sglang_quantization.resolved_flag(config) != METHOD:
        return False
    return config.nvfp4_ckpt_fp8_nextn_moe


def check(config: EngineSettings) -> None:
    """Raise SGLang's ValueError (module docstring) where the pass picks deep_gemm / deepep
    with `--ep-size` 1."""
    if picks_deep_gemm(config) and config.ep_size == 1:
        raise ConfigError(
            "ep_size: Invalid configuration: 'deep_gemm' speculative MoE runner backend with "
            "'deepep' a2a backend requires expert parallelism (ep_size > 1) "
            f"(ValueError, {WHERE})")
