"""`EngineConfig.from_vllm` / `from_sglang` on the engines' REAL config objects.

vLLM 0.33's `VllmConfig` comes from `vllm_args_oracle.build_vllm_config` (its own
`create_engine_config` on CPU); SGLang 0.5.23's `ServerArgs` from `sglang_args_oracle.
parse_sglang` (its own `prepare_server_args`; raw: SGLang resolves GPU-dependent defaults
later, see branch oracle-sglang's sglang_stubs for that). graphfit must read the values the
objects hold, and plan the ladder the engine resolved.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, Runner, SpecMethod, plan

VLLM_LINES = [
    ("vllm serve m --max-num-seqs 33 -sc.method=ngram -sc.num_speculative_tokens=3 "
     "-sc.prompt_lookup_max=4", {}),
    ("vllm serve m --max-num-seqs 16 --enforce-eager", {}),
    ("vllm serve m --max-num-seqs 16 --dtype half -O1 --max-model-len 4096", {}),
    ("vllm serve m --max-num-seqs 24 -cc.cudagraph_mode FULL_DECODE_ONLY "
     "--max-cudagraph-capture-size 64 --max-num-batched-tokens 2048", {}),
    ("vllm serve m --max-num-seqs 8 --cudagraph-capture-sizes 1 2 4 8 16", {}),
    ("vllm serve m --max-num-seqs 8 --performance-mode interactivity", {}),
    ("vllm serve m --max-num-seqs 8 -sc '{\"method\": \"eagle3\", \"model\": \"d\", "
     "\"num_speculative_tokens\": 2}'", {"draft": 2048}),
]


@pytest.mark.parametrize(("line", "extra"), VLLM_LINES, ids=[x for x, _ in VLLM_LINES])
def test_from_vllm_reads_the_real_vllm_config(va: Any, line: str, extra: dict[str, Any]
                                               ) -> None:
    draft = None
    if "draft" in extra:
        draft = {**va.LLAMA_3_8B, "hidden_size": extra["draft"], "num_hidden_layers": 1,
                 "architectures": ["LlamaForCausalLMEagle3"]}
    built = va.build_vllm_config(line, runner="v1", draft_hf_config=draft)
    assert built.ok, built.error
    f = built.fields
    config = EngineConfig.from_vllm(built.config)
    assert config.max_num_seqs == f["max_num_seqs"]
    assert config.max_num_batched_tokens == f["max_num_batched_tokens"]
    assert config.max_model_len == f["max_model_len"]
    assert config.dtype == f["dtype"]
    assert config.hidden_size == va.LLAMA_3_8B["hidden_size"]
    assert config.runner is (Runner.V2 if f["use_v2_model_runner"] else Runner.V1)
    assert config.performance_mode.value == f["performance_mode"]
    if f["enforce_eager"]:
        assert config.cudagraph_mode is CUDAGraphMode.NONE
    else:
        assert config.cudagraph_mode.value == f["cudagraph_mode"]
        assert list(plan(config).config_capture_sizes) == f["cudagraph_capture_sizes"]
        assert plan(config).config_ladder.max_size == f["max_cudagraph_capture_size"]
    if f["speculative_method"] is None:
        assert config.spec_method is SpecMethod.NONE
    else:
        assert config.spec_method.value == f["speculative_method"]
        assert config.num_speculative_tokens == f["num_speculative_tokens"]
    if "draft" in extra:
        assert config.draft_hidden_size == extra["draft"]
        assert plan(config).buffer("drafter.hidden_states").shape[-1] == extra["draft"]


def test_from_vllm_model_runner_v2_and_overrides(va: Any, monkeypatch: Any) -> None:
    built = va.build_vllm_config("vllm serve m --max-num-seqs 16", runner="v2")
    assert built.ok, built.error
    # VllmConfig.use_v2_model_runner is a property of the process's environment
    # (config/vllm.py:731-766): read it as the engine's process would at start-up
    monkeypatch.setenv("VLLM_USE_V2_MODEL_RUNNER", "1")
    config = EngineConfig.from_vllm(built.config, ceiling_family="blackwell")
    assert built.fields["use_v2_model_runner"] and config.runner is Runner.V2
    assert config.ceiling_family.value == "blackwell"
    with pytest.raises(ConfigError, match="unknown field"):
        EngineConfig.from_vllm(built.config, not_a_field=1)


SGLANG_LINES = [
    "python -m sglang.launch_server --model-path m --max-running-requests 48 "
    "--cuda-graph-max-bs-decode 32 --speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
    "sglang serve m --max-running-requests 64 --cuda-graph-bs-decode 1 2 4 8 16",
    "sglang serve m --max-running-requests 64 --disable-cuda-graph",
    "sglang serve m --max-running-requests 64 --disable-cuda-graph-padding "
    "--cuda-graph-max-bs-decode 16 --context-length 4096",
    "sglang serve --model-path m --max-running-requests 32 --cuda-graph-config "
    "'{\"decode\": {\"backend\": \"full\", \"max_bs\": 24}}'",
]


@pytest.mark.parametrize("line", SGLANG_LINES, ids=SGLANG_LINES)
def test_from_sglang_reads_the_real_server_args(sa: Any, line: str) -> None:
    parsed = sa.parse_sglang(line)
    assert parsed.ok, parsed.error
    f = parsed.fields
    config = EngineConfig.from_sglang(parsed.server_args)
    assert config.max_num_seqs == f["max_running_requests"]
    decode = (f["cuda_graph_config"] or {}).get("decode") or {}
    max_bs = decode.get("max_bs") or f["cuda_graph_max_bs_decode"]
    sizes = f["cuda_graph_bs_decode"]
    if f["disable_cuda_graph"]:
        assert config.cudagraph_mode is CUDAGraphMode.NONE
    elif sizes:
        assert config.cudagraph_capture_sizes == tuple(sorted(set(sizes)))
    elif max_bs is not None:
        assert plan(config).max_capture_size == min(max_bs, config.max_num_seqs)
    assert config.cuda_graph_padding is not f["disable_cuda_graph_padding"]
    if f["context_length"] is not None:
        assert config.max_model_len == f["context_length"]
    if f["speculative_algorithm"] is not None:
        assert config.num_speculative_tokens == f["speculative_num_steps"]
        assert config.speculative_num_draft_tokens == f["speculative_num_draft_tokens"]


def test_from_sglang_needs_max_running_requests(sa: Any) -> None:
    parsed = sa.parse_sglang("sglang serve m --cuda-graph-max-bs-decode 8")
    assert parsed.ok, parsed.error
    with pytest.raises(ConfigError, match="max_num_seqs"):
        EngineConfig.from_sglang(parsed.server_args)
    assert EngineConfig.from_sglang(parsed.server_args, max_num_seqs=16).max_num_seqs == 16
