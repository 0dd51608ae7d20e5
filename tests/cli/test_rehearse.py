"""`graphfit rehearse`: every graph of the plan captured on the CPU backend, one batch per graph
replayed against eager; a progress bar on a terminal, plain lines when piped; bad input is one
`error:` line and exit 2."""

from __future__ import annotations

import io
import re
import sys
from typing import Any

import pytest
import torch
from rich.console import Console
from typer.testing import CliRunner

import graphfit
from graphfit.cli import app
from graphfit.cudagraph import rehearsal
from tests.helpers import run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
runner = CliRunner()
SEED = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"]
LINE = re.compile(r"^  (\w+): (\d+) graphs captured, (\d+) replayed == eager", re.M)


def _counts(out: str) -> dict[str, tuple[int, int]]:
    return {m[1]: (int(m[2]), int(m[3])) for m in LINE.finditer(out)}


@pytest.mark.parametrize(("argv", "config"), [
    (SEED, graphfit.EngineConfig(max_num_seqs=33, num_speculative_tokens=3,
                                 spec_method="dflash")),
    (["--engine", "sglang", "--max-running-requests", "16"],
     graphfit.EngineConfig(engine="sglang", max_num_seqs=16)),
    (["--engine", "trtllm", "--max-batch-size", "8", "--max-num-tokens", "1024"],
     graphfit.EngineConfig(engine="trtllm", max_num_seqs=8, max_num_batched_tokens=1024)),
])
def test_every_graph_of_the_plan_is_captured_and_replayed(argv: list[str],
                                                          config: graphfit.EngineConfig) -> None:
    result = runner.invoke(app, ["rehearse", *argv])
    assert result.exit_code == 0, result.output
    p = graphfit.plan(config)
    counts = _counts(result.output)
    assert counts and set(counts) <= set(p.components)
    for component, (graphs, replayed) in counts.items():
        # the toy forwards read per-token buffers only, so a graph per padded size: every
        # size of the plan's ladder for that component, and each one replayed
        assert graphs == len({k.padded for k in p.graph_keys(component)}) == replayed
    total = sum(g for g, _ in counts.values())
    assert f"REHEARSED: {total} graphs captured and {total} batches replayed bit-equal" \
        in result.output
    assert "\x1b[" not in result.output and "capturing" not in result.output  # piped: plain


def test_a_terminal_gets_a_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    term = Console(file=screen, force_terminal=True, width=120, highlight=False)
    monkeypatch.setattr("graphfit.cli.rehearsal.console", lambda: term)
    result = runner.invoke(app, ["rehearse", *SEED])
    assert result.exit_code == 0, result.output
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    total = sum(g for g, _ in _counts(shown).values())
    assert "capturing" in shown and f"{total}/{total}" in shown  # the bar, finished
    assert "REHEARSED:" in shown


def test_a_replay_that_differs_from_eager_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    forward = rehearsal.ToyForward.forward

    def drifting(self: Any, views: Any) -> torch.Tensor:
        calls[0] += 1  # a forward that is not a function of its inputs: graphs go stale
        out: torch.Tensor = forward(self, views)
        return out + calls[0]

    monkeypatch.setattr(rehearsal.ToyForward, "forward", drifting)
    result = runner.invoke(app, ["rehearse", *SEED])
    assert result.exit_code == 1
    assert "!= eager" in result.output and result.output.rstrip().splitlines()[-1].startswith(
        "FAILED:")


_NO_GPU = [] if torch.cuda.is_available() else [[*SEED, "--device", "cuda"]]


@pytest.mark.parametrize("argv", [["--max-num-seqs", "0"], ["--method", "dflash"],
                                  [*SEED, "--ladder", "nope"], [*SEED, "--device", "tpu"],
                                  [*SEED, "--device", "cuda:99"], [*SEED, "--device", ""],
                                  *_NO_GPU])
def test_bad_input_is_one_error_line(argv: list[str]) -> None:
    code, out, err = run_cli(["rehearse", *argv])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) <= 200


def test_without_torch_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "graphfit.cudagraph.rehearsal", None)
    monkeypatch.delattr("graphfit.cudagraph.rehearsal", raising=False)
    code, out, err = run_cli(["rehearse", *SEED])
    assert code == 2 and out == ""
    assert err.startswith("error: rehearse needs torch") and "graphfit[torch]" in err


def test_cpu_device_names_the_backend() -> None:
    code, out, _ = run_cli(["rehearse", *SEED, "--hidden-size", "64", "--device", "cpu"])
    assert code == 0 and "CPU backend" in out and "capture pool" not in out
