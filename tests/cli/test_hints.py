"""Error lines that lead with the fix: did-you-mean for `--capacity` buffer names, and a
serving command pasted without `--`."""

from __future__ import annotations

import pytest

from graphfit.planner.core.limits import MAX_ERROR_CHARS
from tests.helpers import run_cli


def only_error(argv: list[str]) -> str:
    code, out, err = run_cli(argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert len(lines[0]) <= MAX_ERROR_CHARS and not out
    return lines[0]


@pytest.mark.parametrize(("typed", "meant"), [
    ("target.input_idz", "target.input_ids"), ("target.position", "target.positions"),
    ("target.slot_maping", "target.slot_mapping"), ("targt.seq_lens", "target.seq_lens")])
def test_capacity_did_you_mean(typed: str, meant: str) -> None:
    line = only_error(["check", "--max-num-seqs", "8", "--capacity", f"{typed}=8"])
    assert line.startswith(f"error: capacity: did you mean {meant}?"), line


def test_capacity_bare_name_gets_its_component() -> None:
    line = only_error(["check", "--max-num-seqs", "8", "--capacity", "positions=8"])
    assert line.startswith("error: capacity: use target.positions=FORMULA"), line


def test_capacity_long_name_is_cut_not_the_advice() -> None:
    line = only_error(["check", "--max-num-seqs", "8", "--capacity",
                       "target.input_idz" + "x" * 5000 + "=8"])
    assert "is not a buffer of this plan" in line


@pytest.mark.parametrize("argv", [
    ["plan", "vllm", "serve", "m", "--max-num-seqs", "8"],
    ["vllm", "serve", "m"],
    ["check", "sglang serve m --tp 2"],
    ["check", "python", "-m", "sglang.launch_server", "--model-path", "m"],
    ["plan", "trtllm-serve", "m"],
])
def test_serving_command_without_dashes_gets_a_hint(argv: list[str]) -> None:
    line = only_error(argv)
    assert line.startswith("error: put `--` before the serving command: graphfit "), line


def test_other_usage_errors_are_unchanged() -> None:
    assert only_error(["plan", "--bogus"]) == "error: No such option: --bogus"
