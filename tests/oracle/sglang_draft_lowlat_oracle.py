"""SGLang 0.5.23's answer on a quantized MoE draft's low-latency DeepEPMoE assert beyond FP8
(ep_moe/layer.py:168-178; graphfit.planner.engines.sglang_draft_deepep.quantized_problem;
issue 23, s69e), shared by tests/oracle/test_sglang_draft_lowlat_oracle.py and
measure_sglang_draft_lowlat (not a test).

The drafts: SGLang's own config classes (tests.oracle.sglang_draft_build.NEXTN_DRAFTS) with a
checkpoint quantization config SGLang's draft loader builds: ModelOpt FP8 / NVFP4 / MIXED,
Quark, fp8, on Qwen3.5 MTP, Qwen3-Next MTP and DeepSeek / GLM-MoE-DSA / GLM-4.5 NextN
drafts. SGLang: tests.oracle.sglang_mtp_quant_oracle.answers (its resolution, the target's
MoE block, then the draft built on meta under its own loader's quantization config, which
each draft class hands on or drops itself); graphfit: its CLI on the pasted line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.oracle import sglang_mtp_quant_oracle as mq

_FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
              "weight_block_size": [128, 128]}
_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
_MODELOPT_FP8 = {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": []}

# name -> (base draft, config.json's quantization_config, hf_quant_config.json), as mq.DRAFTS
DRAFTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    # Qwen3.5 MTP drafts whose MTP keeps its config (s68d's KEPT)
    "mtp_fp8": mq.DRAFTS["fp8"],
    "mtp_mixed": mq.DRAFTS["mixed_mtp"],
    "mtp_quark": mq.DRAFTS["quark_attn"],
    # the Qwen3-Next MTP keeps every config on CUDA (qwen3_next_mtp.py:51-52 is NPU only)
    "next_fp8": ("qwen3_next", {"quant_method": "fp8", "activation_scheme": "dynamic"}, None),
    "dsv3_fp8_block": ("deepseek_v3", _FP8_BLOCK, None),
    "dsv3_modelopt_fp8": ("deepseek_v3", _MODELOPT_FP8, None),
    # GLM-MoE-DSA's NextN rewrites a Quark config and keeps it (glm4_moe.py:1359-1430)
    "dsa_quark": ("glm_moe_dsa", {**mq.DRAFTS["quark_attn"][1], "exclude": ["lm_head"]}, None),
    # dropped by the NextN class: its experts are unquantized (deepseek_nextn.py:75-79,
    # glm4_moe_nextn.py:52-56)
    "dsv3_nvfp4": ("deepseek_v3", _NVFP4, None),
    "glm4_nvfp4": ("glm4_moe", _NVFP4, None),
}


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS)) -> dict[str, Path]:
    """The Qwen3-MoE target and the named quantized drafts under `root`."""
    return mq.dirs(root, names, DRAFTS)


answers = mq.answers

__all__ = ["DRAFTS", "answers", "dirs"]
