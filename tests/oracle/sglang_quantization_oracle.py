"""SGLang 0.5.23's own `ModelConfig._verify_quantization` (configs/model_config.py:2000-2160)
on one checkpoint quantization_config and one `--quantization`, for the target model: what
graphfit.planner.engines.sglang_quantization.check_clash restates.

The method runs on a ModelConfig built without its constructor: only the attributes it reads
(hf_config.quantization_config / compression_config, model_path, quantization,
is_draft_model, revision) are set. model_path is an empty directory unless `model_dir` names a
local checkpoint (its hf_quant_config.json and quant_model_description.json are then SGLang's
to read); the GPU is a fake CUDA one of the given compute capability (SM100 by default).
"""

from __future__ import annotations

import copy
import functools
import tempfile
import types
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

# flags a line may give (arg_groups/choices.py:36-70), those graphfit refuses as not modelled
# included; quark_mxfp4 is the online requantization
FLAGS = (None, "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8", "modelopt_mixed",
         "nvfp4_online", "w4afp8", "compressed-tensors", "w8a8_fp8", "w8a8_int8",
         "quark_mxfp4", "mxfp4", "minimax_m3_nvfp4", "modelopt", "moe_wna16", "awq_marlin")
# config.json quantization_config layouts, as checkpoints carry them
LAYOUTS: dict[str, dict[str, Any]] = {
    "modelopt_nvfp4": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
    "modelopt_fp8": {"quant_method": "modelopt", "quant_algo": "FP8"},
    "modelopt_mxfp8": {"quant_method": "modelopt", "quant_algo": "MXFP8", "group_size": 32},
    "modelopt_mixed_nvfp4": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                             "quantized_layers": {"model.layers.0.mlp.experts":
                                                  {"quant_algo": "NVFP4"}}},
    "hybrid_nvfp4": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                     "moe_quant_algo": "NVFP4", "group_size": 16},
    "algo_only_fp4": {"quant_algo": "FP4"},
    "modelopt_unknown_algo": {"quant_method": "modelopt", "quant_algo": "INT4_AWQ"},
    "fp8_block": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                  "weight_block_size": [128, 128]},
    "fp8_mxfp4_experts": {"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"},
    "mxfp8": {"quant_method": "mxfp8"},
    "upper_fp8": {"quant_method": "FP8"},
    "compressed": {"quant_method": "compressed-tensors"},
    "mxfp4": {"quant_method": "mxfp4"},
    "unknown": {"quant_method": "bitnet"},
    "awq_4bit": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True},
    "awq_8bit": {"quant_method": "awq", "bits": 8, "group_size": 128, "zero_point": True},
    "gptq_4bit": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True,
                  "desc_act": False},
    "gptq_marlin_format": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True,
                           "desc_act": True, "checkpoint_format": "marlin"},
}
# flags added since the first 17 (the measurement's 238 pairs are FLAGS[:17] x the first 14)
MORE_FLAGS = ("gptq_marlin", "humming", "awq", "gptq")


@functools.cache
def _empty_dir() -> str:
    return tempfile.mkdtemp(prefix="graphfit-sglang-quant-")


def verify(flag: str | None, layout: dict[str, Any] | None,
           capability: tuple[int, int] = (10, 0), model_dir: str | None = None,
           compression: dict[str, Any] | None = None) -> str:
    """SGLang's resolved ModelConfig.quantization ("None" for none), "refused: ..." where it
    raises ValueError, or "crash: ..." where it stops with another exception. `layout`:
    config.json's quantization_config (None: absent); `compression`: its
    compression_config."""
    so.oracle()
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=capability):
        from sglang.srt.configs.model_config import ModelConfig

        config = ModelConfig.__new__(ModelConfig)
        hf = types.SimpleNamespace()
        if layout is not None:
            hf.quantization_config = copy.deepcopy(layout)
        if compression is not None:
            hf.compression_config = copy.deepcopy(compression)
        config.hf_config = hf
        config.model_path = model_dir or _empty_dir()
        config.revision = None
        config.quantization = flag
        config.is_draft_model = False
        config.is_draft_quantization_explicit = False
        try:
            config._verify_quantization()
        except ValueError as exc:
            return f"refused: {exc}"
        except (AttributeError, TypeError) as exc:
            return f"crash: {type(exc).__name__}: {exc}"
        return str(config.quantization)
