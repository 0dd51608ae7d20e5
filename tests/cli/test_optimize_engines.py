"""`graphfit optimize` for batch-size engines (SGLang, TensorRT-LLM: requests), `--include`,
the graph counts the verdict compares, and the small-decode warning next to the paste line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from graphfit import EngineConfig, plan
from tests.helpers import ROOT, run_cli

BATCHES = ROOT / "examples" / "traces" / "decode_batches.csv"
CHAT = ["--max-num-seqs", "256", "--max-num-batched-tokens", "2048"]


def _optimize(*argv: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run_cli(["optimize", *argv, "--json"])
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_batch_size_engines_optimise_in_requests(engine: str) -> None:
    doc = _optimize("--engine", engine, *CHAT, "--trace", str(BATCHES))
    base = plan(EngineConfig(engine=engine, max_num_seqs=256, max_num_batched_tokens=2048,
                             cuda_graph_padding=True))
    sizes = doc["optimized"]["capture_sizes"]
    assert sizes[-1] == doc["max_capture_size"] == base.max_capture_size
    assert doc["equal_count"]["num_graphs"] == doc["baseline"]["num_graphs"] == len(
        base.capture_sizes)
    assert doc["optimized"]["expected_waste"] < doc["baseline"]["expected_waste"]
    assert doc["multiple_of"] == 1 and doc["verification"]["ok"]
    # the engine captures exactly the pasted list
    tuned = plan(EngineConfig(engine=engine, max_num_seqs=256, max_num_batched_tokens=2048,
                              cuda_graph_padding=True, cudagraph_capture_sizes=tuple(sizes)))
    assert list(tuned.capture_sizes) == sizes
    paste = doc["paste"]
    assert paste["engine"] == engine
    if engine == "sglang":
        assert paste["lines"] == ["--cuda-graph-bs-decode " + " ".join(map(str, sizes))]
    else:  # the YAML block of --extra_llm_api_options, padding turned on
        block = yaml.safe_load("\n".join(paste["lines"]))["cuda_graph_config"]
        assert block == {"enable_padding": True, "batch_sizes": sizes}
        assert any("padding is off" in w for w in doc["warnings"])


def test_the_text_speaks_requests_and_warns_next_to_the_paste_line() -> None:
    code, out, err = run_cli(["optimize", "--engine", "sglang", *CHAT, "--trace", str(BATCHES)])
    assert code == 0, err
    lines = out.strip().splitlines()
    assert "waste req/step" in out
    assert lines[-1].startswith("--cuda-graph-bs-decode ")
    tail = " ".join(" ".join(lines[-4:-1]).split())
    assert "no size below 21: a 1-request decode pads to 21; 2 requests pad to 21" in tail
    assert "small decodes padded past twice their size (requests)" in tail
    assert "--include 1,2,4,8 keeps sizes for them" in tail


def test_include_keeps_sizes_and_silences_the_warning() -> None:
    plain = _optimize("--engine", "sglang", *CHAT, "--trace", str(BATCHES))
    kept = _optimize("--engine", "sglang", *CHAT, "--trace", str(BATCHES),
                     "--include", "1,2,4,8")
    assert kept["include"] == [1, 2, 4, 8]
    assert kept["optimized"]["capture_sizes"][:4] == [1, 2, 4, 8]
    assert kept["optimized"]["num_graphs"] == plain["optimized"]["num_graphs"]
    assert kept["paste"]["warnings"] == [] and plain["paste"]["warnings"]
    # keeping sizes costs a little on this trace, never more than the default ladder
    assert plain["optimized"]["expected_waste"] <= kept["optimized"]["expected_waste"]
    assert kept["optimized"]["expected_waste"] < kept["baseline"]["expected_waste"]


@pytest.mark.parametrize(("version", "graphs"), [("0.33.0", 4), ("0.34.0", 5)])
def test_the_verdict_names_the_graph_counts_it_compares(tmp_path: Path, version: str,
                                                        graphs: int) -> None:
    """3 useful sizes and the max: 4 graphs; vLLM 0.34 also captures the full-batch decode
    (64 requests), which the optimised ladder then keeps: 5."""
    trace = tmp_path / "few.csv"
    trace.write_text("num_tokens,count\n3,40\n17,5\n100,1\n")
    code, out, err = run_cli(["optimize", "--max-num-seqs", "64", "--trace", str(trace),
                              "--engine-version", version])
    assert code == 0, err
    default = len(plan(EngineConfig(max_num_seqs=64, engine_version=version)).capture_sizes)
    text = " ".join(out.split())
    assert f"with {graphs} graphs against its {default}" in text
    assert "equal graph count" not in text
    assert ("--cudagraph-capture-sizes 3 17 64 100 128" in text) == (version == "0.34.0")


@pytest.mark.parametrize(("argv", "message"), [
    (["--engine", "sglang", "--max-num-seqs", "64", "--trace",
      str(ROOT / "examples" / "traces" / "decode_heavy_spec.csv")], "counts tokens"),
    (["--max-num-seqs", "256", "--trace", str(BATCHES)], "counts requests"),
    (["--engine", "sglang", "--max-num-seqs", "64", "--trace", str(BATCHES)],
     "batch size 256 exceeds max_num_seqs 64"),
    (["--engine", "sglang", *CHAT, "--trace", str(BATCHES), "--include", "1,x"],
     "include"),
    (["--engine", "sglang", *CHAT, "--trace", str(BATCHES), "--include", "999"],
     "above the max capture size"),
])
def test_mismatched_traces_and_bad_includes_are_one_error_line(argv: list[str],
                                                               message: str) -> None:
    code, _, err = run_cli(["optimize", *argv])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err


# the vLLM traces are a vLLM 0.33.0 server's (examples/traces/generate.py: RELEASE)
V033 = ["--engine-version", "0.33.0"]
README_ROWS = {  # docs/operators/optimize.md "Measured on the committed traces": trace, flags
    "`chat_chunked_prefill.csv`": ([*V033, "--max-num-seqs", "256", "--max-num-batched-tokens",
                                    "2048"], "chat_chunked_prefill.csv"),
    "`interactive_low_concurrency.json`": ([*V033, "--max-num-seqs", "32"],
                                           "interactive_low_concurrency.json"),
    "`decode_heavy_spec.csv`": ([*V033, "--max-num-seqs", "64", "--num-speculative-tokens", "3",
                                 "--method", "eagle"], "decode_heavy_spec.csv"),
    "`vllm_cudagraph_metrics.log`": ([*V033, "--max-num-seqs", "64", "--num-speculative-tokens",
                                      "3", "--method", "eagle"], "vllm_cudagraph_metrics.log"),
    "`vllm_metrics_exact.prom`": ([*V033, *CHAT], "vllm_metrics_exact.prom"),
    "`vllm_metrics_default.prom`": ([*V033, *CHAT], "vllm_metrics_default.prom"),
}


def test_the_readme_table_is_what_optimize_measures() -> None:
    """Every row of the optimize page's measured table, re-run (default and optimised in one
    run)."""
    text = (ROOT / "docs" / "operators" / "optimize.md").read_text()
    table = text[text.index("| trace | config | graphs | default waste"):]
    lines = table.splitlines()[2:]
    rows = [r.split("|")[1:-1] for r in lines[:next(i for i, r in enumerate(lines)
                                                   if not r.startswith("|"))]]
    previous: tuple[list[str], str] | None = None
    checked = 0
    for cells in rows:
        name, config, graphs, default, optimised, reduction, warned = (c.strip() for c in cells)
        extra: list[str] = []
        if name.startswith("same, `--include"):
            assert previous is not None
            argv, file = previous
            extra = ["--include", name.split("--include ")[1].rstrip("`")]
        elif name == "`decode_batches.csv`":
            engine = "sglang" if config.startswith("SGLang") else "trtllm"
            argv, file = ["--engine", engine, *CHAT], "decode_batches.csv"
        else:
            argv, file = README_ROWS[name]
        previous = (argv, file)
        doc = _optimize(*argv, *extra, "--trace", str(ROOT / "examples" / "traces" / file))
        assert str(doc["baseline"]["num_graphs"]) == graphs == str(doc["optimized"]["num_graphs"])
        assert default.split()[0] == f"{doc['baseline']['expected_waste']:.2f}", name
        assert optimised.split()[0] == f"{doc['optimized']['expected_waste']:.2f}", name
        assert reduction.strip("*").split("%")[0] == f"{100 * doc['reduction']['fraction']:.1f}"
        assert (warned == "yes") == bool(doc["paste"]["warnings"]), name
        checked += 1
    assert checked == 10
