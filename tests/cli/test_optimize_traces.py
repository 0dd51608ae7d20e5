"""`graphfit optimize --trace` on what vLLM servers record: their warnings reach the user."""

from __future__ import annotations

import json

from tests.helpers import ROOT, run_cli

TRACES = ROOT / "examples" / "traces"
# the traces are a vLLM 0.33.0 server's (examples/traces/generate.py: RELEASE)
SPEC = ["--engine-version", "0.33.0", "--max-num-seqs", "64", "--num-speculative-tokens", "3",
        "--method", "eagle"]
CHAT = ["--engine-version", "0.33.0", "--max-num-seqs", "256", "--max-num-batched-tokens", "2048"]


def test_a_cudagraph_metrics_log_with_its_own_flags_is_clean() -> None:
    code, out, err = run_cli(["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                              *SPEC, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["trace"]["format"] == "vllm-log" and doc["trace"]["total_weight"] == 3000
    assert doc["trace"]["warnings"] == []
    assert doc["equal_count"]["expected_waste"] < doc["baseline"]["expected_waste"]


def test_a_log_recorded_with_other_flags_warns_next_to_the_result() -> None:
    code, out, err = run_cli(["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                              "--max-num-seqs", "64"])
    assert code == 0, err
    text = " ".join(out.split())  # rich wraps long warnings
    assert "capture sizes differ" in text and "which this config does not capture" in text


def test_prometheus_samples_say_how_exact_they_are() -> None:
    runs = {}
    for name in ("vllm_metrics_exact.prom", "vllm_metrics_default.prom"):
        code, out, err = run_cli(["optimize", "--trace", str(TRACES / name), *CHAT, "--json"])
        assert code == 0, err
        runs[name] = json.loads(out)
    exact, coarse = (runs[n]["trace"] for n in ("vllm_metrics_exact.prom",
                                                 "vllm_metrics_default.prom"))
    assert exact["format"] == coarse["format"] == "prometheus"
    assert not any("within a bucket" in w for w in exact["warnings"])
    assert any("within a bucket" in w and "[1, 2, ..., 512]" in w for w in coarse["warnings"])
    assert all(any("not the tokens it schedules" in w for w in t["warnings"])
               for t in (exact, coarse))


def test_a_vllm_trace_for_a_batch_size_engine_is_refused() -> None:
    code, _, err = run_cli(["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                            "--engine", "sglang", "--max-num-seqs", "64"])
    assert code == 2 and err.startswith("error:") and "counts tokens per step" in err


def test_how_much_the_recording_limits_the_ladder() -> None:
    """The optimize page's figures (docs/operators/optimize.md): a ladder from coarse buckets,
    judged on the exact histogram, and one from the exact histogram, judged on the steps the
    engine scheduled."""
    from graphfit import EngineConfig
    from graphfit.inputs.traces import load_trace, read_trace
    from graphfit.planner.tuning.optimize import ladder_cost
    from graphfit.planner.tuning.tune import tune

    config = EngineConfig(max_num_seqs=256, max_num_batched_tokens=2048)
    exact, _ = read_trace(TRACES / "vllm_metrics_exact.prom").for_config(config)
    coarse, _ = read_trace(TRACES / "vllm_metrics_default.prom").for_config(config)
    scheduled = load_trace(TRACES / "chat_chunked_prefill.csv")
    on_exact, on_coarse = tune(config, exact), tune(config, coarse)
    from_coarse = ladder_cost(on_coarse.chosen.sizes, exact).expected_waste
    assert (f"{on_exact.chosen.expected_waste:.2f}", f"{from_coarse:.2f}",
            f"{on_exact.baseline.expected_waste:.2f}") == ("1.46", "1.66", "2.32")
    on_scheduled = tune(config, scheduled)
    from_histogram = ladder_cost(on_exact.chosen.sizes, scheduled).expected_waste
    assert (f"{on_scheduled.chosen.expected_waste:.2f}", f"{from_histogram:.2f}",
            f"{on_scheduled.baseline.expected_waste:.2f}") == ("1.34", "1.41", "2.10")
