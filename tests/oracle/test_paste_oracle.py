"""graphfit's reading of pasted serving lines against the engines' own parsers.

* The flag tables graphfit parses with (graphfit/inputs/flags/*.json) equal a fresh snapshot
  of vLLM 0.33's and SGLang 0.5.23's real parsers (tests/oracle/flag_tables.py).
* On every corpus line (command_lines/*.yaml, recorded from the engines and re-checked by
  test_args_oracle), the syntax facts of test_args_oracle, generated `vllm serve` lines
  (`vllm_command_lines()`) and generated SGLang lines, graphfit accepts exactly what the
  engine's parser accepts, and reads the same values: the raw ones (what the parser put in
  its namespace: S, T, max_model_len, dtype, -O level, -cc's mode / cudagraph_mode / sizes /
  max, the speculative config, enforce_eager, parallelism, ports...) and the EngineConfig
  fields graphfit derives from them (S, T, max_model_len, dtype, method and k, cudagraph
  mode, capture sizes, max size).
* Where graphfit refuses a line the parser accepts, vLLM itself must refuse it when it builds
  its config (`build_vllm_config`: the -O7 level, a capture list given twice).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, SpecMethod
from graphfit.inputs import commandline, flagtable

CORPUS = Path(__file__).resolve().parent / "command_lines"
FILES = sorted(CORPUS.glob("*.yaml"))
COMPILATION_MODES = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2,
                     "VLLM_COMPILE": 3}
GRAPH_MODES = {0: "NONE", 1: "PIECEWISE", 2: "FULL"}
# raw values compared with vLLM's EngineArgs (vllm_args_oracle.relevant_fields)
VLLM_RAW = ("max_num_seqs", "max_num_batched_tokens", "max_model_len", "dtype",
            "kv_cache_dtype", "block_size", "gpu_memory_utilization", "enable_prefix_caching",
            "trust_remote_code", "quantization", "tensor_parallel_size",
            "pipeline_parallel_size", "data_parallel_size", "enable_expert_parallel",
            "enforce_eager", "performance_mode", "cudagraph_capture_sizes",
            "max_cudagraph_capture_size", "async_scheduling", "enable_chunked_prefill",
            "optimization_level", "served_model_name", "port", "host")
SGLANG_RAW = ("model_path", "tp_size", "dp_size", "max_running_requests", "context_length",
              "chunked_prefill_size", "cuda_graph_max_bs_decode", "cuda_graph_bs_decode",
              "cuda_graph_config", "disable_cuda_graph", "disable_decode_cuda_graph",
              "disable_cuda_graph_padding", "speculative_algorithm", "speculative_num_steps",
              "speculative_eagle_topk", "speculative_num_draft_tokens",
              "speculative_draft_model_path", "mem_fraction_static", "dtype",
              "kv_cache_dtype", "page_size", "port", "host", "enable_torch_compile")


# ------------------------------------------------------------------------------------------
# The snapshots


def test_vllm_flag_table_is_the_engines(va: Any) -> None:
    from tests.oracle import flag_tables

    assert flag_tables.VLLM_FILE.read_text() == flag_tables.dump(flag_tables.vllm_snapshot()), (
        "vLLM's parser changed: run `PYTHONPATH=. python -m tests.oracle.flag_tables`")


def test_sglang_flag_table_is_the_engines(sa: Any) -> None:
    from tests.oracle import flag_tables

    assert flag_tables.SGLANG_FILE.read_text() == flag_tables.dump(
        flag_tables.sglang_snapshot()), (
        "SGLang's parser changed: run `PYTHONPATH=. python -m tests.oracle.flag_tables`")


# ------------------------------------------------------------------------------------------
# graphfit's reading in the engines' terms


def _defaults(engine: str, parser: str) -> dict[str, Any]:
    return {a["dest"]: a.get("default") for a in flagtable.load(engine).actions(parser)}


def _cc(value: Any) -> dict[str, Any]:
    """-cc's dict as vLLM's CompilationConfig holds its four graph keys (pydantic coerced)."""
    cc = value if isinstance(value, dict) else {}
    mode = cc.get("mode")
    if isinstance(mode, str):
        mode = COMPILATION_MODES[mode.upper()]
    graph = cc.get("cudagraph_mode")
    if isinstance(graph, int):
        graph = GRAPH_MODES[graph]
    elif isinstance(graph, str):
        graph = graph.upper()
    sizes = cc.get("cudagraph_capture_sizes")
    return {"mode": mode, "cudagraph_mode": graph,
            "cudagraph_capture_sizes": None if sizes is None else [int(s) for s in sizes],
            "max_cudagraph_capture_size": cc.get("max_cudagraph_capture_size")}


def vllm_reading(line: commandline.PastedLine) -> dict[str, Any]:
    """graphfit's raw values, shaped like vllm_args_oracle.relevant_fields."""
    defaults = _defaults("vllm", "serve")
    values = {**defaults, **line.values}
    out = {k: values.get(k) for k in VLLM_RAW}
    out["model"] = line.model
    out["compilation_config"] = _cc(line.values.get("compilation_config"))
    out["speculative_config"] = line.values.get("speculative_config")
    return out


