"""How SGLang's all-to-all flags are read (graphfit.inputs.sglang_a2a): DeepEP's normal mode
is noted (and turns both graph phases off in the model, after the memory default), a dense
model's backend is refused, bad values say why."""

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


def test_a_dense_model_refuses_a_live_backend(tmp_path: Path) -> None:
    (tmp_path / "dense").mkdir()
    (tmp_path / "moe").mkdir()
    dense = _model(tmp_path / "dense")
    moe = _model(tmp_path / "moe", num_experts_per_tok=8)
    with pytest.raises(ConfigError, match="names no experts"):
        sglang_a2a.graphs_off({"moe_a2a_backend": "deepep", "model_path": dense})
    assert sglang_a2a.graphs_off({"moe_a2a_backend": "deepep", "model_path": moe}) == ([], [])
    with pytest.raises(ConfigError, match="--speculative-moe-a2a-backend nixl"):
        sglang_a2a.graphs_off({"speculative_moe_a2a_backend": "nixl", "model_path": dense})
    # ascend_tp resolves to none; an unknown hub id is not read
    assert sglang_a2a.graphs_off({"moe_a2a_backend": "ascend_tp", "model_path": dense}) == (
        [], [])
    assert not sglang_a2a.dense_model("org/not-local-model")


def test_bad_values_say_why() -> None:
    with pytest.raises(ConfigError, match="is not one of"):
        sglang_a2a.backend("--moe-a2a-backend", "nccl")
    with pytest.raises(ConfigError, match="not modelled"):
        sglang_a2a.backend("--moe-a2a-backend", "flashinfer_megamoe")
    # megamoe is modelled; its runner alias is applied by SglangOptions
    assert sglang_a2a.backend("--moe-a2a-backend", "MegaMoE") == "megamoe"
    assert sglang_a2a.runner("--moe-runner-backend", "megamoe") == "megamoe"
    assert sglang_a2a.runner("--moe-runner-backend", "Triton") == "triton"
    with pytest.raises(ConfigError, match="is not one of"):
        sglang_a2a.deepep_mode("--deepep-mode", "fast")
    assert sglang_a2a.deepep_mode("deepep_mode", "Normal") == "normal"
    assert sglang_a2a.backend("--moe-a2a-backend", "DeepEP") == "deepep"
