"""Properties of SGLang 0.5.23's per-class `--quantization` overrides as graphfit restates
them (graphfit.planner.engines.sglang_model_quant); SGLang's own functions are compared in
tests/oracle/test_sglang_model_quant_oracle.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_flashinfer_megamoe as fim
from graphfit.planner.engines import sglang_model_quant as smq
from graphfit.planner.engines import sglang_quantization as sq

ARCHS = st.sampled_from([*sorted(smq.KIND), "MixtralForCausalLM"])
FLAGS = st.sampled_from([None, "unquant", "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8",
                         "nvfp4_online", "w8a8_fp8"])
METHODS = st.sampled_from([None, "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8",
                           "modelopt_mixed", "compressed-tensors", "w4afp8"])
GPUS = st.sampled_from([True, False, None])


def _resolve(arch: str, flag: str | None, method: str | None, sm100: bool | None
             ) -> tuple[bool, str | None] | None:
    given_flag = None if flag == "unquant" else flag
    try:
        model_quant = sq.check_clash(given_flag, method)
    except ConfigError:
        return None
    return smq.flag_after_overrides(arch, given_flag, flag == "unquant", model_quant, method,
                                    sm100)


@settings(max_examples=150, deadline=None)
@given(ARCHS, FLAGS, METHODS, GPUS)
def test_each_kind_sets_the_flag_as_its_override(arch: str, flag: str | None,
                                                 method: str | None, sm100: bool | None
                                                 ) -> None:
    """A given flag wins except where Nemotron-H's ModelConfig is ModelOpt; the SM100 copy
    needs SM100, no flag and a method; the keeping classes never set one; graphfit never
    guesses: an unknown flag is one that reads weights, an unknown GPU or Nemotron-H's
    unquant copy."""
    out = _resolve(arch, flag, method, sm100)
    if out is None:
        return
    known, resolved = out
    kind = smq.kind(arch)
    given_flag = None if flag == "unquant" else flag
    model_quant = sq.check_clash(given_flag, method)
    if kind == "modelopt_any_gpu":
        assert known == (flag != "unquant" or model_quant not in smq.MODELOPT)
        assert resolved == (model_quant if model_quant in smq.MODELOPT else given_flag)
        return
    if flag is not None:
        assert (known, resolved) == (True, given_flag)
    elif not known:
        assert sm100 is not False and kind != "keeps"
        assert sm100 is None or kind is None or (
            arch == "DeepseekV3ForCausalLM" and method is None)
    elif sm100 and method is not None and kind in ("sm100_copy", "deepseek_sm100_copy"):
        assert resolved == method
    else:
        assert resolved is None


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(smq.NEMOTRON_H[:2]), st.sampled_from(["auto", "flashinfer_megamoe"]),
       st.sampled_from([None, "modelopt_fp4", "modelopt_mixed", "mxfp8"]))
def test_nemotron_h_under_megamoe_starts_only_with_the_runner_named(
        arch: str, runner: str, method: str | None) -> None:
    """Nemotron-H's override turns auto into flashinfer_cutlass / marlin for a ModelOpt or
    unquantized line (nemotron_h.py:99-121), which flashinfer_megamoe refuses
    (moe_hook.py:328-334); naming flashinfer_megamoe keeps it."""
    options = {"moe_a2a_backend": fim.BACKEND, "sm100": True, "tp_size": 4, "attn_dp_size": 4,
               "quant_method": None, "checkpoint_quant_method": method,
               "moe_fp4_checkpoint": method in ("modelopt_fp4", "modelopt_mixed"),
               "moe_runner_backend": runner}
    try:
        EngineConfig(engine="sglang", architecture=arch, max_num_seqs=64, options=options)
        started = True
    except ConfigError as exc:
        assert str(exc).startswith("flashinfer_megamoe: "), exc
        started = False
        if runner == "auto" and method in ("modelopt_fp4", "modelopt_mixed"):
            assert "override makes the auto MoE runner" in str(exc)
    # an FP4 checkpoint passes the quantization rule; Nemotron-H does not copy mxfp8 (no
    # ModelOpt method), nor is there a flag without a checkpoint method (moe_hook.py:264-282)
    assert started == (runner == "flashinfer_megamoe"
                       and method in ("modelopt_fp4", "modelopt_mixed"))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["auto", "flashinfer_megamoe"]),
       st.sampled_from([None, "MIXED_PRECISION", "mixed_precision", "NVFP4"]))
def test_deepseek_v4_hybrid_metadata_under_megamoe_names_the_runner(
        runner: str, quant_algo: str | None) -> None:
    """An FP4 DeepSeek-V4 checkpoint whose quant_algo may carry hybrid NVFP4 metadata
    (MIXED_PRECISION, any case: model_config.py:779-784) starts under flashinfer_megamoe
    only with the runner named (deepseek_v4.py:66-74); other FP4 checkpoints start with
    auto too."""
    options = {"moe_a2a_backend": fim.BACKEND, "sm100": True, "tp_size": 4, "attn_dp_size": 4,
               "quant_method": None, "checkpoint_quant_method": "fp8", "quant_algo": quant_algo,
               "moe_fp4_checkpoint": True, "moe_runner_backend": runner}
    hybrid = str(quant_algo).upper() == "MIXED_PRECISION"
    try:
        EngineConfig(engine="sglang", architecture="DeepseekV4ForCausalLM", max_num_seqs=64,
                     options=options)
    except ConfigError as exc:
        assert hybrid and runner == "auto" and "flashinfer_trtllm_routed" in str(exc), exc
        return
    assert not hybrid or runner == "flashinfer_megamoe"


def test_every_validated_megamoe_class_is_restated() -> None:
    """No validated flashinfer_megamoe class (moe_hook.py:240-254) is left unrestated."""
    assert set(smq.KIND) >= fim.VALIDATED_ARCHS
    assert all(kind in smq.CITE for kind in smq.KIND.values())