def sglang_reading(line: commandline.PastedLine) -> dict[str, Any]:
    values = {**_defaults("sglang", "server"), **line.values}
    return {k: values.get(k) for k in SGLANG_RAW}


def read(text: str) -> commandline.PastedLine | ConfigError:
    try:
        return commandline.read([text])
    except ConfigError as exc:
        return exc


def _engine_cc(fields: dict[str, Any]) -> dict[str, Any]:
    return dict(fields["compilation_config"])


def check_vllm_values(line: commandline.PastedLine, fields: dict[str, Any]) -> None:
    """Raw values, then the EngineConfig fields graphfit derives."""
    ours = vllm_reading(line)
    theirs = {k: fields[k] for k in (*VLLM_RAW, "model", "speculative_config")}
    theirs["compilation_config"] = _engine_cc(fields)
    assert ours == theirs
    from graphfit.cli.options import resolve_values

    resolved = resolve_values({}, environ={}, pasted=line).values
    for name in ("max_num_seqs", "max_num_batched_tokens"):
        if fields[name] is not None:
            assert resolved[name] == fields[name], name
    if fields["max_model_len"] not in (None, -1):
        assert resolved["max_model_len"] == fields["max_model_len"]
    dtype = {"half": "float16", "float": "float32"}.get(fields["dtype"], fields["dtype"])
    assert resolved.get("dtype") == (None if dtype == "auto" else dtype)
    spec = fields["speculative_config"]
    if spec is not None and spec.get("num_speculative_tokens") is not None:
        assert resolved["num_speculative_tokens"] == spec["num_speculative_tokens"]
        if spec.get("method") is not None:
            from graphfit.inputs.vllm import spec_method

            assert resolved["spec_method"] is spec_method("method", spec["method"])
    cc = fields["compilation_config"]
    mode = resolved.get("cudagraph_mode")
    if fields["enforce_eager"]:
        assert mode is CUDAGraphMode.NONE
        return
    if cc["cudagraph_mode"] is not None:
        assert mode is CUDAGraphMode[cc["cudagraph_mode"]]
    sizes = cc["cudagraph_capture_sizes"] or fields["cudagraph_capture_sizes"]
    if sizes:
        assert resolved["cudagraph_capture_sizes"] == tuple(sorted(set(sizes)))
    top = cc["max_cudagraph_capture_size"] or fields["max_cudagraph_capture_size"]
    if top is not None:
        assert resolved["max_cudagraph_capture_size"] == top


def agree_vllm(va: Any, text: str, files: dict[str, str] | None = None) -> None:
    """graphfit and vLLM 0.33 make the same decision and read the same values."""
    with va.working_files(files):
        theirs = va.parse_vllm(text)
        ours = read(text)
        if isinstance(ours, ConfigError):
            if theirs.ok:  # the parser passes it: vLLM must refuse it at start-up
                build = va.build_vllm_config(theirs, runner="v1")
                assert not build.ok, f"graphfit refuses what vLLM runs: {ours}"
            return
    assert theirs.ok, f"graphfit accepts what vLLM refuses: [{theirs.stage}] {theirs.error}"
    check_vllm_values(ours, theirs.fields)


