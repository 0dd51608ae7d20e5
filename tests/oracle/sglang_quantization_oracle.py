"""SGLang 0.5.23's own `ModelConfig._verify_quantization` (configs/model_config.py:2000-2160)
on one checkpoint quantization_config and one `--quantization`, for the target model: what
graphfit.planner.engines.sglang_quantization.check_clash restates.

The method runs on a ModelConfig built without its constructor: only the attributes it reads
(hf_config.quantization_config, model_path: an empty directory, so no ModelSlim file and no
hf_quant_config.json, quantization, is_draft_model) are set.
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
}


@functools.cache
def _empty_dir() -> str:
    return tempfile.mkdtemp(prefix="graphfit-sglang-quant-")


def verify(flag: str | None, layout: dict[str, Any]) -> str:
    """SGLang's resolved ModelConfig.quantization ("None" for none), or "refused: ..."."""
    so.oracle()
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=(10, 0)):
        from sglang.srt.configs.model_config import ModelConfig

        config = ModelConfig.__new__(ModelConfig)
        config.hf_config = types.SimpleNamespace(quantization_config=copy.deepcopy(layout))
        config.model_path = _empty_dir()
        config.quantization = flag
        config.is_draft_model = False
        config.is_draft_quantization_explicit = False
        try:
            config._verify_quantization()
        except ValueError as exc:
            return f"refused: {exc}"
        return str(config.quantization)
