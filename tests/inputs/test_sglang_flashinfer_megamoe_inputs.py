"""flashinfer_megamoe's inputs: the checkpoint's FP4 layout (graphfit.inputs.model_config)
and its environment (graphfit.inputs.environment), as SGLang derives them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import model_config
from graphfit.inputs.environment import sglang_environment


def _layout(tmp_path: Path, quant: dict[str, object], arch: str = "Qwen3MoeForCausalLM"
            ) -> dict[str, object]:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": [arch],
                                                      "quantization_config": quant}))
    return {s.field: s.value for s in model_config.quant_settings(str(tmp_path))
            if s.field not in ("checkpoint_quant_method", "checkpoint_quant_config")}
    # (those two: test_sglang_quantization_oracle, test_sglang_quant_files_oracle)


@pytest.mark.parametrize(("quant", "arch", "expected"), [
    # is_fp4_experts (configs/model_config.py:728-731)
    ({"quant_method": "fp8", "routed_experts_quant_method": "mxfp4"}, "Qwen3MoeForCausalLM",
     {"moe_fp4_checkpoint": True}),
    ({"quant_method": "fp8", "routed_experts_quant_method": "fp8"}, "DeepseekV4ForCausalLM",
     {}),
    # DeepSeek-V4 without the key: SGLang reads the weights (:744-761)
    ({"quant_method": "fp8"}, "DeepseekV4ForCausalLM", {"moe_fp4_checkpoint": None}),
    # nvfp4_moe_meta (:774-797): names upper-cased, a group_size needed
    ({"quant_algo": "mixed_precision", "moe_quant_algo": "nvfp4", "group_size": 16},
     "Qwen3MoeForCausalLM", {"quant_algo": "mixed_precision", "moe_fp4_checkpoint": True}),
    ({"quant_algo": "MIXED_PRECISION", "moe_quant_algo": "NVFP4"}, "Qwen3MoeForCausalLM",
     {"quant_algo": "MIXED_PRECISION"}),
    ({"quant_algo": "NVFP4", "group_size": 16}, "Qwen3MoeForCausalLM", {"quant_algo": "NVFP4"}),
])
def test_the_fp4_layout_is_sglangs(tmp_path: Path, quant: dict[str, object], arch: str,
                                   expected: dict[str, object]) -> None:
    assert _layout(tmp_path, quant, arch) == expected


def test_the_environment_is_read_as_sglang_reads_it() -> None:
    """EnvBool: true/1/yes/y and false/0/no/n, anything else keeps the default
    (environ.py:67-86, 143-150); the combine dtype an EnvStr kept as written."""
    def read(env: dict[str, str]) -> dict[str, object]:
        return {s.field: s.value for s in sglang_environment(env)}

    assert read({"SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE": "Yes",
                 "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "0",
                 "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE": " MXFP8"}) == {
        "megamoe_fc2_reduce": True, "nvfp4_w4a16": False, "megamoe_combine_dtype": " MXFP8"}
    assert read({"SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE": "maybe"}) == {}


def test_a_pasted_line_reaches_the_config(tmp_path: Path) -> None:
    """The checkpoint's hybrid NVFP4 layout, the GPU's generation and the environment reach
    the config, which then starts (no --quantization needed)."""
    from graphfit.cli.options import build_config

    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048,
        "torch_dtype": "bfloat16",  # w4afp8 loads in bfloat16 only (w4afp8.py:66-67)
        "num_experts_per_tok": 8, "quantization_config": {
            "quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
            "moe_quant_algo": "NVFP4", "group_size": 16}}))
    line = ["SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE=nvfp4", "sglang", "serve", "--model-path",
            str(tmp_path), "--moe-a2a-backend", "flashinfer_megamoe", "--tp-size", "2",
            "--attn-dp-size", "2", "--max-running-requests", "16"]
    config = build_config({"gpu_memory_gb": "B200"}, environ={}, pasted=line)
    assert (config.moe_fp4_checkpoint, config.sm100, config.megamoe_combine_dtype) == (
        True, True, "nvfp4")
    assert config.moe_a2a_backend == "flashinfer_megamoe"