def agree_sglang(sa: Any, text: str, files: dict[str, str] | None = None) -> None:
    from tests.oracle.vllm_args_oracle import working_files

    with working_files(files):
        theirs = sa.parse_sglang(text)
        ours = read(text)
    if isinstance(ours, ConfigError):
        assert not theirs.ok, f"graphfit refuses what SGLang accepts: {ours}"
        return
    assert theirs.ok, f"graphfit accepts what SGLang refuses: [{theirs.stage}] {theirs.error}"
    expected = {k: theirs.fields.get(k) for k in SGLANG_RAW}
    got = sglang_reading(ours)
    if got["cuda_graph_config"] is not None:  # the raw dict; SGLang keeps a struct
        expected["cuda_graph_config"] = {
            phase: {k: v for k, v in conf.items() if v is not None}
            for phase, conf in (expected["cuda_graph_config"] or {}).items()
            if conf is not None and any(v is not None for v in conf.values())}
    assert got == expected
    from graphfit.cli.options import resolve_values

    if theirs.fields["max_running_requests"] is None:  # SGLang sizes it at start-up
        # graphfit settles it as SGLang does (48 with speculation, else the KV-sized pool);
        # compared with SGLang's resolution in test_line_defaults_oracle.py
        resolve_values({}, environ={}, pasted=ours)
        return
    resolved = resolve_values({}, environ={}, pasted=ours).values
    assert resolved["max_num_seqs"] == theirs.fields["max_running_requests"]
    if theirs.fields["speculative_num_steps"] is not None:
        assert resolved["num_speculative_tokens"] == theirs.fields["speculative_num_steps"]


# ------------------------------------------------------------------------------------------
# Corpus and syntax facts


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def _corpus(engine: str) -> list[Any]:
    return [pytest.param(p, id=p.stem) for p in FILES if _load(p)["engine"] == engine]


@pytest.mark.parametrize("path", _corpus("vllm"))
def test_vllm_corpus_line(va: Any, path: Path) -> None:
    data = _load(path)
    agree_vllm(va, data["command"], data.get("files"))


@pytest.mark.parametrize("path", _corpus("sglang"))
def test_sglang_corpus_line(sa: Any, path: Path) -> None:
    data = _load(path)
    agree_sglang(sa, data["command"], data.get("files"))


@pytest.mark.parametrize("path", _corpus("trtllm"))
def test_trtllm_corpus_line(path: Path, tmp_path: Path, monkeypatch: Any) -> None:
    """TensorRT-LLM is not run here: graphfit must read what the recorded `reads` state."""
    data = _load(path)
    for name, text in (data.get("files") or {}).items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    line = commandline.read([data["command"]])
    reads = data["expect"]["reads"]
    assert line.model == reads["model"]
    for key, ours in (("max_batch_size", "max_batch_size"), ("max_num_tokens", "max_num_tokens"),
                      ("max_seq_len", "max_seq_len"), ("tp_size", "tensor_parallel_size")):
        assert line.values.get(ours) == reads[key], key
    assert line.values.get("extra_llm_api_options") == reads["extra_options_file"]
    from graphfit.cli.options import resolve_values

    resolved = resolve_values({}, environ={}, pasted=line).values
    in_yaml = any("tensor_parallel_size" in text for text in (data.get("files") or {}).values())
    if reads["tp_size"] is not None and not in_yaml:  # (a YAML's would win, as serve.py merges)
        assert resolved.get("tensor_parallel_size") == reads["tp_size"]
    graph = reads["cuda_graph_config"]
    if graph and graph.get("batch_sizes"):
        assert resolved["cudagraph_capture_sizes"] == tuple(sorted(set(graph["batch_sizes"])))
    spec = reads.get("speculative_config")
    if spec:
        k = spec.get("max_draft_len", spec.get("num_nextn_predict_layers"))
        assert resolved["num_speculative_tokens"] == k


def _facts(name: str) -> list[Any]:
    from tests.oracle import test_args_oracle

    facts = getattr(test_args_oracle, name)
    return [pytest.param(line, id=line) for line, _ in facts]


@pytest.mark.parametrize("argv", _facts("VLLM_FACTS"))
def test_vllm_syntax_fact(va: Any, argv: str) -> None:
    agree_vllm(va, "vllm " + argv)


@pytest.mark.parametrize("line", _facts("SGLANG_FACTS"))
def test_sglang_syntax_fact(sa: Any, line: str) -> None:
    agree_sglang(sa, line)


