"""What a pasted line leaves open, through the public CLI: vLLM's batch defaults on the GPU
`--gpu-memory-gb` names, SGLang lines without --max-running-requests, SGLang's refusals and
roles, and the verdict's line on what runs without a graph. (The values themselves are
compared with the engines' own pipelines in tests/oracle/test_line_defaults_oracle.py.)"""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli

ISSUE_LINE = ("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct -tp 4 --speculative-config "
              "'{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 2}' "
              "--max-num-batched-tokens 512")


def config_of(*argv: str) -> tuple[dict[str, object], str]:
    code, out, err = run_cli(["plan", "--json", *argv])
    assert code == 0, err
    config: dict[str, object] = json.loads(out)["config"]
    return config, err


def test_issue_line_plans_with_sequences_lowered_to_tokens() -> None:
    config, err = config_of("--", ISSUE_LINE)
    assert (config["max_num_seqs"], config["max_num_batched_tokens"]) == (512, 512)
    assert "max_num_seqs lowered to max_num_batched_tokens" in err
    assert "an 80 GB GPU is assumed" in err


@pytest.mark.parametrize(("gpu", "expected"), [
    ("B200", (1024, 16384)), ("H200", (1024, 8192)), ("A100", (256, 2048)),
    ("24", (256, 2048)), ("H100", (1024, 8192))])
def test_gpu_decides_vllm_defaults(gpu: str, expected: tuple[int, int]) -> None:
    config, err = config_of("--gpu-memory-gb", gpu, "--", "vllm serve m")
    assert (config["max_num_seqs"], config["max_num_batched_tokens"]) == expected
    assert "gpu_memory_gb" not in config or config["gpu_memory_gb"] is None
    assert "80 GB GPU is assumed" not in err


def test_sglang_line_without_max_running_requests_plans() -> None:
    config, err = config_of("--", "sglang serve m --tp 2")
    assert config["engine"] == "sglang" and config["options"]["gpu_memory_gb"] == 80.0  # type: ignore[index]
    assert "an 80 GB GPU is assumed" in err
    config, _ = config_of("--", "sglang serve m --speculative-algorithm EAGLE "
                                "--speculative-num-steps 3 --speculative-eagle-topk 1 "
                                "--speculative-num-draft-tokens 4")
    assert config["max_num_seqs"] == 48  # speculative_hook.py:1086-1094


@pytest.mark.parametrize(("line", "advice"), [
    ("--speculative-algorithm EAGLE --speculative-eagle-topk 4 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 8 --attention-backend trtllm_mha",
     "use --speculative-eagle-topk 1 or another attention backend"),
    ("--speculative-algorithm EAGLE --speculative-eagle-topk 4 --speculative-num-steps 3 "
     "--speculative-num-draft-tokens 8 --speculative-use-rejection-sampling",
     "use --speculative-eagle-topk 1 with --speculative-use-rejection-sampling"),
    ("--speculative-algorithm NGRAM --page-size 16 --attention-backend fa3",
     "use --page-size 1 or --attention-backend flashinfer"),
])
def test_sglang_refusals_lead_with_the_fix(line: str, advice: str) -> None:
    code, _, err = run_cli(["plan", "--", f"sglang serve m {line}"])
    errors = [x for x in err.splitlines() if x.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and errors[0].startswith(f"error: {advice}"), err


def test_prefill_role_captures_no_decode_graphs() -> None:
    config, err = config_of("--", "sglang serve m --disaggregation-mode prefill "
                                  "--max-running-requests 64")
    assert config["cudagraph_mode"] == "NONE" and "captures no decode graphs" in err
    config, _ = config_of("--", "sglang serve m --disaggregation-mode prefill "
                                "--cuda-graph-backend-decode full --max-running-requests 64")
    assert config["cudagraph_mode"] == "FULL"  # an explicit decode backend is kept


@pytest.mark.parametrize("command", ["plan", "check"])
def test_verdict_says_what_runs_eager(command: str) -> None:
    code, out, err = run_cli([command, "--", "vllm serve m --speculative-config "
                              "'{\"method\": \"mtp\", \"num_speculative_tokens\": 4}'"])
    assert code == 0, err
    lines = out.splitlines()
    verdict = next(i for i, x in enumerate(lines) if ": SAFE: every reachable" in x)
    slow = " ".join(lines[verdict + 1:verdict + 3])
    assert slow.startswith("eager: 922 of 1,024 uniform-decode sizes (90%)"), slow
    assert "--max-cudagraph-capture-size 5120 leaves 0" in slow
    code, out, _ = run_cli([command, "--max-num-seqs", "64"])
    assert "eager: none: every uniform decode of 1..64 requests replays a graph" in out


def test_optimize_says_what_runs_eager_on_the_trace() -> None:
    from tests.helpers import ROOT

    trace = str(ROOT / "examples/traces/decode_batches.csv")
    code, out, err = run_cli(["optimize", "--engine", "sglang", "--max-running-requests",
                              "256", "--trace", trace])
    assert code == 0, err
    text = " ".join(out.split())
    assert "eager: 96 of 256 uniform-decode sizes (38%) run without a graph;" in text
    assert "of the trace's steps run without a graph" in text
