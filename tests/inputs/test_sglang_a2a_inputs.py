"""How SGLang's all-to-all flags are read (graphfit.inputs.sglang_a2a): DeepEP's normal mode
is noted (and turns both graph phases off in the model, after the memory default), a dense
model's backend sets `dense_model` (its runners see none, issue 23 s68m), bad values say why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphfit
from graphfit import EngineConfig
from graphfit.inputs import sglang_a2a
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError


def _model(tmp_path: Path, **extra: object) -> str:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["X"], **extra}))
    return str(tmp_path)


@settings(max_examples=30)
@given(st.sampled_from(("none", "deepep", "mooncake", "nixl", "DeepEP")),
       st.sampled_from((None, "auto", "normal", "low_latency")))
def test_deepep_normal_turns_both_phases_off_and_nothing_else(backend: str,
                                                              mode: str | None) -> None:
    settings_, notes = sglang_a2a.graphs_off({"moe_a2a_backend": backend, "deepep_mode": mode})
    off = backend.lower() == "deepep" and mode == "normal"
    assert not settings_ and off == any("captures no CUDA graphs" in n for n in notes)
    # no local config.json: a live backend says what graphfit assumes
    assert (backend != "none") == any("assumes a MoE model" in n for n in notes)
    # the model turns both phases off (moe_hook.py:383-398) and nothing else
    options = {"moe_a2a_backend": backend, "deepep_mode": mode or "auto", "tp_size": 2,
               "gpu_memory_gb": 80}
    config = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 16, "options": options})).config
    base = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 16,
        "options": {**options, "deepep_mode": "auto"}})).config
    if off:  # the memory default is the one with graphs on (the memory hook runs first)
        assert config.cudagraph_mode is CUDAGraphMode.NONE
        assert config.cuda_graph_backend_prefill == "disabled"
        assert config.mem_fraction_static == base.mem_fraction_static
        assert config.replace(cudagraph_mode=base.cudagraph_mode, deepep_mode="auto",
                              cuda_graph_backend_prefill=None) == base
    else:
        assert config.replace(deepep_mode="auto") == base


def test_a_dense_model_marks_a_live_backend(tmp_path: Path) -> None:
    (tmp_path / "dense").mkdir()
    (tmp_path / "moe").mkdir()
    dense = _model(tmp_path / "dense")
    moe = _model(tmp_path / "moe", num_experts_per_tok=8)
    found, notes = sglang_a2a.graphs_off({"moe_a2a_backend": "deepep", "model_path": dense})
    assert [(s.field, s.value) for s in found] == [("dense_model", True)]
    assert "--moe-a2a-backend deepep" in found[0].origin and any(
        "see no all-to-all backend" in n for n in notes)
    assert sglang_a2a.graphs_off({"moe_a2a_backend": "deepep", "model_path": moe}) == ([], [])
    found, _ = sglang_a2a.graphs_off({"speculative_moe_a2a_backend": "nixl",
                                      "model_path": dense})
    assert found[0].origin.startswith("--speculative-moe-a2a-backend nixl")
    # the runner alias is megamoe's backend (mega_moe_hook.py:259-276)
    found, _ = sglang_a2a.graphs_off({"moe_runner_backend": "megamoe", "model_path": dense})
    assert found[0].origin.startswith("--moe-a2a-backend megamoe")
    # ascend_tp resolves to none; an unknown hub id is not read
    assert sglang_a2a.graphs_off({"moe_a2a_backend": "ascend_tp", "model_path": dense}) == (
        [], [])
    assert not sglang_a2a.dense_model("org/not-local-model")


@pytest.mark.parametrize("attn_dp", [1, 2])
def test_a_dense_models_runners_see_no_backend(attn_dp: int) -> None:
    """The runners' view (sglang_moe_a2a.runtime_backend / for_drafts) is none on a dense
    model, so nothing gathers by the backend (utils/common.py:4133-4156) while the resolved
    argument stays for the start-up rules."""
    from graphfit.planner.engines import sglang_moe_a2a

    options = {"moe_a2a_backend": "deepep", "tp_size": 4, "attn_dp_size": attn_dp,
               "gpu_memory_gb": 80, "speculative_moe_a2a_backend": "mooncake"}
    moe = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 16,
                                  "options": options})
    dense = moe.replace(dense_model=True)
    assert dense.moe_a2a_backend == "deepep"
    assert sglang_moe_a2a.runtime_backend(moe) == "deepep"
    assert sglang_moe_a2a.runtime_backend(dense) == "none"
    assert sglang_moe_a2a.for_drafts(moe).moe_a2a_backend == "mooncake"
    assert sglang_moe_a2a.attn_tp_gather(sglang_moe_a2a.for_drafts(moe))
    assert not sglang_moe_a2a.attn_tp_gather(sglang_moe_a2a.for_drafts(dense))
    assert sglang_moe_a2a.attn_tp_gather(moe) and not sglang_moe_a2a.attn_tp_gather(dense)


def test_bad_values_say_why() -> None:
    with pytest.raises(ConfigError, match="is not one of"):
        sglang_a2a.backend("--moe-a2a-backend", "nccl")
    # flashinfer_megamoe is modelled too (graphfit.planner.engines.sglang_flashinfer_megamoe)
    assert sglang_a2a.backend("--moe-a2a-backend", "FlashInfer_MegaMoE") == "flashinfer_megamoe"
    # megamoe is modelled; its runner alias is applied by SglangOptions
    assert sglang_a2a.backend("--moe-a2a-backend", "MegaMoE") == "megamoe"
    assert sglang_a2a.runner("--moe-runner-backend", "megamoe") == "megamoe"
    assert sglang_a2a.runner("--moe-runner-backend", "Triton") == "triton"
    with pytest.raises(ConfigError, match="is not one of"):
        sglang_a2a.deepep_mode("--deepep-mode", "fast")
    assert sglang_a2a.deepep_mode("deepep_mode", "Normal") == "normal"
    assert sglang_a2a.backend("--moe-a2a-backend", "DeepEP") == "deepep"


def test_the_budgets_come_from_the_environment() -> None:
    """SGLang's EnvInt: int(value); an unparsable value keeps the default (environ.py:67-86,
    153-158); each budget sets its own option."""
    from graphfit.inputs.environment import SGLANG_BUDGETS, SIGNED_BUDGETS, sglang_environment

    # any sign, as SGLang's EnvInt reads it (s60k: NixlEP / Mooncake; s63k: the other five)
    assert set(SGLANG_BUDGETS.values()) == SIGNED_BUDGETS
    for name, field in SGLANG_BUDGETS.items():
        found = sglang_environment({name: " 2048 "})
        assert [(s.field, s.value) for s in found] == [(field, 2048)]
        assert sglang_environment({name: "lots"}) == []
        for value in (-1, 0, -4096):
            assert [(s.field, s.value) for s in sglang_environment({name: str(value)})] == [
                (field, value)]


def test_a_gpu_name_tells_sm90_and_sm100() -> None:
    from graphfit.inputs.gpus import GPU_CAPABILITY_MAJOR, GPU_MEMORY_GB, gpu_sm90, gpu_sm100

    for name in GPU_MEMORY_GB:
        major = GPU_CAPABILITY_MAJOR.get(name)
        assert gpu_sm90(name) == (major == 9) and gpu_sm100(name) == (major == 10)
    assert gpu_sm100("b200") and gpu_sm100(80) is None and gpu_sm100("80") is None


def test_the_checkpoint_quant_algo_is_read(tmp_path: Path) -> None:
    from graphfit.inputs import model_config

    (tmp_path / "config.json").write_text(json.dumps({"quantization_config": {
        "quant_method": "modelopt", "quant_algo": "NVFP4"}}))
    assert [(s.field, s.value) for s in model_config.quant_settings(str(tmp_path))] == [
        ("quant_algo", "NVFP4"), ("checkpoint_quant_method", "modelopt_fp4"),
        ("checkpoint_quant_config", '{"quant_algo": "NVFP4", "quant_method": "modelopt_fp4"}')]
    (tmp_path / "config.json").write_text(json.dumps({"quantization_config": 3}))
    with pytest.raises(ConfigError, match="quantization_config"):
        model_config.quant_settings(str(tmp_path))
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 8}))
    assert model_config.quant_settings(str(tmp_path)) == []
    assert model_config.quant_settings("org/hub-model") == []


def test_a_pasted_megamoe_line_reads_gpu_env_and_quantization(tmp_path: Path) -> None:
    """The runner alias, the GPU's generation, the environment budget, --quantization and the
    checkpoint's quant_algo all reach the config."""
    from graphfit.cli.options import build_config

    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["Glm4MoeForCausalLM"], "hidden_size": 2048, "num_experts_per_tok": 8,
        "quantization_config": {"quant_algo": "FP8"}}))
    line = ["SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK=9000", "sglang", "serve",
            "--model-path", str(tmp_path), "--moe-runner-backend", "megamoe", "--quantization",
            "fp8", "--max-running-requests", "16"]
    config = build_config({"gpu_memory_gb": "B200"}, environ={}, pasted=line)
    assert (config.moe_a2a_backend, config.moe_runner_backend) == ("megamoe", "auto")
    assert (config.sm90, config.sm100) == (False, True)
    assert config.megamoe_tokens_per_rank == 9000
    assert (config.quant_method, config.quant_algo) == ("fp8", "FP8")