VLLM_MORE = [
    # prefix abbreviation and ambiguity, single-dash forms
    "vllm serve m --max-num 8",
    "vllm serve m --max 8",
    "vllm serve m -tp2",
    "vllm serve m --no-enable-prefix-caching --enable-chunked-prefill",
    # the "last spelling wins" trap and list concatenation of dotted keys
    "vllm serve m -cc '{\"cudagraph_mode\": \"FULL\"}' -cc.max_cudagraph_capture_size 64",
    "vllm serve m -cc.cudagraph_capture_sizes [1,2] -cc.cudagraph_capture_sizes [4]",
    "vllm serve m --compilation-config '{\"cudagraph_mode\": \"FULL\"}' "
    "--compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}'",
    "vllm serve m -cc '{\"max_cudagraph_capture_size\": 1k}'",
    "vllm serve m -cc '{\"use_cudagraph\": false}'",
    "vllm serve m -cc '{\"cudagraph_mode\": [2, 0]}'",
    # -O forms
    "vllm serve m -O", "vllm serve m -O 0", "vllm serve m -O7", "vllm serve m -Odecode",
    # enforce_eager wins over graph settings; capture lists given twice
    "vllm serve m --enforce-eager -cc.cudagraph_mode FULL --cudagraph-capture-sizes 1 2",
    "vllm serve m --cudagraph-capture-sizes 1 2 -cc.cudagraph_capture_sizes [1,2]",
    "vllm serve m --max-cudagraph-capture-size 8 -cc.max_cudagraph_capture_size 8",
    # --spec-* against --speculative-config keys
    "vllm serve m --spec-method ngram -sc '{\"method\": \"ngram\", "
    "\"num_speculative_tokens\": 2}'",
    "vllm serve m --spec-tokens 2 -sc '{\"method\": \"eagle3\", \"model\": \"d\"}'",
    # api_server, env prefixes, shell noise
    "python -m vllm.entrypoints.openai.api_server --model m --max-num-seqs 4 --port 8000",
    "VLLM_USE_V2_MODEL_RUNNER=1 nohup vllm serve m --max-num-seqs 4 > log.txt 2>&1 &",
    "vllm serve m \\\n  --max-num-seqs 16 \\\n  --max-model-len 4096",
    # values the engine refuses
    "vllm serve m --max-num-seqs 0x10", "vllm serve m --dtype bf16",
    "vllm serve m --max-model-len 1.5K", "vllm serve m --performance-mode fast",
    "vllm serve m --served-model-name a b --max-num-seqs 4",
    "vllm serve m --model",
]


@pytest.mark.parametrize("line", VLLM_MORE, ids=VLLM_MORE)
def test_vllm_more_syntax(va: Any, line: str) -> None:
    agree_vllm(va, line)


def test_vllm_config_file(va: Any) -> None:
    files = {"c.yaml": "max-num-seqs: 64\ntensor_parallel_size: 2\nenable-prefix-caching: "
                       "false\ncompilation-config:\n  cudagraph_mode: PIECEWISE\n"
                       "cudagraph-capture-sizes: [1, 2, 4]\n"}
    for line in ("vllm serve m --config c.yaml --max-num-seqs 8",
                 "vllm serve m --config=c.yaml",
                 "vllm serve --config c.yaml",
                 "python -m vllm.entrypoints.openai.api_server --model m --config c.yaml",
                 "vllm serve m --config c.json", "vllm serve m --config c.yaml --config c.yaml"):
        agree_vllm(va, line, files)


# ------------------------------------------------------------------------------------------
# Generated lines


@settings(max_examples=120, deadline=None)
@given(line=pytest.importorskip("tests.oracle.vllm_args_oracle").vllm_command_lines())
def test_generated_vllm_lines(va: Any, line: str) -> None:
    agree_vllm(va, line)


