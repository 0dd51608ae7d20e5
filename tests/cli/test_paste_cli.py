"""The serving user's way in: a pasted command after `--`, the model's config, the engine's
verdict first, paste back, and the CLI basics (--version, bare help, --format, 80 columns).

The engines' parsers themselves are compared with graphfit in tests/oracle/test_paste_oracle.py;
these tests cover what a user sees, without the engines' sources.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from graphfit import EngineConfig, Plan, plan
from graphfit.cli.options import CONFIG_FLAGS
from tests.helpers import ROOT, run_cli

LLAMA = str(ROOT / "examples/models/Llama-3.1-8B-Instruct")
QWEN_VL = str(ROOT / "examples/models/Qwen2-VL-7B-Instruct")
SEED_LINE = ("vllm serve m --max-num-seqs 33 --speculative-config "
             "'{\"method\": \"dflash\", \"num_speculative_tokens\": 3}'")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)


def plan_doc(*pasted: str, own: tuple[str, ...] = ()) -> dict[str, Any]:
    code, out, err = run_cli(["plan", "--json", *own, "--", *pasted])
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def notes(err: str) -> list[str]:
    return [line.removeprefix("note: ") for line in err.splitlines()
            if line.startswith("note: ")]


# ------------------------------------------------------------------------------------------
# Paste-through, every command


@pytest.mark.parametrize("argv", [
    ["plan"], ["check"], ["explain", "132", "--uniform"], ["compare", "vllm", "vllm-legacy"],
    ["sweep", "--workers", "1", "--max-num-seqs", "30..33"],
    ["memory", "--bytes-per-token", "1000"],
], ids=lambda a: a[0])
def test_every_command_takes_a_pasted_line(argv: list[str]) -> None:
    line = SEED_LINE
    if argv[0] == "sweep":  # the swept field must not be on the line too
        line = line.replace("--max-num-seqs 33 ", "")
    code, out, err = run_cli([*argv, "--", line, "--port", "8000"])
    assert code == 0, err
    assert out.strip() and "error" not in err
    if argv[0] in ("plan", "check"):
        assert out.startswith("vLLM 0.34.0 V2 runner: SAFE")  # the default release: V2 only
    assert notes(err)[0] == "not modelled, ignored: --port"


def test_optimize_takes_a_pasted_line_and_pastes_back(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("num_tokens\n" + "\n".join(["80"] * 5 + ["120", "200"]))
    # vLLM 0.34 (the default) adds the full-batch decode graph (64 requests) to any list: the
    # optimised ladder keeps it, and the advice then starts below 64
    code, out, err = run_cli(["optimize", "--trace", str(trace), "--max-graphs", "3", "--",
                              "vllm", "serve", "m", "--max-num-seqs", "64"])
    assert code == 0, err
    assert out.strip().splitlines()[-1] == "--cudagraph-capture-sizes 64 80 128"
    assert "no size below 64: a 1-request decode pads to 64" in out
    code, out, err = run_cli(["optimize", "--trace", str(trace), "--max-graphs", "3",
                              "--engine-version", "0.33.0", "--",
                              "vllm", "serve", "m", "--max-num-seqs", "64"])
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[-1].startswith("--cudagraph-capture-sizes 80 ")
    assert lines[-2].startswith("-cc '{\"cudagraph_capture_sizes\": [80, ")
    assert "warning: no size below 80: a 1-request decode pads to 80" in out
    code, out, _ = run_cli(["optimize", "--trace", str(trace), "--max-graphs", "3", "--json",
                            "--engine-version", "0.33.0", "--", "vllm", "serve", "m",
                            "--max-num-seqs", "64"])
    paste = json.loads(out)["paste"]
    assert paste["engine"] == "vllm" and len(paste["warnings"]) == 1
    # the small-decode advice (issue 12) opens with the same fact and says what to include
    assert paste["warnings"][0].startswith("no size below 80: a 1-request decode pads to 80")
    assert "--include 1,2,4,8" in paste["warnings"][0]


def test_entry_points_and_shell_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = plan_doc("vllm", "serve", "m", "--max-num-seqs", "16")
    assert base["config"]["max_num_seqs"] == 16
    for words in (
        ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m",
         "--max-num-seqs", "16"],
        ["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m", "--max_num_seqs=16"],
        ["vllm serve m \\\n  --max-num-seqs 16 | tee log"],     # one pasted string
        ["CUDA_VISIBLE_DEVICES=0", "nohup", "uv", "run", "vllm", "serve", "m", "--max-num-seq",
         "16"],
    ):
        assert plan_doc(*words)["config"] == base["config"], words
    v2 = plan_doc("VLLM_USE_V2_MODEL_RUNNER=1", "vllm", "serve", "m", "--max-num-seqs", "16")
    assert v2["config"]["options"]["runner"] == "v2"
    sg = plan_doc("sglang", "serve", "m", "--max-running-requests", "48", "--tp", "2")
    assert sg["config"]["engine"] == "sglang" and sg["config"]["max_num_seqs"] == 48
    launch = plan_doc("python", "-m", "sglang.launch_server", "--model-path", "m",
                      "--max-running-requests", "48", "--speculative-algo", "EAGLE",
                      "--speculative-num-steps", "3", "--speculative-eagle-topk", "1")
    assert launch["config"]["spec_method"] == "eagle"
    (tmp_path / "x.yaml").write_text("cuda_graph_config:\n  enable_padding: true\n"
                                     "  batch_sizes: [1, 2, 4, 8]\nmax_batch_size: 32\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["plan", "--json", "--", "trtllm-serve", "m", "--max_batch_size",
                              "64", "--extra_llm_api_options", "x.yaml", "--tp_size", "8"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["engine"] == "trtllm" and doc["config"]["max_num_seqs"] == 32
    assert doc["config"]["cudagraph_capture_sizes"] == [1, 2, 4, 8]
    assert "x.yaml overrides --max_batch_size" in err  # serve.py merges the YAML over flags


@pytest.mark.parametrize(("pasted", "needle"), [
    (["vllm", "serve", "m", "--max-num-seqs", "abc"], "argument --max-num-seqs: invalid int"),
    (["vllm", "serve", "m", "--swap-space", "4"], "unrecognized arguments: --swap-space 4"),
    (["vllm", "serve", "m", "--dtype", "bf16"], "invalid choice: 'bf16'"),
    (["vllm", "serve", "m", "-cc", '{"cudagraph_mode": 3}'], "cudagraph_mode: 3"),
    (["vllm", "serve", "m", "-sc", '{"method": "ngram", "num_speculative_token": 3}'],
     "unknown key 'num_speculative_token'"),
    (["vllm", "serve", "m", "-O7"], "optimization level must be 0..3"),
    (["sglang", "serve", "m", "--cuda-graph-max-bs", "8"], "ambiguous option"),
    (["sglang", "serve", "m", "--speculative-algorithm", "STANDALONE",
      "--speculative-use-rejection-sampling"], "drop --speculative-use-rejection-sampling"),
    (["trtllm-serve", "m", "--max-batch-size", "8"], "No such option: --max-batch-size"),
    (["ollama", "serve"], "not a serving command graphfit reads"),
    ([], "nothing after `--`"),
])
def test_bad_lines_are_one_error_line(pasted: list[str], needle: str) -> None:
    code, out, err = run_cli(["plan", "--", *pasted])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert needle in lines[0] and not out


def test_own_flags_and_the_line_are_peers() -> None:
    doc = plan_doc("vllm", "serve", "m", "--max-num-seqs", "16", own=("--runner", "v2"))
    assert doc["config"]["options"]["runner"] == "v2" and doc["config"]["max_num_seqs"] == 16
    code, _, err = run_cli(["plan", "--max-num-seqs", "8", "--", "vllm", "serve", "m",
                            "--max-num-seqs", "16"])
    assert code == 2 and "--max-num-seqs gives 8 but --max-num-seqs gives 16" in err
    code, _, err = run_cli(["--", "vllm", "serve", "m"])
    assert code == 2 and "give a command before" in err


def test_enforce_eager_wins_and_defaults_are_said() -> None:
    code, out, err = run_cli(["plan", "--json", "--", "vllm", "serve", "m", "--enforce-eager",
                              "-cc.cudagraph_mode", "FULL", "--cudagraph-capture-sizes", "1",
                              "2"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["cudagraph_mode"] == "NONE"
    assert doc["config"]["max_num_seqs"] == 1024  # vLLM 0.33's default on an 80 GB GPU
    said = notes(err)
    assert any(n.startswith("--enforce-eager: vLLM runs without CUDA graphs") for n in said)
    assert any(n.startswith("max_num_seqs=1024, max_num_batched_tokens=8192: not on the line")
               for n in said)


# ------------------------------------------------------------------------------------------
# The model's own config


def test_model_directory_sets_hidden_dtype_and_max_len() -> None:
    code, out, err = run_cli(["plan", "--json", "--", "vllm", "serve", LLAMA, "--max-num-seqs",
                              "8", "--max-model-len", "auto", "--dtype", "auto"])
    assert code == 0, err
    config = json.loads(out)["config"]
    assert (config["hidden_size"], config["dtype"], config["max_model_len"]) == (
        4096, "bfloat16", 131072)
    assert config["multimodal"] is False
    assert any(n.startswith("model: LlamaForCausalLM, hidden 4096, 32 layers, vocab 128256")
               for n in notes(err))
    # explicit flags win over the model's values
    config = plan_doc("vllm", "serve", LLAMA, "--max-num-seqs", "8", "--max-model-len", "4096",
                      "--dtype", "half")["config"]
    assert (config["max_model_len"], config["dtype"]) == (4096, "float16")
    config = plan_doc("vllm", "serve", LLAMA, "--max-num-seqs", "8",
                      own=("--hidden-size", "1024"))["config"]
    assert config["hidden_size"] == 1024


def test_mrope_model_gets_the_multimodal_buffers() -> None:
    doc = plan_doc("python", "-m", "vllm.entrypoints.openai.api_server", "--model",
                   QWEN_VL + "/config.json", "--max-num-seqs", "8")
    assert doc["config"]["multimodal"] is True and doc["config"]["hidden_size"] == 3584
    assert doc["config"]["max_model_len"] == 32768
    buffers = {b["name"] for comp in doc["components"].values() for b in comp["buffers"]}
    assert {"mrope_positions", "inputs_embeds"} <= buffers


def test_draft_model_directory_sizes_the_drafter(tmp_path: Path) -> None:
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps(
        {"architectures": ["LlamaForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 16,
         "vocab_size": 128256, "torch_dtype": "bfloat16", "max_position_embeddings": 131072}))
    spec = json.dumps({"method": "draft_model", "model": str(draft),
                       "num_speculative_tokens": 3})
    # the V1 runner keeps the drafter's hidden states (MRV2's draft-model speculator has none)
    doc = plan_doc("VLLM_USE_V2_MODEL_RUNNER=0", "vllm", "serve", LLAMA, "--max-num-seqs", "8",
                   "--speculative-config", spec)
    assert doc["config"]["draft_hidden_size"] == 2048 and doc["config"]["options"]["runner"] == "v1"
    result = plan(EngineConfig.from_dict(doc["config"]))
    assert result.buffer("drafter.hidden_states").shape == (
        result.buffer("drafter.hidden_states").capacity, 2048)



@pytest.mark.parametrize("layers", [[1, 17, 33], [], None])
def test_a_dflash_draft_directory_says_how_many_aux_layers_are_staged(
        tmp_path: Path, layers: list[int] | None) -> None:
    """MRV2 stages the target's aux hidden states for a DFlash draft only when its config
    names aux layers (dflash/speculator.py:96-106 in 0.33/0.34): a draft directory that names
    n of them gives an aux_staging buffer n x hidden wide, one that names none gives none
    (as EngineConfig.from_vllm counts them); an EAGLE-3 draft's layer ids are not DFlash's."""
    draft = tmp_path / "draft"
    draft.mkdir()
    hf: dict[str, Any] = {"architectures": ["DFlashDraftModel"], "hidden_size": 4096,
                          "torch_dtype": "bfloat16"}
    if layers is not None:
        hf["dflash_config"] = {"target_layer_ids": layers}
    (draft / "config.json").write_text(json.dumps(hf))
    for method in ("dflash", "eagle3"):
        spec = json.dumps({"method": method, "model": str(draft), "num_speculative_tokens": 3})
        doc = plan_doc("vllm", "serve", LLAMA, "--max-num-seqs", "8", "--speculative-config",
                       spec)
        aux = [b for b in doc["components"]["drafter"]["buffers"] if b["name"] == "aux_staging"]
        if method == "eagle3":
            assert doc["config"]["options"]["draft_aux_layers"] is None
            continue
        count = len(layers or [])
        assert doc["config"]["options"]["draft_aux_layers"] == count
        assert [b["shape"][1] for b in aux] == ([count * 4096] if count else [])

def test_hub_id_says_defaults_are_used() -> None:
    code, _, err = run_cli(["plan", "--", "vllm", "serve", "org/model", "--max-num-seqs", "8"])
    assert code == 0
    said = [n for n in notes(err) if "org/model" in n]
    assert said == ["model org/model: no local config.json, so graphfit's defaults are used "
                    "for hidden size, dtype and max length (pass a model directory to read "
                    "them; nothing is downloaded)"]


# ------------------------------------------------------------------------------------------
# The engine's verdict first


def test_plan_and_check_open_with_the_engines_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run_cli(["plan", "--max-num-seqs", "33", "--num-speculative-tokens", "3",
                            "--method", "dflash"])
    assert code == 0 and out.startswith("vLLM 0.34.0 V2 runner: SAFE")  # the default release
    assert out.index("SAFE") < out.index("graphfit plan:")
    # an engine whose own sizing is the legacy S*q formula (vLLM before #50065): through the
    # public API, whatever the engine model's current reference capacities are
    monkeypatch.setattr(Plan, "verify_engine",
                        lambda self: self.verify({"drafter.positions": 132}))
    args = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash",
            "--ladder", "vllm-legacy", "--runner", "v1", "--engine-version", "0.33.0"]
    code, out, _ = run_cli(["check", *args])
    assert code == 1
    assert out.splitlines()[0] == ("vLLM 0.33.0 V1 runner: UNSAFE: drafter.positions holds "
                                   "132 rows, a batch of 132 tokens pads to 136")
    code, out, _ = run_cli(["check", *args, "--capacity", "drafter.positions=max(S*q, C)"])
    assert code == 1 and "SAFE: " in out.splitlines()[-1]  # yours is safe, the engine's not
    code, out, _ = run_cli(["check", "--json", *args])
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["engine"]["ok"] is False
    assert doc["engine"]["label"] == "vLLM 0.33.0 V1 runner"
    code, out, _ = run_cli(["plan", *args])
    assert code == 0 and out.startswith("vLLM 0.33.0 V1 runner: UNSAFE")


def test_check_capacity_takes_formulas() -> None:
    args = ["check", "--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method",
            "dflash", "--ladder", "vllm-legacy", "--runner", "v1", "--engine-version", "0.33.0"]
    code, out, _ = run_cli([*args, "--capacity", "drafter.positions=S*q"])
    assert code == 1 and "num_tokens 132 pad to 136 > capacity 132" in out
    code, out, _ = run_cli([*args, "--capacity", "drafter.positions=max(S*q, C)",
                            "--capacity", "drafter.arange=T+max(S*q, C)+1"])
    assert code == 0, out
    code, _, err = run_cli([*args, "--capacity", "drafter.positions=S*x"])
    assert code == 2 and "unknown name 'x'" in err


# ------------------------------------------------------------------------------------------
# CLI basics


def test_version_and_bare_help() -> None:
    code, out, err = run_cli(["--version"])
    assert code == 0 and re.fullmatch(r"graphfit \d+\.\d+\.\d+\n", out)
    code, out, err = run_cli([])
    assert code == 0 and "Usage: graphfit" in out and not err
    assert "graphfit plan -- vllm serve MODEL" in out


def test_explain_json() -> None:
    code, out, err = run_cli(["explain", "132", "--uniform", "--json", "--max-num-seqs", "33",
                              "--num-speculative-tokens", "3", "--method", "dflash"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "graphfit.explain/1"
    rows = {(r["component"], r["buffer"]): r for r in doc["components"]}
    target = rows[("target", "input_ids")]
    assert (target["mode"], target["padded"], target["num_reqs"]) == ("FULL", 132, 33)
    assert all(r["ok"] in (True, None) for r in doc["components"])


@pytest.mark.parametrize("argv, drafter", [
    (["--method", "dflash"], ("FULL", 132, 33)),            # MRV2's DFlash drafter: FULL graphs
    (["--method", "dflash", "--runner", "v1"], ("PIECEWISE", 132, None)),  # V1: PIECEWISE only
    (["--method", "dspark"], ("NONE", 99, 33)),  # 33 requests x 3: above its graphs (<= 96)
], ids=["v2-dflash", "v1-dflash", "v2-dspark"])
def test_explain_uniform_reaches_every_runner_that_has_uniform_graphs(
        argv: list[str], drafter: tuple[str, int, int | None]) -> None:
    """A uniform decode is uniform in every component with uniform graphs, as `Plan.pad` says
    (MRV2's drafter used to be reported as not reached), at the component's own width."""
    # vLLM 0.33's runners (0.34 has no V1 and splits the capture sizes)
    code, out, err = run_cli(["explain", "132", "--uniform", "--json", "--max-num-seqs", "33",
                              "--num-speculative-tokens", "3", "--engine-version", "0.33.0",
                              *argv])
    assert code == 0, err
    rows = [r for r in json.loads(out)["components"] if r["component"] == "drafter"]
    assert rows and all((r["mode"], r["padded"], r["num_reqs"]) == drafter for r in rows)
    assert all(r["ok"] is True for r in rows)
    seed = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    assert seed.pad(132, uniform_decode=True, component="drafter").padded == 132


@pytest.mark.parametrize("argv", [
    ["plan"], ["explain", "132", "--uniform"], ["compare", "vllm", "vllm-legacy"],
], ids=lambda a: a[0])
def test_format_markdown(argv: list[str]) -> None:
    code, out, err = run_cli([*argv, "--format", "markdown", "--max-num-seqs", "33",
                              "--num-speculative-tokens", "3", "--method", "dflash"])
    assert code == 0, err
    assert "|---" in out and "┃" not in out and "\x1b[" not in out
    assert re.search(r"^\| .+ \|$", out, re.M)
    code, _, err = run_cli([*argv, "--format", "html", "--max-num-seqs", "8"])
    assert code == 2 and "format" in err


def test_output_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(["plan", "--max-num-seqs", "33", "--num-speculative-tokens", "3",
                            "--method", "dflash", "--multimodal", "--runner", "v1",
                            "--engine-version", "0.33.0"])
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "drafter.backup_next_token_ids" in out  # names are never cut
    for command in ("plan", "sweep", "optimize"):
        code, out, _ = run_cli([command, "--help"])
        assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
        names = re.findall(r"--[a-z][a-z0-9_-]*", out)
        for flag in CONFIG_FLAGS:
            if command == "plan":
                assert flag.flag in names, flag.flag
        assert "…" not in out
