"""CLI: plan/check/explain through typer's runner, and bad input through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphfit.cli import app
from tests.helpers import run_cli

SEED = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash",
        "--runner", "v1", "--engine-version", "0.33.0"]  # the seed bug is the V1 runner's
runner = CliRunner()




def test_plan_shows_ladder_buffers_and_verdict() -> None:
    result = runner.invoke(app, ["plan", *SEED])
    assert result.exit_code == 0, result.output
    for text in ("Capture ladder", "Persistent buffers", "drafter.positions", "SAFE", "132"):
        assert text in result.output


def test_plan_json_has_schema_and_safe_capacities() -> None:
    result = runner.invoke(app, ["plan", *SEED, "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["schema"] == "graphfit.plan/3"
    assert doc["verification"]["ok"] is True
    assert doc["ladder"]["max_capture_size"] == 256
    positions = next(b for b in doc["components"]["drafter"]["buffers"]
                     if b["name"] == "positions")
    assert positions["capacity"] == 132 and positions["reference_capacity"] == 256


def test_check_short_sizing_exits_1_with_counterexamples() -> None:
    result = runner.invoke(app, ["check", *SEED, "--ladder", "vllm-legacy",
                                 "--capacity", "drafter.positions=132"])
    assert result.exit_code == 1
    assert "num_tokens 132 pad to 136 > capacity 132" in result.output


def test_check_safe_sizing_exits_0() -> None:
    result = runner.invoke(app, ["check", *SEED, "--capacity", "drafter.positions=256"])
    assert result.exit_code == 0 and "SAFE" in result.output


def test_check_json() -> None:
    result = runner.invoke(app, ["check", *SEED, "--ladder", "vllm-legacy", "--json",
                                 "--capacity", "drafter.positions=132"])
    doc = json.loads(result.output)
    assert result.exit_code == 1 and doc["ok"] is False
    assert doc["ranges"][0] == {"buffer": "drafter.positions", "first": 132, "last": 132,
                                "padded": 136, "needed": 136, "capacity": 132}


def test_explain_shows_dispatch() -> None:
    result = runner.invoke(app, ["explain", "132", *SEED, "--uniform"])
    assert result.exit_code == 0
    assert "FULL" in result.output and "PIECEWISE" in result.output


def test_plan_round_trip_through_check(tmp_path: Path) -> None:
    doc = runner.invoke(app, ["plan", *SEED, "--json"]).output
    path = tmp_path / "p.json"
    path.write_text(doc)
    assert runner.invoke(app, ["check", "--plan", str(path)]).exit_code == 0


@pytest.mark.parametrize("args, needle", [
    (["plan", "--max-num-seqs", "0"], "max_num_seqs"),
    (["plan", "--max-num-seqs", "-4"], "max_num_seqs"),
    (["plan"], "max_num_seqs"),
    (["plan", *SEED[:4], "--method", "medusa9"], "spec_method"),
    (["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes", "1,x,3"], "expected an integer"),
    (["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes", "[1, 2"], "malformed"),
    (["plan", "--max-num-seqs", "8", "--max-num-batched-tokens", "0"], "max_num_batched"),
    (["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes", "1,2,4",
      "--max-cudagraph-capture-size", "8"], "max_cudagraph_capture_size"),
    (["plan", "--max-num-seqs", "abc"], "max-num-seqs"),
    (["check", *SEED, "--capacity", "drafter.positions"], "capacity"),
    (["check", *SEED, "--capacity", "drafter.nothing=3"], "nothing"),
    (["check", "--plan", "/nonexistent/p.json"], "p.json"),
    (["check", *SEED, "--plan", "p.json"], "not both"),
    (["check"], "max_num_seqs"),
    (["explain", "0", *SEED], "num_tokens"),
    (["explain", "7", *SEED, "--uniform"], "num_tokens"),
    (["frobnicate"], "frobnicate"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    code, _, err = run_cli(args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert needle in lines[0]
    assert "Traceback" not in err


def test_unsorted_duplicated_sizes_are_sorted_with_a_warning() -> None:
    # vLLM sorts and de-duplicates a user list (config/vllm.py:2558-2571)
    result = runner.invoke(app, ["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes",
                                 "4,2,2"])
    assert result.exit_code == 0, result.output
    assert "sorted and de-duplicated" in result.output


def test_tampered_plan_is_rejected(tmp_path: Path) -> None:
    doc = json.loads(runner.invoke(app, ["plan", *SEED, "--json"]).output)
    doc["ladder"]["capture_sizes"] = [1, 2, 4]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and "ladder" in err
    path.write_text("{not json")
    code, _, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and "malformed JSON" in err


def test_plan_does_not_import_torch() -> None:
    code = ("import sys; from graphfit.cli import main\n"
            "try:\n    main(['plan', '--max-num-seqs', '33', '--num-speculative-tokens', '3',"
            " '--method', 'dflash', '--json'])\nexcept SystemExit as e:\n    assert not e.code\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_python_m_graphfit() -> None:
    out = subprocess.run([sys.executable, "-m", "graphfit", "plan", *SEED, "--json"],
                         check=True, capture_output=True, text=True).stdout
    assert json.loads(out)["schema"] == "graphfit.plan/3"


def test_check_audits_a_fixed_size_buffer() -> None:
    """`--capacity` on a buffer vLLM fills whole at every drafter step (MRV2 DFlash's S*k
    sampling slots): fewer rows than that is a violation (exit 1), never a silent SAFE."""
    seed = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash",
            "--runner", "v2"]
    code, out, _ = run_cli(["check", *seed, "--capacity", "drafter.sample_indices=5"])
    assert code == 1
    assert ("drafter.sample_indices: num_tokens 4-132 (every 4) write all 99 rows of this "
            "fixed-size buffer > capacity 5") in out
    code, out, _ = run_cli(["check", *seed, "--capacity", "drafter.sample_indices=99",
                            "--json"])
    assert code == 0 and json.loads(out)["ok"]
