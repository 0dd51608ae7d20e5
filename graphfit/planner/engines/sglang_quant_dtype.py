"""SGLang 0.5.23's dtype check on the quantization config the model loader builds.

Right after the GPU check (graphfit.planner.engines.sglang_quant_capability),
`_get_quantization_config` refuses a ModelConfig dtype that is not in the built config
class's `get_supported_act_dtypes()` (model_loader/loader.py:263-270): "{dtype} is not
supported for quantization method {method}. Supported dtypes: [...]".

Why a module of its own: the list belongs to the config class, not to the flag, and the
model's dtype is SGLang's resolved one (graphfit.inputs.sglang_dtype: an explicit --dtype,
else the checkpoint's, float32 becoming float16). Without this check graphfit planned
`--quantization awq` on a bfloat16 checkpoint and `--dtype float32` with fp8, both of which
SGLang refuses before loading a weight.

The model dtype is float16, bfloat16 or float32 (`_STR_DTYPE_TO_TORCH_DTYPE`, configs/
model_config.py:2274-2280), so only three entries of each list matter. CUDA only: AWQ takes
bfloat16 on NPU (awq/awq.py:106); NPU, XPU and CPU classes are not modelled.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

_Q = "layers/quantization/"
_HALF_BF16 = ("bfloat16", "float16")
# each CUDA method's config class (__init__.py:63-92) and its get_supported_act_dtypes,
# restricted to the dtypes a ModelConfig can have (float8_e4m3fn / int8 entries dropped)
SUPPORTED_DTYPES: dict[str, tuple[tuple[str, ...], str]] = {
    "fp8": (_HALF_BF16, _Q + "fp8.py:326-327"),
    "mxfp8": (_HALF_BF16, _Q + "fp8.py:326-327"),  # Fp8Config
    "minimax_m3_nvfp4": (_HALF_BF16, _Q + "fp8.py:326-327"),  # subclasses Fp8Config
    "blockwise_int8": (_HALF_BF16, _Q + "blockwise_int8.py:79-80"),
    "modelopt": (_HALF_BF16, _Q + "modelopt_quant.py:458-459"),  # ModelOptFp8Config
    "modelopt_fp8": (_HALF_BF16, _Q + "modelopt_quant.py:458-459"),
    "modelopt_fp4": (_HALF_BF16, _Q + "modelopt_quant.py:1545-1546"),  # + float8_e4m3fn
    "nvfp4_online": (_HALF_BF16, _Q + "nvfp4_online.py:131-132"),
    "modelopt_mixed": (_HALF_BF16, _Q + "modelopt_quant.py:842-843"),
    "w8a8_int8": (_HALF_BF16, _Q + "w8a8_int8.py:83-84"),
    "w8a8_fp8": (_HALF_BF16, _Q + "w8a8_fp8.py:62-63"),
    "awq": (("float16",), _Q + "awq/awq.py:105-106"),  # bfloat16 on NPU only
    "awq_marlin": (_HALF_BF16, _Q + "awq/awq.py:303-304"),
    "bitsandbytes": (("float32", "float16", "bfloat16"), _Q + "bitsandbytes.py:96-97"),
    "gguf": (("float16", "bfloat16", "float32"), _Q + "gguf.py:110-111"),
    "gptq_marlin": (_HALF_BF16, _Q + "gptq/gptq.py:382-383"),
    "moe_wna16": (_HALF_BF16, _Q + "moe_wna16.py:122-123"),
    "compressed-tensors": (_HALF_BF16,
                           _Q + "compressed_tensors/compressed_tensors.py:156-157"),
    "w4afp8": (("bfloat16",), _Q + "w4afp8.py:66-67"),  # + float8_e4m3fn
    "petit_nvfp4": (_HALF_BF16, _Q + "petit.py:58-59"),
    "quark": (_HALF_BF16, _Q + "quark/quark.py:394-395"),
    "quark_mxfp4": (_HALF_BF16, _Q + "quark/quark.py:394-395"),  # QuarkConfig
    "auto-round": (_HALF_BF16, _Q + "auto_round.py:127-128"),
    "auto-round-int8": (_HALF_BF16, _Q + "w8a8_int8.py:83-84"),  # W8A8Int8Config
    "modelslim": (_HALF_BF16, _Q + "modelslim/modelslim.py:238-239"),  # + int8
    "quark_int4fp8_moe": (_HALF_BF16, _Q + "quark_int4fp8_moe.py:87-88"),
    "humming": (_HALF_BF16, _Q + "humming.py:484-485"),
    "mxfp_w4a8": (_HALF_BF16, _Q + "npu_mxfp4.py:58-59"),  # Mxfp4W4A8Config
    "mxfp4": (_HALF_BF16, _Q + "mxfp4.py:346-347"),
}


def check(method: str | None, dtype: str | None) -> None:
    """The loader's dtype check (loader.py:263-270) for the final `method` (None: no
    quantization) on the model's resolved `dtype` (None or a name outside the three: not
    checked). A method outside the table is refused earlier by the ModelConfig."""
    if method is None or dtype is None or method not in SUPPORTED_DTYPES:
        return
    allowed, where = SUPPORTED_DTYPES[method]
    if dtype in allowed:
        return
    raise ConfigError(f"--quantization {method}: SGLang refuses dtype {dtype}, supported: "
                      f"{' / '.join(allowed)} (model_loader/loader.py:263-270, "
                      f"{where.removeprefix(_Q)})")


__all__ = ["SUPPORTED_DTYPES", "check"]
