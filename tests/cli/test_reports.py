"""--svg / --png reports: each command renders headless, and the figure names what it shows
(text stays text in the SVG); matplotlib stays off the start-up path and its absence is one
`error:` line."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graphfit import Plan
from tests.helpers import ROOT, needs_matplotlib, run_cli

TRACES = ROOT / "examples" / "traces"
DFLASH = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash",
          "--runner", "v1"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _render(tmp_path: Path, argv: list[str], expect: int = 0) -> str:
    """Run with --svg and --png; both files exist; returns the SVG's text content."""
    svg, png = tmp_path / "r.svg", tmp_path / "r.png"
    code, out, err = run_cli([*argv, "--svg", str(svg), "--png", str(png)])
    assert code == expect, err
    assert f"wrote {svg}" in out and f"wrote {png}" in out
    assert png.read_bytes().startswith(PNG_MAGIC) and png.stat().st_size > 10_000
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    return " ".join(" ".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))


@needs_matplotlib
def test_plan_report_names_units_sizes_and_short_buffers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _render(tmp_path, ["plan", *DFLASH, "--ladder", "vllm-legacy"])
    for needle in ("graphfit plan", "dflash k=3", "target: padding per batch (tokens)",
                   "drafter: padding per batch (tokens)", "batch size (tokens)",
                   "padding (tokens)", "33 sizes", "FULL graph", "PIECEWISE graph",
                   "uniform decode: r requests x 4 tokens", "eager",
                   "engine's own buffer sizing is safe"):
        assert needle in text, needle
    # the engine's own sizing going short is named, with its rows: an engine whose sizing is
    # the legacy S*q formula (vLLM before #50065; 0.33's own is short on no config we know)
    monkeypatch.setattr(Plan, "verify_engine",
                        lambda self: self.verify({"drafter.positions": 132}))
    text = _render(tmp_path, ["plan", *DFLASH, "--ladder", "vllm-legacy"])
    assert "drafter.positions short" in text and "136 rows > capacity 132" in text


@needs_matplotlib
def test_plan_report_speaks_requests_for_batch_size_engines(tmp_path: Path) -> None:
    text = _render(tmp_path, ["plan", "--engine", "sglang", "--max-num-seqs", "64"])
    for needle in ("batch size (requests)", "padding (requests)", "12 sizes",
                   "r requests x 1 token"):
        assert needle in text, needle
    assert "(tokens)" not in text


@needs_matplotlib
def test_sweep_report_has_a_colour_bar_and_names_the_short_buffer(tmp_path: Path) -> None:
    text = _render(tmp_path, ["sweep", "--max-num-seqs", "1..12", "--num-speculative-tokens",
                              "0..4", "--method", "dflash", "--ladder", "vllm-legacy",
                              "--max-num-batched-tokens", "512", "--workers", "1",
                              "--capacity", "drafter.positions=S*q"], expect=1)
    for needle in ("graphfit sweep", "decode padding waste", "max_num_seqs (S, requests)",
                   "num_speculative_tokens (k)", "short: drafter.positions",
                   "largest failing config", "rows > capacity"):
        assert needle in text, needle


@needs_matplotlib
def test_compare_report_shows_both_sides(tmp_path: Path) -> None:
    text = _render(tmp_path, ["compare", "vllm", "sglang-spec", "--max-num-seqs", "33",
                              "--num-speculative-tokens", "3", "--method", "eagle",
                              "--speculative-eagle-topk", "1"])
    for needle in ("graphfit compare: vllm vs sglang-spec", "uniform decode batch (requests)",
                   "padding (tokens computed)", "graphs in tokens", "graphs in requests",
                   "mixed batch size (tokens)"):
        assert needle in text, needle


@needs_matplotlib
def test_optimize_report_puts_the_trace_under_the_ladder(tmp_path: Path) -> None:
    text = _render(tmp_path, ["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                              "--max-num-seqs", "64", "--num-speculative-tokens", "3",
                              "--method", "eagle"])
    for needle in ("graphfit optimize", "share of steps (%)", "optimised (51)", "default (51)",
                   "batch size (tokens)", "padding (tokens)", "of steps > 512",
                   "vllm_cudagraph_metrics.log: 3,000 steps"):
        assert needle in text, needle


@needs_matplotlib
def test_json_output_stays_pure_with_a_report(tmp_path: Path) -> None:
    svg = tmp_path / "p.svg"
    code, out, err = run_cli(["plan", *DFLASH, "--json", "--svg", str(svg)])
    assert code == 0, err
    assert out.lstrip().startswith("{") and svg.exists()


def test_missing_matplotlib_is_one_error_line(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    code, _, err = run_cli(["plan", *DFLASH, "--svg", str(tmp_path / "x.svg")])
    assert code == 2 and not (tmp_path / "x.svg").exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "graphfit[report]" in lines[0]


def test_matplotlib_is_off_the_start_up_path() -> None:
    probe = ("import sys\nfrom graphfit.cli import main\n"
             "try:\n    main(['plan', '--max-num-seqs', '8'])\nexcept SystemExit:\n    pass\n"
             "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.strip().splitlines()[-1] == "False"
