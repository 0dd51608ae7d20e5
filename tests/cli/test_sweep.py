"""Sweeps agree with planning and verifying each config on its own; the CLI reports them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphfit import ConfigError, plan
from graphfit.cli import app
from graphfit.inputs.ranges import parse_range
from graphfit.planner.analysis.capexpr import capacities_for
from graphfit.planner.analysis.sweep import point_config, sweep
from tests.helpers import needs_matplotlib

runner = CliRunner()
BASE = {"spec_method": "dflash", "ladder": "vllm-legacy", "max_num_batched_tokens": 512}
AXES = {"max_num_seqs": tuple(range(1, 13)), "num_speculative_tokens": tuple(range(0, 5))}
SHORT = {"drafter.positions": "S*q"}


def test_parse_range() -> None:
    assert parse_range("x", "1..4") == (1, 2, 3, 4)
    assert parse_range("x", "8..32/8,1,2") == (1, 2, 8, 16, 24, 32)
    assert parse_range("x", "0") == (0,)
    for bad in ("", "a..b", "4..1", "1..8/0", "-1..3"):
        with pytest.raises(ConfigError, match="x:"):
            parse_range("x", bad)


@given(st.integers(0, 500), st.integers(0, 500), st.integers(1, 50))
def test_parse_range_is_python_range(lo: int, span: int, step: int) -> None:
    assert parse_range("x", f"{lo}..{lo + span}/{step}") == tuple(range(lo, lo + span + 1, step))


def test_sweep_agrees_with_each_config_verified_alone() -> None:
    result = sweep(BASE, AXES, SHORT, workers=1)
    assert len(result.results) == 12 * 5
    for r in result.results:
        p = plan(point_config(BASE, r.point))
        alone = p.verify(capacities_for(p, SHORT, skip_missing=True))
        assert r.ok == alone.ok, r.point
        assert len(r.ranges) == len(alone.ranges())
    assert result.failing and all(r.point["num_speculative_tokens"] > 0 for r in result.failing)


def test_workers_find_the_same_failures() -> None:
    alone = sweep(BASE, AXES, SHORT, workers=1)
    pooled = sweep(BASE, AXES, SHORT, workers=2, chunk_size=8)
    assert [r.point for r in pooled.results] == [r.point for r in alone.results]
    assert [r.ranges for r in pooled.failing] == [r.ranges for r in alone.failing]
    assert pooled.checked == alone.checked


def test_graphfit_capacities_are_safe_across_the_grid() -> None:
    result = sweep(BASE, AXES, workers=1)
    assert result.ok and not result.invalid and result.checked > 0


def test_invalid_points_are_reported_not_raised() -> None:
    result = sweep({"max_num_batched_tokens": 8}, {"max_num_seqs": (4, 8, 16)}, workers=1)
    assert [r.point["max_num_seqs"] for r in result.invalid] == [16]
    assert "max_num_batched_tokens" in result.invalid[0].error


def test_unknown_buffer_is_rejected_before_sweeping() -> None:
    with pytest.raises(ConfigError, match="no config of the sweep has buffer"):
        sweep(BASE, AXES, {"drafter.positons": "S*q"}, workers=1)


ARGS = ["sweep", "--max-num-seqs", "1..12", "--num-speculative-tokens", "0..4", "--method",
        "dflash", "--ladder", "vllm-legacy", "--max-num-batched-tokens", "512",
        "--workers", "1"]


@needs_matplotlib
def test_cli_sweep_reports_failing_configs(tmp_path: Path) -> None:
    svg = tmp_path / "report.svg"
    result = runner.invoke(app, [*ARGS, "--capacity", "drafter.positions=S*q",
                                 "--svg", str(svg)])
    assert result.exit_code == 1, result.output
    assert "UNSAFE" in result.output and "drafter.positions" in result.output
    root = ET.parse(svg).getroot()  # well-formed, self-contained SVG
    assert root.tag.endswith("svg") and "drafter.positions" in svg.read_text()


def test_cli_sweep_json_and_safe_exit(tmp_path: Path) -> None:
    result = runner.invoke(app, [*ARGS, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "graphfit.sweep/1" and doc["configs"] == 60
    assert doc["failing"] == 0 and len(doc["results"]) == 60


def test_cli_sweep_has_no_fast_mode() -> None:
    # every point is verified exhaustively; the old shortcut flag is gone, not ignored
    result = runner.invoke(app, [*ARGS, "--fast"])
    assert result.exit_code == 2 and "--fast" in result.output


@pytest.mark.parametrize(("extra", "needle"), [
    (["--capacity", "drafter.positions=S*x"], "unknown name 'x'"),
    (["--capacity", "drafter.positions"], "component.buffer=FORMULA"),
    (["--max-num-seqs", "9..1"], "--max-num-seqs"),
])
def test_cli_sweep_bad_input(extra: list[str], needle: str) -> None:
    result = runner.invoke(app, [*ARGS, *extra])
    assert result.exit_code == 2 and needle in result.output


def test_failing_table_says_why_a_config_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    """S=3, k=4 on the legacy ladder goes short on drafter.positions for two batch families
    (captures, queries) and in the covered attention scenario: three rows, each saying which,
    and the caption says why rows repeat; the scenario's brackets are not eaten as markup."""
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, ["sweep", "--workers", "1", "--max-num-seqs", "3",
                                 "--num-speculative-tokens", "4", "--method", "dflash",
                                 "--runner", "v1", "--engine-version", "0.33.0",
                                 "--ladder", "vllm-legacy",
                                 "--capacity", "drafter.positions=S*q"])
    assert result.exit_code == 1, result.output
    rows = [line for line in result.output.splitlines() if "drafter.positions" in line]
    assert len(rows) == 3
    assert "capture (every captured size)" in rows[0] and "query [attention support" in rows[1]
    for header in ("short on", "batch (tokens)", "padded (tokens)", "capacity (rows)"):
        assert header in result.output
    assert "one row per family of batches (and attention scenario)" in result.output
