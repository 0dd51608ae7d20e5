"""Engine inputs: vLLM's JSON configs, -O, the environment, config files, SGLang/TRT-LLM flags.

The invariant under test: every way of spelling a setting (a flag, a JSON config key, a file
key with dashes or underscores) gives the same EngineConfig, and any bad spelling is one
ConfigError naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, Engine, EngineConfig, Runner, SpecMethod
from graphfit.cli.options import build_config, resolve_values
from graphfit.inputs import vllm as vllm_args
from graphfit.inputs.config_file import file_settings
from graphfit.inputs.settings import FILE, Setting, merge

NO_ENV: dict[str, str] = {}


def config(environ: dict[str, str] | None = None, **flags: Any) -> EngineConfig:
    return build_config(flags, NO_ENV if environ is None else environ)


def test_speculative_config_sets_method_and_k() -> None:
    c = config(max_num_seqs=33, speculative_config=json.dumps(
        {"method": "dflash", "model": "z-lab/dflash", "num_speculative_tokens": 3}))
    assert (c.spec_method, c.num_speculative_tokens) == (SpecMethod.DFLASH, 3)
    assert c == config(max_num_seqs=33, spec_method="dflash", num_speculative_tokens=3)


@pytest.mark.parametrize(("method", "expected"), [
    ("deepseek_mtp", SpecMethod.MTP), ("qwen3_next_mtp", SpecMethod.MTP),
    ("suffix", SpecMethod.SUFFIX), ("EAGLE3", SpecMethod.EAGLE3),
    ("ngram_gpu", SpecMethod.NGRAM_GPU), ("dspark", SpecMethod.DSPARK),
    ("glm5_next_mtp", SpecMethod.MTP)])
def test_vllm_method_spellings(method: str, expected: SpecMethod) -> None:
    spec = json.dumps({"method": method, "num_speculative_tokens": 2})
    runner = {"dspark": "v2"}.get(method, "v1")  # V1: vLLM 0.33
    assert config(max_num_seqs=4, speculative_config=spec, runner=runner,
                  engine_version="0.33.0").spec_method is expected


def test_dynamic_speculation_is_rejected_naming_what_is_not_modelled() -> None:
    spec = json.dumps({"method": "eagle", "num_speculative_tokens": 3,
                       "num_speculative_tokens_per_batch_size": {"1": 3, "64": 1}})
    with pytest.raises(ConfigError, match="dynamic speculative decoding"):
        config(max_num_seqs=4, speculative_config=spec)
    with pytest.raises(ConfigError, match="custom_class"):
        config(max_num_seqs=4, speculative_config=json.dumps(
            {"method": "custom_class", "num_speculative_tokens": 3}))
    with pytest.raises(ConfigError, match="P-EAGLE"):
        config(max_num_seqs=4, speculative_config=json.dumps(
            {"method": "eagle3", "num_speculative_tokens": 3, "parallel_drafting": True}))
    with pytest.raises(ConfigError, match="drafter-only eager"):
        config(max_num_seqs=4, speculative_config=json.dumps(
            {"method": "eagle", "num_speculative_tokens": 3, "enforce_eager": True}))
    dflash = config(max_num_seqs=4, speculative_config=json.dumps(
        {"method": "dflash", "num_speculative_tokens": 3, "parallel_drafting": True}))
    assert dflash.spec_method is SpecMethod.DFLASH  # DFlash always drafts in parallel


def test_attention_inputs() -> None:
    c = config(max_num_seqs=4, attention_backend="flashinfer",
               attention_cudagraph_support="uniform_batch")
    assert c.attention_backend == "FLASHINFER" and c.attention_cudagraph_support.value == \
        "UNIFORM_BATCH"
    assert config(max_num_seqs=4, attention_backend="auto").attention_backend is None
    spec = json.dumps({"method": "dflash", "num_speculative_tokens": 3,
                       "attention_backend": "TRITON_ATTN"})
    c = config(max_num_seqs=4, speculative_config=spec, runner="v2")
    assert c.drafter_attention_cudagraph_support is not None
    assert c.drafter_attention_cudagraph_support.value == "ALWAYS"


def test_config_file_attention_keys(tmp_path: Path) -> None:
    path = tmp_path / "serve.yaml"
    path.write_text("max-num-seqs: 8\nattention-backend: FLASH_ATTN\n"
                    "dspark-sample-from-anchor: false\n")
    settings, _ = file_settings(path)
    fields = {s.field: s.value for s in settings}
    assert fields["attention_backend"] == "FLASH_ATTN"
    assert fields["dspark_sample_from_anchor"] is False


def test_method_inferred_from_model_is_reported() -> None:
    resolved = resolve_values({"max_num_seqs": 4, "speculative_config": json.dumps(
        {"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 2})},
        NO_ENV)
    assert resolved.config().spec_method is SpecMethod.EAGLE3
    assert any("inferred" in note for note in resolved.notes)


@pytest.mark.parametrize(("spec", "needle"), [
    ('{"method": "eagle", "num_speculative_token": 2}', "did you mean num_speculative_tokens"),
    ('{"method": "eagle", "bogus": 1, "num_speculative_tokens": 2}', "unknown key 'bogus'"),
    ('{"method": "eagle"}', "num_speculative_tokens missing"),
    ('{"method": "medusa", "num_speculative_tokens": 2}', "'medusa' is not modelled"),
    ('{"method": "eagle", "num_speculative_tokens": "two"}', "num_speculative_tokens"),
    ('{"method": "eagle", "num_speculative_tokens": true}', "expected an integer"),
    ('{"method": ', "malformed JSON"),
    ("[1, 2]", "expected a JSON object"),
])
def test_bad_speculative_config_names_the_key(spec: str, needle: str) -> None:
    with pytest.raises(ConfigError, match="--speculative-config") as info:
        config(max_num_seqs=4, speculative_config=spec)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_ignorable_vllm_keys_are_reported_not_dropped() -> None:
    resolved = resolve_values({"max_num_seqs": 4, "speculative_config": json.dumps(
        {"method": "eagle", "num_speculative_tokens": 2, "draft_tensor_parallel_size": 1})},
        NO_ENV)
    assert any("draft_tensor_parallel_size" in note for note in resolved.notes)


def test_compilation_config_is_read_like_vllm() -> None:
    c = config(max_num_seqs=8, compilation_config=json.dumps(
        {"cudagraph_capture_sizes": [8, 4, 4, 2, 1], "cudagraph_mode": "full_decode_only",
         "level": 3}))
    assert c.cudagraph_capture_sizes == (1, 2, 4, 8)  # vLLM dedupes and sorts
    assert c.cudagraph_mode is CUDAGraphMode.FULL_DECODE_ONLY
    off = config(max_num_seqs=8, compilation_config='{"use_cudagraph": false}')
    assert off.cudagraph_mode is CUDAGraphMode.NONE


@pytest.mark.parametrize(("level", "mode"), [
    ("0", CUDAGraphMode.NONE), ("1", CUDAGraphMode.PIECEWISE),
    ("2", CUDAGraphMode.FULL_AND_PIECEWISE), ("3", CUDAGraphMode.FULL_AND_PIECEWISE)])
def test_optimization_level_implies_a_mode(level: str, mode: CUDAGraphMode) -> None:
    assert config(max_num_seqs=8, optimization_level=level).cudagraph_mode is mode


def test_explicit_mode_beats_the_level_default() -> None:
    c = config(max_num_seqs=8, optimization_level="0", cudagraph_mode="FULL")
    assert c.cudagraph_mode is CUDAGraphMode.FULL
    c = config(max_num_seqs=8, optimization_level='{"cudagraph_mode": "PIECEWISE"}')
    assert c.cudagraph_mode is CUDAGraphMode.PIECEWISE
    with pytest.raises(ConfigError, match=r"optimization level must be 0\.\.3"):
        config(max_num_seqs=8, optimization_level="4")


def test_environment_selects_the_v2_runner() -> None:
    assert config({"VLLM_USE_V2_MODEL_RUNNER": "1"}, max_num_seqs=8).runner is Runner.V2
    assert config({"VLLM_USE_V2_MODEL_RUNNER": "0"}, max_num_seqs=8).runner is Runner.V1
    assert config({"VLLM_USE_V2_MODEL_RUNNER": "1"}, max_num_seqs=8, runner="v2").runner \
        is Runner.V2
    with pytest.raises(ConfigError, match="--runner gives 'v1' but VLLM_USE_V2_MODEL_RUNNER=1"):
        config({"VLLM_USE_V2_MODEL_RUNNER": "1"}, max_num_seqs=8, runner="v1")
    with pytest.raises(ConfigError, match="VLLM_USE_V2_MODEL_RUNNER: expected 0 or 1"):
        config({"VLLM_USE_V2_MODEL_RUNNER": "yes"}, max_num_seqs=8)


def test_environment_is_ignored_for_other_engines() -> None:
    resolved = resolve_values({"max_running_requests": 8}, {"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert resolved.config().engine is Engine.SGLANG
    assert any("ignored for engine sglang" in note for note in resolved.notes)


def test_peer_sources_must_agree() -> None:
    spec = '{"method": "dflash", "num_speculative_tokens": 3}'
    assert config(max_num_seqs=8, speculative_config=spec, num_speculative_tokens=3,
                  spec_method="DFLASH").num_speculative_tokens == 3
    with pytest.raises(ConfigError) as info:
        config(max_num_seqs=8, speculative_config=spec, num_speculative_tokens=2)
    assert "--num-speculative-tokens" in str(info.value)
    assert "--speculative-config" in str(info.value)


def test_weak_setting_loses_to_any_strong_one() -> None:
    merged = merge([Setting("cudagraph_mode", "NONE", "-O 0", weak=True),
                    Setting("cudagraph_mode", "FULL", "file: cudagraph_mode", FILE)])
    assert merged.values["cudagraph_mode"] == "FULL"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_config_file_yaml_like_vllm_serve(tmp_path: Path) -> None:
    path = write(tmp_path, "serve.yaml", """\
