"""The argument oracles on their corpus and on the syntax facts graphfit's readers must follow.

Each corpus file in command_lines/ records what the engine's own parser read from a real command
line (or how it refused it); these tests re-run vLLM 0.33 / SGLang 0.5.23's parsers and compare.
They test the glue (tests/oracle/*_args_oracle.py), not graphfit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given

CORPUS = Path(__file__).resolve().parent / "command_lines"
FILES = sorted(CORPUS.glob("*.yaml"))


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _by_engine(engine: str) -> list[Any]:
    return [pytest.param(p, id=p.stem) for p in FILES if _load(p)["engine"] == engine]


def _check(result: Any, expect: dict[str, Any]) -> None:
    assert result.ok == expect["accepted"], result.error
    if expect["accepted"]:
        assert result.fields == expect["fields"]
    else:
        assert result.stage == expect["stage"]
        assert result.error.splitlines()[0][:160] == expect["error"]


def test_corpus_is_large_enough() -> None:
    engines = [_load(p)["engine"] for p in FILES]
    verbatim = [p for p in FILES if not _load(p)["source"].startswith("derived from")]
    assert len(verbatim) >= 15 and {"vllm", "sglang", "trtllm"} <= set(engines)
    for path in FILES:
        data = _load(path)
        assert data["source"] and data["command"].strip() and "expect" in data, path.name


@pytest.mark.parametrize("path", _by_engine("vllm"))
def test_vllm_corpus(va: Any, path: Path) -> None:
    data = _load(path)
    _check(va.parse_vllm(data["command"], files=data.get("files")), data["expect"])


@pytest.mark.parametrize("path", _by_engine("sglang"))
def test_sglang_corpus(sa: Any, path: Path) -> None:
    data = _load(path)
    _check(sa.parse_sglang(data["command"], files=data.get("files")), data["expect"])


def _trtllm_cli(command: str) -> dict[str, Any]:
    """Our own reading of a `trtllm-serve MODEL --opt value ...` line (TensorRT-LLM is not run
    here): the recorded `reads` must agree with what the line states."""
    import shlex
    words = shlex.split(command.replace("\\\n", " "))
    assert words[0] == "trtllm-serve"
    out: dict[str, Any] = {"model": words[1]}
    i = 2
    while i < len(words):
        key = words[i].lstrip("-")
        if i + 1 < len(words) and not words[i + 1].startswith("--"):
            out[key] = yaml.safe_load(words[i + 1])
            i += 2
        else:
            out[key] = True
            i += 1
    return out


@pytest.mark.parametrize("path", _by_engine("trtllm"))
def test_trtllm_corpus_is_consistent(path: Path) -> None:
    data = _load(path)
    reads, cli = data["expect"]["reads"], _trtllm_cli(data["command"])
    for key in ("model", "tp_size", "ep_size", "pp_size", "backend", "max_batch_size",
                "max_num_tokens", "max_seq_len", "kv_cache_free_gpu_memory_fraction"):
        assert reads[key] == cli.get(key), key
    extra = cli.get("extra_llm_api_options", cli.get("config"))
    assert reads["extra_options_file"] == extra
    if extra is None:
        assert reads["cuda_graph_config"] is None
        return
    options = yaml.safe_load(data["files"][Path(extra).name])
    graph = options.get("cuda_graph_config") or {}
    assert reads["cuda_graph_config"] == {
        "enable_padding": graph.get("enable_padding"), "batch_sizes": graph.get("batch_sizes"),
        "max_batch_size": graph.get("max_batch_size")}
    assert reads["speculative_config"] == options.get("speculative_config")
    assert reads["enable_attention_dp"] == options.get("enable_attention_dp")


# ------------------------------------------------------------------------------------------
# vLLM 0.33 syntax facts (utils/argparse_utils.py, engine/arg_utils.py). Each case: the argv
# after `vllm`, then the expected fields (a subset) or ("reject", message prefix).

CC_NONE = {"mode": None, "cudagraph_mode": None, "cudagraph_capture_sizes": None,
           "max_cudagraph_capture_size": None}

VLLM_FACTS: list[tuple[str, Any]] = [
    # underscores and dashes interchangeable in `--` names (argparse_utils.py:379-394)
    ("serve m --max_num_seqs 8 --max-num-batched_tokens 4096",
     {"max_num_seqs": 8, "max_num_batched_tokens": 4096}),
    ("serve m --max-num-seqs=256", {"max_num_seqs": 256}),
    # argparse prefix abbreviations are accepted (allow_abbrev)
    ("serve m --max-num-seq 8 --max-model 4096", {"max_num_seqs": 8, "max_model_len": 4096}),
    # -tp/-dp short forms; `-tp=2` works, `--tp` / `-tp2` do not (arg_utils.py:1209,1241)
    ("serve m -tp=2 -dp 2", {"tensor_parallel_size": 2, "data_parallel_size": 2}),
    ("serve m --tp 2", ("reject", "unrecognized arguments: --tp 2")),
    # -O forms are --optimization-level only, kept as the string (argparse_utils.py:395-406)
    ("serve m -O3", {"optimization_level": "3", "compilation_config": CC_NONE}),
    ("serve m -O 3", {"optimization_level": "3"}),
    ("serve m -O=1", {"optimization_level": "1"}),
    ("serve m -O 4", ("reject", "unrecognized arguments: -O 4")),
    # -cc, dotted keys, `=`, lower-case and integer enum values (compilation.py:853-879)
    ("serve m -cc.cudagraph_mode piecewise",
     {"compilation_config": {**CC_NONE, "cudagraph_mode": "PIECEWISE"}}),
    ("serve m --compilation-config.cudagraph_mode=FULL_DECODE_ONLY --compilation_config.mode 3",
     {"compilation_config": {**CC_NONE, "mode": 3, "cudagraph_mode": "FULL_DECODE_ONLY"}}),
    ("serve m -cc '{\"cudagraph_mode\":2}'",
     {"compilation_config": {**CC_NONE, "cudagraph_mode": "FULL"}}),
    ("serve m -cc '{\"cudagraph_mode\":3}'", ("reject", "argument --compilation-config/-cc: 1 ")),
    # list appends with `+` (argparse_utils.py:472-474)
    ("serve m -cc.cudagraph_capture_sizes+ 8 -cc.cudagraph_capture_sizes+=16,32",
     {"compilation_config": {**CC_NONE, "cudagraph_capture_sizes": [8, 16, 32]}}),
    # dotted keys are re-appended as one JSON arg per flag spelling; the last one wins
    # (argparse_utils.py:497-500): the JSON value and the -cc spelling are lost here
    ("serve m -cc '{\"cudagraph_mode\":\"FULL\"}' -cc.max_cudagraph_capture_size 64",
     {"compilation_config": {**CC_NONE, "max_cudagraph_capture_size": 64}}),
    ("serve m -cc.cudagraph_mode=FULL --compilation-config.max_cudagraph_capture_size=64",
     {"compilation_config": {**CC_NONE, "max_cudagraph_capture_size": 64}}),
    # space-separated lists (nargs="+", arg_utils.py:391), not commas or JSON
    ("serve m --cudagraph-capture-sizes 1 2 4 8", {"cudagraph_capture_sizes": [1, 2, 4, 8]}),
    ("serve m --cudagraph-capture-sizes 1,2,4",
     ("reject", "argument --cudagraph-capture-sizes: invalid int value")),
    ("serve m --cudagraph-capture-sizes=1 2", ("reject", "unrecognized arguments: 2")),
    # auto and human-readable ints (argparse_utils.py:30-95, arg_utils.py:397-410)
    ("serve m --max-model-len auto --dtype auto", {"max_model_len": -1, "dtype": "auto"}),
    ("serve m --max-model-len 32k --max-num-batched-tokens 16K",
     {"max_model_len": 32000, "max_num_batched_tokens": 16384}),
    ("serve m --max-num-seqs auto", ("reject", "argument --max-num-seqs: invalid int value")),
    ("serve m --dtype bf16", ("reject", "argument --dtype: invalid choice: 'bf16'")),
    # speculative config: JSON, dotted, -sc, --spec-* merged (arg_utils.py:2100-2128)
    ("serve m -sc.method=ngram -sc.num_speculative_tokens=4",
     {"speculative_config": {"method": "ngram", "num_speculative_tokens": 4}}),
    ("serve m --speculative_config '{\"method\":\"mtp\",\"num-speculative-tokens\":1}'",
     {"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}}),
    ("serve m --spec-method dflash --spec-model d --spec-tokens 7",
     {"speculative_config": {"method": "dflash", "model": "d", "num_speculative_tokens": 7}}),
    # model: positional, or --model moved to the front (argparse_utils.py:324-369)
    ("serve --model m -tp 2", {"model": "m", "tensor_parallel_size": 2}),
    ("serve a --model b", ("reject", "unrecognized arguments: a")),
    ("serve --served-model-name x", ("reject", "ValueError: `model` should be provided")),
    # booleans: --x / --no-x / --enable-x <-> --disable-x, no values (argparse_utils.py:120)
    ("serve m --disable-prefix-caching --enforce-eager",
     {"enable_prefix_caching": False, "enforce_eager": True}),
    ("serve m --enforce-eager=true", ("reject", "argument --enforce-eager/--no-enforce-eager")),
    # removed flags
    ("serve m --swap-space 4", ("reject", "unrecognized arguments: --swap-space 4")),
    ("serve m --task generate", ("reject", "unrecognized arguments: --task generate")),
]


@pytest.mark.parametrize(("argv", "expected"), VLLM_FACTS, ids=[a for a, _ in VLLM_FACTS])
def test_vllm_syntax_fact(va: Any, argv: str, expected: Any) -> None:
    import shlex
    result = va.parse_vllm(shlex.split(argv))
    if isinstance(expected, tuple):
        assert not result.ok
        assert result.error.startswith(expected[1]), result.error
    else:
        assert result.ok, result.error
        assert {k: result.fields[k] for k in expected} == expected


def test_vllm_config_file_and_command_line_precedence(va: Any) -> None:
    files = {"c.yaml": "max-num-seqs: 64\ntensor_parallel_size: 2\nenable-prefix-caching: "
                       "false\ncompilation-config:\n  cudagraph_mode: PIECEWISE\n"
                       "cudagraph-capture-sizes: [1, 2, 4]\n"}
    r = va.parse_vllm("vllm serve m --config c.yaml --max-num-seqs 8", files=files)
    assert r.ok, r.error
    assert r.fields["max_num_seqs"] == 8  # the command line wins
    assert r.fields["tensor_parallel_size"] == 2
    assert r.fields["cudagraph_capture_sizes"] == [1, 2, 4]
    assert r.fields["compilation_config"]["cudagraph_mode"] == "PIECEWISE"
    # `key: false` becomes --no-key only when the *top-level* parser knows it
    # (argparse_utils.py:657): under `vllm serve` it is dropped
    assert r.fields["enable_prefix_caching"] is None
    api = va.parse_vllm("python -m vllm.entrypoints.openai.api_server --model m --config c.yaml",
                        files=files)
    assert api.ok and api.fields["enable_prefix_caching"] is False
    # `--config=FILE` is not recognised as a config file (argparse_utils.py:371 wants the
    # separate token): the YAML is silently ignored
    eq = va.parse_vllm("vllm serve m --config=c.yaml", files=files)
    assert eq.ok and eq.fields["max_num_seqs"] is None and eq.fields["config"] == "c.yaml"


def test_vllm_config_objects_on_cpu(va: Any) -> None:
    # docs/engines/vllm.md#capture-ladder, worked example: S=33, k=3, T=8192 -> 36 sizes,
    # 132 included, max 256
    b = va.build_vllm_config(
        "vllm serve m --max-num-seqs 33 -sc.method=ngram -sc.num_speculative_tokens=3 "
        "-sc.prompt_lookup_max=4 --max-num-batched-tokens 8192", runner="v1")
    assert b.ok, b.error
    sizes = b.fields["cudagraph_capture_sizes"]
    assert len(sizes) == 36 and 132 in sizes and sizes[-1] == 256
    for attr in ("scheduler_config", "compilation_config", "speculative_config",
                 "model_config", "parallel_config"):
        assert getattr(b.config, attr) is not None
    eager = va.build_vllm_config("vllm serve m -O0")
    assert eager.ok and eager.fields["cudagraph_mode"] == "NONE"
    assert eager.fields["cudagraph_capture_sizes"] == []
    bad = va.build_vllm_config("vllm serve m -O7")
    assert not bad.ok and "optimization_level" in bad.error
    both = va.build_vllm_config(
        "vllm serve m --cudagraph-capture-sizes 1 2 -cc.cudagraph_capture_sizes=[8]")
    assert not both.ok and "mutually exclusive" in both.error


@given(line=pytest.importorskip("tests.oracle.vllm_args_oracle").vllm_command_lines())
def test_generated_lines_run_through_the_oracle(va: Any, line: str) -> None:
    result = va.parse_vllm(line)
    assert result.ok or result.error
    if result.ok:
        assert result.fields["model"] in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B",
                                          "/models/m")


# ------------------------------------------------------------------------------------------
# SGLang 0.5.23 facts (plain argparse: no underscore spelling, prefix abbreviations on)

SGLANG_FACTS: list[tuple[str, Any]] = [
    ("python -m sglang.launch_server --model-path m --cuda-graph-max-bs 64",
     ("reject", "ambiguous option: --cuda-graph-max-bs could match")),
    ("python -m sglang.launch_server --model-path m --cuda-graph-bs 1 2",
     ("reject", "ambiguous option: --cuda-graph-bs could match")),
    ("python -m sglang.launch_server --model-path m --cuda-graph-bs-decode 1 2 4",
     {"cuda_graph_bs_decode": [1, 2, 4]}),
    ("python -m sglang.launch_server --model-path m --cuda-graph-bs-decode=1,2",
     ("reject", "argument --cuda-graph-bs-decode: invalid int value")),
    ("python -m sglang.launch_server --model_path m",
     ("reject", "the following arguments are required: --model-path/--model")),
    ("python -m sglang.launch_server --model m --tp 2 --max-running 64",
     {"model_path": "m", "tp_size": 2, "max_running_requests": 64}),
    ("sglang serve m --tp-size 2 --disable-cuda-graph",
     {"model_path": "m", "tp_size": 2, "disable_cuda_graph": True}),
    ("sglang serve --tp 2", ("reject", "Exception: Error: --model-path is required")),
    ("sglang serve --model-path m --kv-cache-dtype fp8",
     ("reject", "argument --kv-cache-dtype: invalid choice: 'fp8'")),
    ("sglang serve --model-path m --cuda-graph-config "
     "'{\"decode\": {\"backend\": \"full\", \"max_bs\": 128}}'",
     {"cuda_graph_config": {"decode": {"backend": "full", "max_bs": 128}}}),
]


@pytest.mark.parametrize(("line", "expected"), SGLANG_FACTS, ids=[a for a, _ in SGLANG_FACTS])
def test_sglang_syntax_fact(sa: Any, line: str, expected: Any) -> None:
    result = sa.parse_sglang(line)
    if isinstance(expected, tuple):
        assert not result.ok
        assert result.error.startswith(expected[1]), result.error
    else:
        assert result.ok, result.error
        got = {k: result.fields[k] for k in expected}
        if "cuda_graph_config" in got:  # the struct's unset fields come back as None
            got["cuda_graph_config"] = {
                phase: {k: v for k, v in conf.items() if v is not None}
                for phase, conf in got["cuda_graph_config"].items() if conf is not None}
        assert got == expected


def test_sglang_config_file(sa: Any) -> None:
    ok = sa.parse_sglang("sglang serve --model-path m --config c.yaml --tp 4",
                         files={"c.yaml": "tp-size: 2\ncuda-graph-max-bs-decode: 32\n"})
    assert ok.ok and ok.fields["tp_size"] == 4 and ok.fields["cuda_graph_max_bs_decode"] == 32
    # YAML keys are emitted as `--<key>` verbatim: an underscore key is an unknown flag
    bad = sa.parse_sglang("sglang serve --model-path m --config c.yaml",
                          files={"c.yaml": "tp_size: 2\n"})
    assert not bad.ok and bad.error == "unrecognized arguments: --tp_size 2"


def refresh_expectations() -> None:
    """Rewrite `expect` of every vLLM/SGLang corpus file from the engines' parsers (after a
    version bump): `PYTHONPATH=. python tests/oracle/test_args_oracle.py`. Review the diff."""
    from tests.oracle import sglang_args_oracle, vllm_args_oracle

    class Block(str):
        pass

    yaml.add_representer(Block, lambda d, s: d.represent_scalar(
        "tag:yaml.org,2002:str", s, style="|"), Dumper=yaml.SafeDumper)
    for path in FILES:
        data = _load(path)
        if data["engine"] == "trtllm":
            continue
        parse = (vllm_args_oracle.parse_vllm if data["engine"] == "vllm"
                 else sglang_args_oracle.parse_sglang)
        r = parse(data["command"], files=data.get("files"))
        data["expect"] = ({"accepted": True, "fields": r.fields} if r.ok else
                          {"accepted": False, "stage": r.stage,
                           "error": r.error.splitlines()[0][:160]})
        data["command"] = Block(data["command"])
        if "files" in data:
            data["files"] = {k: Block(v) for k, v in data["files"].items()}
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


if __name__ == "__main__":
    refresh_expectations()
