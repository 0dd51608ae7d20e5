"""The per-layer quantization refusals of issue 23 s66q through the CLI, without the oracle
(SGLang's own answers: tests/oracle/test_sglang_quant_gptq_dynamic_oracle.py,
test_sglang_quant_auto_round_layers_oracle.py, test_sglang_quant_quark_requant_oracle.py):
each is one whole error line citing SGLang's lines, and its near miss plans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli

_SHAPES = {"hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 4,
           "head_dim": 32, "num_hidden_layers": 2, "vocab_size": 1024,
           "intermediate_size": 256, "max_position_embeddings": 4096, "rms_norm_eps": 1e-6,
           "hidden_act": "silu", "torch_dtype": "bfloat16", "tie_word_embeddings": False}
_DEEPSEEK = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
             **_SHAPES, "n_routed_experts": 8, "n_shared_experts": 1, "num_experts_per_tok": 2,
             "moe_intermediate_size": 128, "kv_lora_rank": 64, "q_lora_rank": 96,
             "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
             "first_k_dense_replace": 1, "moe_layer_freq": 1, "topk_method": "noaux_tc",
             "n_group": 1, "topk_group": 1, "scoring_func": "sigmoid",
             "routed_scaling_factor": 2.5, "rope_theta": 10000.0}
_QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", **_SHAPES,
              "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 96,
              "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": True}
_LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", **_SHAPES}
_GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}
_AUTO_ROUND = {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True,
               "packing_format": "auto_round:auto_gptq"}


def _plan(tmp_path: Path, config: dict[str, Any], *flags: str) -> tuple[int, str]:
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(config))
    # an H100: on SM100 DeepSeek-V3's and Qwen3-MoE's overrides copy the checkpoint's method
    # into --quantization first (graphfit.planner.engines.sglang_model_quant)
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "H100", "--weights-gb", "2", "--",
                            "sglang", "serve", "--model-path", str(model), *flags])
    return code, err


@pytest.mark.parametrize(("config", "bad", "good", "flags", "cite"), [
    (_DEEPSEEK, {**_GPTQ, "dynamic": {r"+:.*q_b_proj": {"bits": 3}}},
     {**_GPTQ, "dynamic": {r"+:.*q_proj": {"bits": 3}}}, (), "utils.py:222-242"),
    (_QWEN3_MOE, {**_AUTO_ROUND, "desc_act": True}, _AUTO_ROUND, (), "auto_round.py:308-315"),
    (_LLAMA, _GPTQ, {"quant_method": "fp8", "activation_scheme": "dynamic"},
     ("--quantization", "quark_mxfp4"), "quark/quark.py:611-615")],
    ids=["gptq_dynamic_deepseek", "auto_round_moe_experts", "quark_mxfp4_requant"])
def test_refusal_is_one_whole_error_line(tmp_path: Path, config: dict[str, Any],
                                         bad: dict[str, Any], good: dict[str, Any],
                                         flags: tuple[str, ...], cite: str) -> None:
    code, err = _plan(tmp_path, {**config, "quantization_config": bad}, *flags)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error: ") and cite in lines[0], err
    code, err = _plan(tmp_path, {**config, "quantization_config": good}, *flags)
    assert code == 0, err


@pytest.mark.parametrize("config", [_DEEPSEEK, _QWEN3_MOE], ids=["deepseek_v3", "qwen3_moe"])
def test_sm100_copy_is_refused_before_any_layer(tmp_path: Path, config: dict[str, Any]) -> None:
    """issue 23 s67q: on a B200 the class's override copies `gptq` into the unset flag and
    SGLang's ModelConfig refuses it before any layer is built: that reason, not the layer's
    (both oracle-checked in tests/oracle/test_sglang_quant_gptq_dynamic_oracle.py); with
    `--quantization unquant` nothing is copied and the layer's refusal stands."""
    model = tmp_path / "model"
    model.mkdir()
    bad = {**_GPTQ, "dynamic": {r"+:.*o_proj": {"bits": 3}}}
    (model / "config.json").write_text(json.dumps({**config, "quantization_config": bad}))
    for flags, cite in (((), "model_config.py:2150-2155"),
                        (("--quantization", "unquant"), "utils.py:222-242")):
        code, _, err = run_cli(["plan", "--gpu-memory-gb", "B200", "--weights-gb", "2", "--",
                                "sglang", "serve", "--model-path", str(model), *flags])
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
        assert cite in lines[0] and ("copies 'gptq'" in lines[0]) == (not flags), err