model: meta-llama/Llama-3.1-8B-Instruct
tensor-parallel-size: 2
max-num-seqs: 33
speculative-config:
  method: dflash
  num_speculative_tokens: 3
compilation-config: '{"max_cudagraph_capture_size": 256}'
enforce-eager: false
frobnicate: 1
""")
    resolved = resolve_values({"config_file": str(path)}, NO_ENV)
    c = resolved.config()
    assert (c.max_num_seqs, c.num_speculative_tokens, c.max_cudagraph_capture_size) == \
        (33, 3, 256)
    notes = " ".join(resolved.notes)
    assert "tensor-parallel-size" in notes and "frobnicate" in notes  # reported, not dropped


def test_flags_override_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "c.json", '{"max_num_seqs": 33, "num_speculative_tokens": 3, '
                                     '"spec_method": "eagle"}')
    c = config(config_file=str(path), max_num_seqs=64, num_speculative_tokens=1)
    assert (c.max_num_seqs, c.num_speculative_tokens, c.spec_method) == (64, 1, SpecMethod.EAGLE)


@pytest.mark.parametrize(("name", "text", "needle"), [
    ("a.yaml", "max-num-seq: 33\n", "unknown key 'max-num-seq' (did you mean max-num-seqs?)"),
    ("b.yaml", "max-num-seqs: [33\n", "malformed YAML"),
    ("c.yaml", "max-num-seqs: abc\n", "c.yaml: max-num-seqs: expected an integer"),
    ("d.yaml", "- 1\n- 2\n", "expected a mapping"),
    ("e.json", '{"max_num_seqs": 8,}', "malformed JSON"),
    ("f.yaml", "max-num-seqs: 8\nspeculative-config: {method: eagle}\n",
     "num_speculative_tokens missing"),
    ("g.yaml", "max-num-seqs: 8\ndisable-cuda-graph-padding: maybe\n", "expected true or false"),
])
def test_bad_config_files_name_the_key(tmp_path: Path, name: str, text: str,
                                       needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        config(config_file=str(write(tmp_path, name, text)))
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_invalid_value_from_a_file_names_its_origin(tmp_path: Path) -> None:
    path = write(tmp_path, "h.yaml", "max_num_seqs: 8\nladder: nope\n")
    with pytest.raises(ConfigError, match=r"^ladder: .*\(from h.yaml: ladder\)$"):
        config(config_file=str(path))


def test_sglang_and_trtllm_files(tmp_path: Path) -> None:
    sg = write(tmp_path, "sg.yaml", "max-running-requests: 48\ncuda-graph-max-bs-decode: 32\n"
               "speculative-algorithm: EAGLE\nspeculative-num-steps: 3\n"
               "speculative-eagle-topk: 4\nspeculative-num-draft-tokens: 8\n"
               "mem-fraction-static: 0.8\n")
    c = config(config_file=str(sg))
    assert (c.engine, c.max_num_seqs, c.max_cudagraph_capture_size) == (Engine.SGLANG, 48, 32)
    assert (c.speculative_eagle_topk, c.uniform_query_len) == (4, 8)
    trt = write(tmp_path, "trt.yaml", "max_batch_size: 64\nmax_num_tokens: 512\n"
                "cuda_graph_config: {enable_padding: true, max_batch_size: 32}\n"
                "speculative_config: {decoding_type: MTP, num_nextn_predict_layers: 2}\n")
    c = config(config_file=str(trt))
    assert (c.engine, c.max_num_seqs, c.max_num_batched_tokens) == (Engine.TRTLLM, 64, 512)
    assert (c.cuda_graph_padding, c.spec_method, c.num_speculative_tokens) == \
        (True, SpecMethod.MTP, 2)
    off = write(tmp_path, "off.yaml", "max_batch_size: 8\ncuda_graph_config: null\n")
    assert config(config_file=str(off)).cudagraph_mode is CUDAGraphMode.NONE


def test_engine_is_implied_and_conflicts_are_errors() -> None:
    assert config(max_running_requests=8).engine is Engine.SGLANG
    assert config(max_num_seqs=8, ladder="trtllm").engine is Engine.TRTLLM
    assert config(max_batch_size=8, max_num_tokens=64).engine is Engine.TRTLLM
    with pytest.raises(ConfigError, match="engine: --engine gives 'vllm'"):
        config(max_num_seqs=8, engine="vllm", cuda_graph_max_bs_decode=4)
    with pytest.raises(ConfigError, match="engine:"):
        config(max_num_seqs=8, cuda_graph_max_bs_decode=4, cuda_graph_config="{}")
    assert config(max_num_seqs=8, cuda_graph_config='{"decode": {"max_bs": 4}}').engine \
        is Engine.SGLANG


def test_sglang_flags() -> None:
    c = config(max_running_requests=16, speculative_algorithm="NEXTN", speculative_num_steps=2,
               speculative_eagle_topk=1, cuda_graph_bs_decode="1 2 4 8 32",
               disable_cuda_graph_padding=True)
    assert (c.spec_method, c.num_speculative_tokens, c.cuda_graph_padding) == \
        (SpecMethod.MTP, 2, False)
    assert c.cudagraph_capture_sizes == (1, 2, 4, 8, 32)
    assert config(max_running_requests=4, disable_cuda_graph=True).cudagraph_mode \
        is CUDAGraphMode.NONE
    assert config(max_running_requests=4, disable_decode_cuda_graph=True).cudagraph_mode \
        is CUDAGraphMode.NONE
    par = config(max_running_requests=4, tp_size=4, attn_dp_size=2, attn_cp_size=2,
                 enable_two_batch_overlap=True, gpu_memory_gb="h200")
    assert (par.tp_size, par.attn_dp_size, par.attn_cp_size, par.two_batch_overlap) == \
        (4, 2, 2, True)
    assert par.gpu_memory_gb == 140.4


def test_sglang_precedence_follows_parse_cuda_graph_config() -> None:
    """cuda_graph_hook.py:54-94: JSON > per-phase flags > --disable-decode-cuda-graph >
    the deprecated --disable-cuda-graph (no conflict error: SGLang ranks them)."""
    c = config(max_running_requests=64, cuda_graph_max_bs_decode=32,
               cuda_graph_config='{"decode": {"max_bs": 24}}')
    assert c.max_cudagraph_capture_size == 24
    on = config(max_running_requests=8, disable_cuda_graph=True,
                cuda_graph_backend_decode="breakable")
    assert on.cudagraph_mode is CUDAGraphMode.FULL
    with pytest.raises(ConfigError, match="unknown phase 'verify'"):
        config(max_running_requests=8, cuda_graph_config='{"decode": {}, "verify": {}}')
    with pytest.raises(ConfigError, match="unknown key 'max_batch'"):
        config(max_running_requests=8, cuda_graph_config='{"decode": {"max_batch": 2}}')


def test_sglang_model_path_reads_config_json(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "hidden_size": 2048, "vocab_size": 32000}))
    c = config(model_path=str(tmp_path), speculative_algorithm="EAGLE")
    assert (c.architecture, c.hidden_size, c.vocab_size) == ("LlamaForCausalLM", 2048, 32000)
    assert (c.max_num_seqs, c.speculative_num_draft_tokens) == (48, 8)
    assert config(model_path=str(tmp_path), hidden_size=4096).hidden_size == 4096  # flag wins
    resolved = resolve_values({"model_path": "meta-llama/Llama-3.1-8B"}, NO_ENV)
    assert any("config.json" in n for n in resolved.notes)


def test_sglang_keys_that_change_graphs_are_never_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "max-running-requests: 8\nenable-mis: true\n")
    with pytest.raises(ConfigError, match="not modelled"):
        config(config_file=str(path))
    # read since issue 23 s69c (graphfit.planner.engines.sglang_mlp_gather)
    dense = write(tmp_path, "d.yaml", "max-running-requests: 8\nmoe-dense-tp-size: 1\n")
    assert config(config_file=str(dense)).moe_dense_tp_size == 1
    # an all-to-all backend is read (graphfit.planner.engines.sglang_moe_a2a), every one now
    # (flashinfer_megamoe: graphfit.planner.engines.sglang_flashinfer_megamoe)
    read_a2a = write(tmp_path, "a.yaml", "max-running-requests: 8\nmoe-a2a-backend: deepep\n")
    assert config(config_file=str(read_a2a)).moe_a2a_backend == "deepep"
    # read, then refused by its own start-up rule: no model class to check
    with pytest.raises(ConfigError, match="flashinfer_megamoe: SGLang accepts only some model"):
        config(config_file=str(write(tmp_path, "p.yaml", "max-running-requests: 8\n"
                                     "moe-a2a-backend: flashinfer_megamoe\n")))
    with pytest.raises(ConfigError, match="ambiguous option"):
        config(config_file=str(write(tmp_path, "o.yaml", "cuda-graph-max-bs: 8\n")))
    noted = resolve_values({"config_file": str(write(
        tmp_path, "n.yaml", "max-running-requests: 8\ndp-size: 2\n"))}, NO_ENV)
    assert any("dp-size" in n for n in noted.notes)
    # the prefill chunk sets the prefill graphs' default ladder: read, not noted
    read = config(config_file=str(write(tmp_path, "c.yaml", "max-running-requests: 8\n"
                                        "chunked-prefill-size: 4096\n")))
    assert read.chunked_prefill_size == 4096


def test_trtllm_llm_api_options(tmp_path: Path) -> None:
    c = config(config_file=str(write(tmp_path, "t.yaml", "cuda_graph_config:\n"
                                     "  batch_sizes: []\n")))
    assert (c.engine, c.max_num_seqs, c.cudagraph_capture_sizes) == (Engine.TRTLLM, 2048, None)
    tree = config(config_file=str(write(tmp_path, "e.yaml", """\
