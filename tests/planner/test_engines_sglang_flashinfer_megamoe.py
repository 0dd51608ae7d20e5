"""SGLang 0.5.23's flashinfer_megamoe start-up rules (graphfit.planner.engines.
sglang_flashinfer_megamoe) as properties; graphfit == SGLang on lines:
tests/oracle/test_sglang_moe_a2a_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphfit
from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_flashinfer_megamoe as fim

ARCHS = st.sampled_from([*sorted(fim.VALIDATED_ARCHS), "MixtralForCausalLM", "LlamaForCausalLM"])
QUANTS = st.sampled_from([None, "mxfp8", "modelopt_fp4", "fp8", "nvfp4_online", "modelopt_mixed"])
RUNNERS = st.sampled_from(["auto", "flashinfer_megamoe", "flashinfer_trtllm", "triton",
                           "deep_gemm", "cutlass", "flashinfer_cutedsl"])


def _config(**options: object) -> EngineConfig:
    base: dict[str, object] = {"moe_a2a_backend": "flashinfer_megamoe", "gpu_memory_gb": 178.0,
                               "sm100": True, "tp_size": 4, "attn_dp_size": 4,
                               "quant_method": "mxfp8"}
    arch = options.pop("architecture", "Qwen3MoeForCausalLM")
    dtype = str(options.pop("dtype", "bfloat16"))
    return EngineConfig(engine="sglang", architecture=arch, max_num_seqs=64, dtype=dtype,
                        options={**base, **options})


def _starts(**options: object) -> bool:
    try:
        _config(**options)
    except ConfigError as exc:
        assert str(exc).startswith("flashinfer_megamoe: "), exc
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(ARCHS, QUANTS, st.sampled_from([False, True, None]), RUNNERS,
       st.sampled_from([(2, 2), (4, 4), (4, 2), (2, 1)]), st.sampled_from([True, False, None]))
def test_fp4_metadata_only_widens_and_the_hard_rules_always_refuse(
        arch: str, quant: str | None, fp4: bool | None, runner: str,
        tp_dp: tuple[int, int], sm100: bool | None) -> None:
    """FP4 routed experts / hybrid NVFP4 metadata never refuses a line that starts without
    it; a class outside the list, attention DP short of TP or a GPU that is not SM100 always
    refuses (moe_hook.py:237-339)."""
    line = {"architecture": arch, "quant_method": quant, "moe_runner_backend": runner,
            "tp_size": tp_dp[0], "attn_dp_size": tp_dp[1], "sm100": sm100}
    starts = _starts(**line, moe_fp4_checkpoint=fp4)
    if starts:
        assert _starts(**line, moe_fp4_checkpoint=True)
        assert arch in fim.VALIDATED_ARCHS and tp_dp[0] == tp_dp[1] > 1 and sm100
        assert quant in fim.QUANTIZATIONS or fp4


@settings(max_examples=30, deadline=None)
@given(RUNNERS)
def test_mxfp8_resolves_the_runner_as_sglang(runner: str) -> None:
    """mxfp8 makes auto and any runner outside its list flashinfer_megamoe (overrides.py:
    1499-1510); a listed runner other than flashinfer_megamoe stays and is refused."""
    resolved = fim.resolved_runner(runner, "mxfp8", True)
    assert resolved == (runner if runner in fim.MXFP8_RUNNERS and runner != "auto"
                        else "flashinfer_megamoe")
    assert _starts(moe_runner_backend=runner) == (resolved == "flashinfer_megamoe")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([2, 4, 8]), st.integers(1, 64))
def test_a_started_plan_is_not_gathered_and_is_proved(tp: int, requests: int) -> None:
    """Attention DP over the whole TP group: every attention group is one rank, so nothing
    is gathered and the ladder needs no alignment; every batch pads within capacity."""
    config = _config(tp_size=tp, attn_dp_size=tp).replace(max_num_seqs=requests * tp)
    plan = graphfit.plan(config)
    assert plan.verify().ok
    sizes = sorted(plan.capture_sizes)
    for bs in range(1, min(requests, sizes[-1]) + 1):
        padded = plan.pad(bs, uniform_decode=True, component="target").padded
        assert padded == min(s for s in sizes if s >= bs)


def test_each_refusal_names_its_rule() -> None:
    cases = {
        "not a validated model class": {"architecture": "MixtralForCausalLM"},
        "without FP4 routed experts": {"quant_method": "fp8"},
        "read from its weights": {"quant_method": None, "moe_fp4_checkpoint": None},
        "DeepSeek V3 without quant_method: safetensors headers not local": {
            "quant_method": None, "checkpoint_quant_method": None,
            "architecture": "DeepseekV3ForCausalLM"},
        "NemotronHForCausalLM's override makes the auto MoE runner": {
            "quant_method": None, "checkpoint_quant_method": "modelopt_fp4",
            "architecture": "NemotronHForCausalLM"},
        "may become --quantization": {"quant_method": None, "sm100": None,
                                      "checkpoint_quant_method": "modelopt_fp4"},
        "COMBINE_DTYPE='fp32'": {"megamoe_combine_dtype": "fp32"},
        "IN_KERNEL_FC2_REDUCE=1": {"megamoe_combine_dtype": " MXFP8", "megamoe_fc2_reduce": True},
        "W4A16=1 needs SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE=bf16": {
            "nvfp4_w4a16": True, "megamoe_combine_dtype": "nvfp4"},
        "W4A16=1 needs the model dtype bfloat16": {"nvfp4_w4a16": True, "dtype": "float16"},
        "attention DP over the whole TP group": {"attn_dp_size": 2},
        "not flashinfer_trtllm": {"moe_runner_backend": "flashinfer_trtllm"},
        "SM100-family GPU: SGLang refuses (moe_hook.py:335-339)$": {"sm100": False},
        "the GPU is unknown": {"sm100": None},
        "nvfp4_online needs an SM100 GPU": {"quant_method": "nvfp4_online", "sm100": False},
        "nvfp4_online does not take": {"quant_method": "nvfp4_online",
                                       "moe_runner_backend": "triton"},
    }
    for words, options in cases.items():
        with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")
                           .replace(".", r"\.")):
            _config(**options)
    # what starts: the hybrid / FP4-expert checkpoint without --quantization, a non-bf16
    # combine with the reduce off, the draft's own default backend
    _config(quant_method=None, moe_fp4_checkpoint=True, quant_algo="MIXED_PRECISION")
    _config(megamoe_combine_dtype="nvfp4")
    # a ModelOpt NVFP4 checkpoint without --quantization on SM100 (qwen3_moe.py:38-50), and
    # nvfp4_online through the mega kernel in the W4A16 mode (overrides.py:1452-1483)
    _config(quant_method=None, checkpoint_quant_method="modelopt_fp4")
    _config(quant_method="nvfp4_online", nvfp4_w4a16=True)
    assert _config().replace(speculative_moe_a2a_backend=None).moe_a2a_backend == (
        "flashinfer_megamoe")