def sglang_command_lines() -> Any:
    """`python -m sglang.launch_server ...` / `sglang serve ...` lines mixing modelled and
    unmodelled flags in the spellings argparse accepts (abbreviations, `=`), and some it
    refuses (underscores, ambiguous prefixes, comma lists)."""

    def valued(names: list[str], values: Any) -> Any:
        return st.tuples(st.sampled_from(names), values, st.booleans()).map(
            lambda t: [f"{t[0]}={t[1]}"] if t[2] else [t[0], str(t[1])])

    sizes = st.lists(st.integers(1, 256), min_size=1, max_size=5)
    pieces = [
        valued(["--max-running-requests", "--max-running"], st.integers(1, 512)),
        valued(["--cuda-graph-max-bs-decode", "--cuda-graph-max-bs"], st.integers(1, 512)),
        st.tuples(st.sampled_from(["--cuda-graph-bs-decode", "--cuda-graph-bs"]), sizes).map(
            lambda t: [t[0], *map(str, t[1])]),
        sizes.map(lambda s: ["--cuda-graph-bs-decode=" + ",".join(map(str, s))]),
        valued(["--speculative-algorithm", "--speculative-algo"],
               st.sampled_from(["EAGLE", "EAGLE3", "NEXTN", "NGRAM"])),
        valued(["--speculative-num-steps"], st.integers(1, 6)),
        valued(["--speculative-eagle-topk"], st.integers(1, 8)),
        valued(["--speculative-num-draft-tokens"], st.integers(2, 16)),
        st.sampled_from([["--disable-cuda-graph"], ["--disable-cuda-graph-padding"],
                         ["--disable-decode-cuda-graph"]]),
        valued(["--tp-size", "--tp", "--tp_size"], st.sampled_from([1, 2, 8])),
        valued(["--mem-fraction-static", "--mem-fraction"], st.sampled_from([0.8, 0.9])),
        valued(["--context-length"], st.sampled_from(["8192", "32k", "4Ki"])),
        valued(["--port"], st.integers(1024, 65535)),
        valued(["--kv-cache-dtype"], st.sampled_from(["auto", "fp8_e4m3", "fp8"])),
        st.just(["--trust-remote-code"]),
        st.integers(1, 256).map(lambda n: [
            "--cuda-graph-config", json.dumps({"decode": {"backend": "full", "max_bs": n}})]),
    ]

    @st.composite
    def lines(draw: Any) -> str:
        chosen = draw(st.lists(st.sampled_from(range(len(pieces))), min_size=1, max_size=6,
                               unique=True))
        argv = [tok for i in chosen for tok in draw(pieces[i])]
        model = draw(st.sampled_from(["Qwen/Qwen3-8B", "/models/m"]))
        entry = draw(st.sampled_from(["launch", "serve", "serve-positional"]))
        if entry == "serve-positional":
            return "sglang serve " + shlex.join([model, *argv])
        prefix = "python -m sglang.launch_server" if entry == "launch" else "sglang serve"
        return f"{prefix} " + shlex.join(["--model-path", model, *argv])

    return lines()


@settings(max_examples=80, deadline=None)
@given(line=sglang_command_lines())
def test_generated_sglang_lines(sa: Any, line: str) -> None:
    agree_sglang(sa, line)


# ------------------------------------------------------------------------------------------
# What the reading gives the user


def test_unmodelled_flags_are_one_note() -> None:
    line = commandline.read(["vllm", "serve", "m", "--port", "8000", "-tp", "2", "--port",
                             "8001", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "8",
                             "-cc", '{"cudagraph_mode": "FULL"}', "-cc.max_cudagraph_capture_size",
                             "64"])
    ignored = [n for n in line.notes if n.startswith("not modelled")]
    assert ignored == ["not modelled, ignored: --port, -tp, --gpu-memory-utilization"]
    # the "last spelling wins" trap: vLLM drops the -cc JSON, graphfit says so
    assert [n for n in line.notes if "given" in n] == [
        "-cc is given 2 times (-cc, -cc): the engine keeps only the last"]
    assert line.values["compilation_config"] == {"max_cudagraph_capture_size": 64}


def test_speculative_method_names_map_to_graphfit() -> None:
    """Every method vLLM 0.33 accepts is either modelled or refused by name (never misread);
    the unmodelled ones are listed here, so adding one is a visible change."""
    table = flagtable.load("vllm")
    spec = next(a for a in table.actions("serve") if a["dest"] == "spec_method")
    from graphfit.inputs.vllm import spec_method

    refused = set()
    for name in spec["choices"]:
        if name is None:
            continue
        try:
            assert isinstance(spec_method("m", name), SpecMethod)
        except ConfigError as exc:
            assert "is not modelled" in str(exc)
            refused.add(name)
    assert refused <= {"ngram_gpu", "extract_hidden_states", "dspark", "custom_class"}
