"""SGLang 0.5.23's GPU check on the quantization config the model loader builds.

`_get_quantization_config` (model_loader/loader.py:214-262) builds the config class of the
ModelConfig's final quantization (`get_quant_config`, model_loader/weight_utils.py:269-425).
On CUDA it then refuses a GPU whose compute capability (major * 10 + minor) is below that
class's `get_min_capability()` (loader.py:253-262). The check runs on the scheduler's
ModelConfig, so the method is the one left after `_verify_quantization` and any model
override's copy.

Why a module of its own: the bar belongs to the config class, not to the flag. `mxfp8` shares
Fp8Config with `fp8` but needs SM100 (fp8.py:329-339), `quark_mxfp4` is QuarkConfig and
`auto-round-int8` is W8A8Int8Config (layers/quantization/__init__.py:63-91). Without this
check graphfit planned `--quantization mxfp8` on an H100, which SGLang refuses.

CUDA only. ROCm's MXFP8 bar (95 on gfx95), MUSA's (31) and NPU's (0) are other platforms.
SGLANG_FORCE_MXFP8_BLOCK_CONVERT lowers mxfp8's bar to 94 (fp8.py:145-147, 336-337). No
NVIDIA GPU has a capability from 94 to 99, so the answer does not change.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

_Q = "layers/quantization/"
# each CUDA method's config class's get_min_capability (__init__.py:63-104 names the class)
MIN_CAPABILITY: dict[str, tuple[int, str]] = {
    "fp8": (80, _Q + "fp8.py:329-339"),
    "mxfp8": (100, _Q + "fp8.py:329-339"),  # Fp8Config with use_mxfp8 (:346-349)
    "minimax_m3_nvfp4": (90, _Q + "minimax_m3_nvfp4.py:73-76"),
    "blockwise_int8": (80, _Q + "blockwise_int8.py:83-84"),
    "modelopt": (89, _Q + "modelopt_quant.py:462-463"),  # ModelOptFp8Config
    "modelopt_fp8": (89, _Q + "modelopt_quant.py:462-463"),
    "modelopt_fp4": (80, _Q + "modelopt_quant.py:1549-1550"),
    "nvfp4_online": (100, _Q + "nvfp4_online.py:135-136"),
    "modelopt_mixed": (80, _Q + "modelopt_quant.py:846-847"),  # ModelOptFp4Config's
    "w8a8_int8": (75, _Q + "w8a8_int8.py:87-88"),
    "w8a8_fp8": (89, _Q + "w8a8_fp8.py:66-67"),
    "awq": (75, _Q + "awq/awq.py:109-116"),
    "awq_marlin": (80, _Q + "awq/awq.py:307-308"),
    "bitsandbytes": (70, _Q + "bitsandbytes.py:100-101"),
    "gguf": (60, _Q + "gguf.py:114-115"),
    "gptq_marlin": (80, _Q + "gptq/gptq.py:386-387"),
    "moe_wna16": (70, _Q + "moe_wna16.py:126-127"),
    "compressed-tensors": (70, _Q + "compressed_tensors/compressed_tensors.py:160-161"),
    "w4afp8": (90, _Q + "w4afp8.py:70-71"),
    "petit_nvfp4": (90, _Q + "petit.py:62-64"),
    "quark": (70, _Q + "quark/quark.py:398-399"),
    "quark_mxfp4": (70, _Q + "quark/quark.py:398-399"),  # QuarkConfig
    "auto-round": (60, _Q + "auto_round.py:131-132"),
    "auto-round-int8": (75, _Q + "w8a8_int8.py:87-88"),  # W8A8Int8Config
    "modelslim": (0, _Q + "modelslim/modelslim.py:242-243"),
    "quark_int4fp8_moe": (70, _Q + "quark_int4fp8_moe.py:91-92"),
    "humming": (75, _Q + "humming.py:488-489"),
    "mxfp_w4a8": (0, _Q + "npu_mxfp4.py:62-63"),  # Mxfp4W4A8Config
    "mxfp4": (80, _Q + "mxfp4.py:338-339"),
}
SM100 = 100  # is_sm100_supported: capability 10.x (utils/common.py:309-313)


def min_capability(method: str) -> tuple[int, str] | None:
    """(the bar, where SGLang sets it) for the loader's final method; None for a method not
    in CUDA's table (the ModelConfig refuses it before the loader runs)."""
    return MIN_CAPABILITY.get(method)


def check(method: str | None, capability: int | None, sm100: bool | None) -> None:
    """The loader's check (loader.py:253-262) for the final `method` (None: no
    quantization). `capability`: the GPU's, None where unknown; an SM100 GPU (`sm100`) of
    unknown minor clears every bar, being 100 or more. With neither known graphfit cannot
    tell and checks nothing (the line's GPU decides; docs/engines/sglang-coverage.md)."""
    if method is None:
        return
    bar = min_capability(method)
    if bar is None:
        return
    current = capability if capability is not None else (SM100 if sm100 else None)
    need, where = bar
    if current is None or current >= need:
        return
    raise ConfigError(f"--quantization: SGLang refuses {method} below compute capability "
                      f"{need} (this GPU: {current}; model_loader/loader.py:253-262, "
                      f"{where.removeprefix('layers/')})")


__all__ = ["MIN_CAPABILITY", "check", "min_capability"]