max_batch_size: 64
speculative_config:
  decoding_type: Eagle3
  max_draft_len: 3
  speculative_model: draft
  eagle_choices: [[0], [1], [2], [0, 0], [0, 1], [1, 0]]
""")))
    assert (tree.num_speculative_tokens, tree.uniform_query_len) == (2, 7)
    via_flag = config(max_batch_size=64, extra_llm_api_options=str(tmp_path / "e.yaml"))
    assert via_flag == tree
    with pytest.raises(ConfigError, match="removed"):
        config(config_file=str(write(tmp_path, "r.yaml", "cuda_graph_batch_sizes: [1]\n")))
    with pytest.raises(ConfigError, match="not connected"):
        config(config_file=str(write(tmp_path, "c.yaml", """\
speculative_config: {decoding_type: Eagle3, max_draft_len: 2, speculative_model: d,
                     eagle_choices: [[0], [1, 0]]}
""")))


def test_missing_max_num_seqs_says_how_to_pass_it() -> None:
    with pytest.raises(ConfigError, match="max_num_seqs: missing"):
        config(num_speculative_tokens=2, spec_method="eagle")


SPEC_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram")


@given(S=st.integers(1, 512), k=st.integers(1, 15), method=st.sampled_from(SPEC_METHODS),
       mode=st.sampled_from([m.value for m in CUDAGraphMode]),
       top=st.none() | st.integers(16, 512), dashes=st.booleans())
def test_every_spelling_gives_the_same_config(tmp_path_factory: pytest.TempPathFactory,
                                              S: int, k: int, method: str, mode: str,
                                              top: int | None, dashes: bool) -> None:
    flags = config(max_num_seqs=S, spec_method=method, num_speculative_tokens=k,
                   cudagraph_mode=mode, max_cudagraph_capture_size=top)
    compilation: dict[str, Any] = {"cudagraph_mode": mode}
    if top is not None:
        compilation["max_cudagraph_capture_size"] = top
    spec = {"method": method, "num_speculative_tokens": k}
    via_json = config(max_num_seqs=S, speculative_config=json.dumps(spec),
                      compilation_config=json.dumps(compilation))
    key = (lambda name: name.replace("_", "-")) if dashes else (lambda name: name)
    doc = {key("max_num_seqs"): S, key("speculative_config"): spec,
           key("compilation_config"): compilation}
    path = tmp_path_factory.mktemp("spell") / "serve.json"
    path.write_text(json.dumps(doc))
    via_file = config(config_file=str(path))
    assert flags == via_json == via_file


@given(text=st.text(max_size=30))
def test_random_json_configs_fail_cleanly(text: str) -> None:
    for flag in ("speculative_config", "compilation_config", "cuda_graph_config"):
        try:
            config(max_num_seqs=4, **{flag: text})
        except ConfigError as exc:
            assert "\n" not in str(exc)


def test_enforce_eager_and_dtype_aliases(tmp_path: Path) -> None:
    path = write(tmp_path, "e.yaml", "max-num-seqs: 4\nenforce-eager: true\ndtype: half\n")
    c = config(config_file=str(path))
    assert (c.cudagraph_mode, c.dtype) == (CUDAGraphMode.NONE, "float16")
    assert vllm_args.vllm_dtype("--dtype", "auto") is None


def test_pasted_sglang_line_reads_the_deprecated_dp_attention() -> None:
    """parallel_hook.py:39-62: --dp-size N --enable-dp-attention is --attn-dp-size N (only a
    whole line says both; alone the flag is refused with the replacement)."""
    from graphfit.inputs import commandline

    line = commandline.read(["python", "-m", "sglang.launch_server", "--model-path", "m",
                             "--tp", "8", "--dp-size", "4", "--enable-dp-attention",
                             "--max-running-requests", "33"])
    c = merge(line.settings).config()
    assert (c.tp_size, c.attn_dp_size) == (8, 4)
    with pytest.raises(ConfigError, match="pass --attn-dp-size"):
        config(max_running_requests=33, tp_size=8, enable_dp_attention=True)
