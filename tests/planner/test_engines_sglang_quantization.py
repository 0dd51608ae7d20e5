"""SGLang 0.5.23's quantization resolution (graphfit.planner.engines.sglang_quantization) as
properties; graphfit == SGLang's own `_verify_quantization`:
tests/oracle/test_sglang_quantization_oracle.py, on whole lines:
tests/oracle/test_sglang_moe_a2a_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_quantization as sq

FLAGS = st.sampled_from([None, "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8", "modelopt_mixed",
                         "nvfp4_online", "w4afp8", "compressed-tensors", "w8a8_fp8",
                         "quark_mxfp4", "minimax_m3_nvfp4", "mxfp4"])
METHODS = st.sampled_from([None, "fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8",
                           "modelopt_mixed", "w4afp8", "compressed-tensors", "mxfp4",
                           "bitnet"])
ALGOS = st.sampled_from(["NVFP4", "FP4", "FP8", "MXFP8", "MIXED_PRECISION", "INT4_AWQ",
                         "W4A16_NVFP4"])
RUNNERS = st.sampled_from(["auto", "triton", "deep_gemm", "cutlass", "flashinfer_cutlass",
                           "flashinfer_cutedsl", "flashinfer_trtllm",
                           "flashinfer_trtllm_routed"])
BACKENDS = st.sampled_from(["none", "deepep", "mooncake", "nixl", "flashinfer_megamoe"])


def _clash(flag: str | None, method: str | None) -> str | None:
    try:
        return sq.check_clash(flag, method)
    except ConfigError:
        return "refused"


@settings(max_examples=80, deadline=None)
@given(FLAGS, METHODS)
def test_the_modelconfig_quantization_is_the_flag_or_the_checkpoints(
        flag: str | None, method: str | None) -> None:
    """What `_verify_quantization` keeps is the flag or the checkpoint's method, a method
    SGLang knows; no checkpoint method: the flag as given; no flag: the method; the same
    on both sides never refuses (model_config.py:2076-2155)."""
    quant = _clash(flag, method)
    if method is None:
        assert quant == flag
    elif quant != "refused":
        assert quant in (flag, method) and quant in sq.KNOWN_METHODS
    if flag is None and method is not None:
        assert quant == (method if method in sq.KNOWN_METHODS else "refused")
    if flag == method and flag is not None:
        assert quant == flag


@settings(max_examples=60, deadline=None)
@given(FLAGS, METHODS)
def test_a_clash_is_exactly_an_incompatible_flag(flag: str | None, method: str | None) -> None:
    """Refused for a known method only when the flag differs from it after the ModelOpt
    override, is not listed as compatible and is no online requantization (:2106-2148)."""
    if method is None or method not in sq.KNOWN_METHODS or flag is None:
        return
    overridden = (method in ("modelopt_fp4", "modelopt_fp8") and flag not in (
        "nvfp4_online", "quark_mxfp4")) or (method == "modelopt_mixed"
                                            and flag != "quark_mxfp4")
    compatible = (overridden or flag == method or method in sq.COMPATIBLE.get(flag, ())
                  or flag in sq.REQUANTIZATION)
    assert (_clash(flag, method) == "refused") is (not compatible)


@settings(max_examples=60, deadline=None)
@given(ALGOS, st.sampled_from([None, "modelopt"]), st.booleans())
def test_a_modelopt_checkpoint_is_named_by_its_algo(algo: str, method: str | None,
                                                    nested: bool) -> None:
    """A ModelOpt config (no quant_method, or modelopt; flat or nested under
    "quantization") is named by its quant_algo (model_config.py:1838-1897)."""
    body: dict[str, object] = {"quant_algo": algo}
    config: dict[str, object] = {"quantization": body} if nested else dict(body)
    if method is not None:
        config["quant_method"] = method
    parsed = sq.checkpoint_method(config)
    expected = {"NVFP4": "modelopt_fp4", "FP4": "modelopt_fp4", "W4A16_NVFP4": "modelopt_fp4",
                "FP8": "modelopt_fp8", "MXFP8": "mxfp8", "MIXED_PRECISION": "w4afp8"}
    assert parsed == expected.get(algo, method)
    # an NVFP4 expert layer makes a mixed checkpoint modelopt_mixed
    layers = {"model.layers.0.mlp.experts": {"quant_algo": "nvfp4"}}
    body["quantized_layers"] = config["quantized_layers"] = layers
    if nested:
        del config["quantized_layers"]
    if algo == "MIXED_PRECISION":
        assert sq.checkpoint_method(config) == "modelopt_mixed"


@settings(max_examples=60, deadline=None)
@given(FLAGS, METHODS, st.sampled_from([True, False, None]),
       st.sampled_from([*sorted(sq.DERIVING_ARCHS | sq.KEEPING_ARCHS), "DeepseekV3ForCausalLM"]))
def test_the_sm100_copy(flag: str | None, method: str | None, sm100: bool | None,
                        arch: str) -> None:
    """A given flag always wins; without one, only an SM100 GPU and a class whose override
    copies the method turn it into the flag (qwen3_moe.py:38-50, glm4_moe.py:19-33, the
    DeepSeek family: overrides.py:763-797); a flag SGLang takes from the weights or the
    GPU graphfit does not know is unknown there, never guessed."""
    try:
        config = EngineConfig(engine="sglang", architecture=arch, options={
            "quant_method": flag, "checkpoint_quant_method": method, "sm100": sm100,
            "moe_a2a_backend": "deepep", "tp_size": 2})
    except ConfigError as exc:  # the clash, or nvfp4_online off SM100
        assert str(exc).startswith("--quantization: ")
        return
    if not sq.flag_known(config):
        assert flag is None
        if method is None:  # DeepSeek V3 reads its headers (overrides.py:791-807): unread
            assert arch == "DeepseekV3ForCausalLM" and sm100 is not False
            return
        assert sm100 is None or (sm100 and arch not in sq.DERIVING_ARCHS | sq.KEEPING_ARCHS)
        assert arch not in sq.KEEPING_ARCHS
        return
    resolved = sq.resolved_flag(config)
    if flag is not None:
        assert resolved == flag
    elif sm100 and arch in sq.DERIVING_ARCHS:
        assert resolved == method
    else:
        assert resolved is None


@settings(max_examples=60, deadline=None)
@given(RUNNERS, FLAGS, st.sampled_from([True, False, None]), BACKENDS)
def test_the_runner_rule(runner: str, quant: str | None, sm100: bool | None,
                         backend: str) -> None:
    """nvfp4_online off SM100 always refuses; a runner that is no FlashInfer one takes any
    other flag; a FlashInfer runner takes its listed flags (moe_hook.py:80-147)."""
    try:
        sq.check_runner(runner, quant, sm100, backend=backend)
        refused = False
    except ConfigError as exc:
        assert str(exc).startswith("--quantization: ")
        refused = True
    if quant == "nvfp4_online" and not sm100:
        assert refused
    elif runner in ("auto", "triton", "deep_gemm", "cutlass") and quant != "nvfp4_online":
        assert not refused
    elif runner in sq.RUNNER_QUANT and quant not in sq.RUNNER_QUANT[runner] and (
            quant != "mxfp8"):
        assert refused


@settings(max_examples=30, deadline=None)
@given(BACKENDS)
def test_a_clash_refuses_every_backend(backend: str) -> None:
    """The clash is the ModelConfig's, before any backend's rule (model_config.py:2142-2148)."""
    with pytest.raises(ConfigError, match="clashes with the checkpoint"):
        EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM", options={
            "moe_a2a_backend": backend, "quant_method": "nvfp4_online", "sm100": True,
            "checkpoint_quant_method": "modelopt_fp4", "tp_size": 2, "attn_dp_size": 2})


def test_a_pasted_line_reads_the_checkpoint_and_refuses_a_clash(tmp_path: Path) -> None:
    """The checkpoint's parsed method reaches the config; the CLI refuses a clash with one
    error line and exit 2."""
    import subprocess
    import sys

    from graphfit.cli.options import build_config

    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048,
        "num_experts_per_tok": 8, "quantization_config": {
            "quant_method": "modelopt", "quant_algo": "NVFP4"}}))
    line = ["sglang", "serve", "--model-path", str(tmp_path)]
    config = build_config({"gpu_memory_gb": "B200"}, environ={}, pasted=line)
    assert config.checkpoint_quant_method == "modelopt_fp4"
    run = subprocess.run([sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", "B200",
                          "--", *line, "--quantization", "nvfp4_online"],
                         capture_output=True, text=True)
    assert run.returncode == 2
    errors = [ln for ln in (run.stdout + run.stderr).splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "clashes with the checkpoint" in errors[0], run.stderr
    assert len(errors[0]) <= 200


@settings(max_examples=30, deadline=None)
@given(METHODS, st.sampled_from([True, False, None]),
       st.sampled_from(sorted(sq.DERIVING_ARCHS)))
def test_unquant_is_no_flag_and_no_copy(method: str | None, sm100: bool | None,
                                        arch: str) -> None:
    """`--quantization unquant` resolves to none before the ModelConfig, and opts out of the
    SM100 copy (serving_hook.py:692-703): it never clashes, and the flag stays unset."""
    try:
        config = EngineConfig(engine="sglang", architecture=arch, options={
            "quant_method": sq.UNQUANT, "checkpoint_quant_method": method, "sm100": sm100,
            "tp_size": 2})
    except ConfigError as exc:  # only a checkpoint method SGLang does not know
        assert method not in sq.KNOWN_METHODS and "not one SGLang knows" in str(exc)
        return
    assert sq.flag_known(config) and sq.resolved_flag(config) is None


def test_a_flag_sglang_does_not_know_on_cuda_is_refused() -> None:
    """gptq and the MLX presets are choices but no CUDA method (model_config.py:2150-2155)."""
    for flag in ("gptq", "mlx_q4", "mlx_q8"):
        with pytest.raises(ConfigError, match="SGLang knows on CUDA"):
            sq.check_clash(flag, None)


AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}


@settings(max_examples=60, deadline=None)
@given(flag=st.sampled_from([None, "awq", "awq_marlin", "moe_wna16", "gptq_marlin"]),
       capability=st.sampled_from([70, 75, 80, 90, 100, 120]))
def test_an_unknown_gpu_asks_for_it_only_where_the_answer_changes(flag: str | None,
                                                                  capability: int) -> None:
    """Without a capability graphfit answers as every GPU would, or names the GPU."""
    def answer(cap: int | None) -> str | None:
        try:
            return sq.check_clash(flag, "awq", AWQ, cap)
        except ConfigError as exc:
            return "name" if "name the GPU" in str(exc) else "refused"

    every = {answer(cap) == "refused" for cap in (70, 75, 80, 90, 100, 120)}
    unknown = answer(None)
    assert (unknown == "name") == (every == {True, False})
    if unknown not in ("name", "refused"):
        assert answer(capability) != "refused"


def test_a_config_file_method_alone_refuses_what_hangs_on_the_rest_of_the_config() -> None:
    """An awq / gptq method without its config, or a generic modelopt flag without the
    quant_algo, is refused with one line naming the keys to add; a flag that does not read
    them is answered (tests/oracle/test_sglang_quant_overrides_oracle.py checks the keys
    against SGLang)."""
    for flag, method, key in ((None, "gptq", "desc_act"), ("awq_marlin", "awq", "zero_point"),
                              ("moe_wna16", "gptq", "bits"), ("modelopt", "fp8", "quant_algo"),
                              ("modelopt", "modelopt_fp4", "quant_algo")):
        with pytest.raises(ConfigError, match="give checkpoint_quant_config") as exc:
            sq.check_clash(flag, method, None, 90)
        assert key in str(exc.value) and len(str(exc.value)) <= 200
    assert sq.check_clash("awq", "awq", None, 90) == "awq"
    assert sq.check_clash(None, "awq", None, 90) == "awq"  # or awq_marlin: it starts


def test_an_upper_case_method_is_copied_as_written_and_verified_lower_cased() -> None:
    """get_quantization_config hands the SM100 copy "FP8" (utils/common.py:3849-3854);
    _verify_quantization lower-cases it (model_config.py:2076-2078)."""
    assert sq.checkpoint_method({"quant_method": "FP8"}) == "FP8"
    assert sq.check_clash(None, "FP8", {"quant_method": "FP8"}, 90) == "fp8"
    config = EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM", options={
        "checkpoint_quant_method": "FP8", "sm100": True, "gpu_capability": 100,
        "checkpoint_quant_config": {"quant_method": "FP8"}, "tp_size": 2})
    assert sq.resolved_flag(config) == "FP8"
    with pytest.raises(ConfigError, match="MoE runner takes"):
        sq.check_runner("flashinfer_trtllm", "FP8", True)  # moe_hook.py:123-135 asserts
