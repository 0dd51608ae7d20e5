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
          "--runner", "v1", "--engine-version", "0.33.0"]
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
                   "padding (tokens)", "capture sizes (33)", "FULL graph", "PIECEWISE graph",
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
    text = _render(tmp_path, ["plan", "--engine", "sglang", "--max-num-seqs", "64",
                              "--cuda-graph-backend-prefill", "disabled"])
    for needle in ("batch size (requests)", "padding (requests)", "capture sizes (12)",
                   "r requests x 1 token"):
        assert needle in text, needle
    assert "(tokens)" not in text
    # SGLang's prefill graphs (on by default) are keyed on tokens, and say so
    text = _render(tmp_path, ["plan", "--engine", "sglang", "--max-num-seqs", "64"])
    assert "prefill: padding per batch (tokens)" in text and "batch size (requests)" in text


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
                   "padding (tokens computed)", "graphs (tokens)", "graphs (requests)",
                   "vllm capture sizes", "sglang-spec capture sizes", "mean padding",
                   "mixed batch size (tokens)"):
        assert needle in text, needle


@needs_matplotlib
def test_optimize_report_puts_the_trace_under_the_ladder(tmp_path: Path) -> None:
    text = _render(tmp_path, ["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                              "--engine-version", "0.33.0", "--max-num-seqs", "64",
                              "--num-speculative-tokens", "3", "--method", "eagle"])
    for needle in ("graphfit optimize", "share of steps (%)", "optimised capture sizes (51)",
                   "default capture sizes (51)",
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


@needs_matplotlib
def test_plan_report_prints_its_key_numbers(tmp_path: Path) -> None:
    text = _render(tmp_path, ["plan", *DFLASH, "--ladder", "vllm-legacy"])
    for needle in ("persistent buffers", "graphfit's plan SAFE over", "batch/buffer checks",
                   "graphs up to", "% padding, worst +"):
        assert needle in text, needle


@needs_matplotlib
def test_plan_capacity_marks_the_audited_sizing_short(tmp_path: Path) -> None:
    """`plan --capacity` audits a sizing as `check` does (exit 1) and the report marks it."""
    text = _render(tmp_path, ["plan", *DFLASH, "--ladder", "vllm-legacy",
                              "--capacity", "drafter.positions=132"], expect=1)
    assert "The --capacity sizing goes short" in text
    assert "drafter.positions: 136 rows" in text and "capacity 132" in text
    code, out, _ = run_cli(["plan", *DFLASH, "--ladder", "vllm-legacy",
                            "--capacity", "drafter.positions=136"])
    assert code == 0 and "SAFE" in out.splitlines()[-1]


@needs_matplotlib
def test_optimize_report_carries_the_small_decode_warning(tmp_path: Path) -> None:
    code, out, _ = run_cli(["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                            "--engine-version", "0.33.0", "--max-num-seqs", "64",
                            "--num-speculative-tokens", "3", "--method", "eagle"])
    assert code == 0 and "warning: no size below 16" in out  # what the terminal says
    text = _render(tmp_path, ["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                              "--engine-version", "0.33.0", "--max-num-seqs", "64",
                              "--num-speculative-tokens", "3", "--method", "eagle"])
    assert "warning: no size below 16" in text


@needs_matplotlib
def test_panels_line_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every panel's plot area spans the same horizontal extent (legends sit in their own
    column), in the plan, sweep, compare and optimize figures."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from graphfit import EngineConfig, plan
    from graphfit.cli import figures
    from graphfit.inputs.traces import load_trace
    from graphfit.planner.analysis.sweep import sweep
    from graphfit.planner.tuning.tune import tune

    seed = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")
    made = [figures.plan_figure(plan(seed)),
            figures.compare_figure([("a", plan(seed)), ("b", plan(seed.replace(
                ladder="vllm-legacy", runner="v1", engine_version="0.33.0")))]),
            figures.sweep_figure(sweep({"spec_method": "dflash"},
                                       {"max_num_seqs": (1, 2, 3),
                                        "num_speculative_tokens": (0, 1)}, workers=1),
                                 plan(seed), None, "focus")]
    config = EngineConfig(max_num_seqs=64, num_speculative_tokens=3, spec_method="eagle")
    trace = load_trace(TRACES / "vllm_cudagraph_metrics.log")
    made.append(figures.optimize_figure(tune(config, trace)))
    for fig in made:
        FigureCanvasAgg(fig).draw()
        spans = {(round(ax.get_position().x0, 3), round(ax.get_position().x1, 3))
                 for ax in fig.axes if ax.axison and ax.get_label() != "<colorbar>"
                 and ax.get_position().width > 0.3}
        assert len(spans) == 1, spans


@needs_matplotlib
def test_matplotlib_config_and_cache_stay_out_of_home(tmp_path: Path) -> None:
    """A report run with a fresh HOME leaves nothing under it: matplotlib's config and font
    cache go to a private folder under the temporary directory (MPLCONFIGDIR), removed at
    exit."""
    import os
    import tempfile

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), GRAPHFIT_NO_CODE_CACHE="1", PYTHONPATH=str(ROOT))
    png = str(tmp_path / "p.png")
    probe = ("import os\nfrom graphfit.cli import main\n"
             f"try:\n    main(['plan', '--max-num-seqs', '8', '--png', {png!r}])"
             "\nexcept SystemExit:\n    pass\nprint(os.environ['MPLCONFIGDIR'])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, env=env, check=True)
    folder = Path(done.stdout.strip().splitlines()[-1])
    # a private folder under the temporary directory, removed when the process exits
    assert folder.parent == Path(tempfile.gettempdir()) and not folder.exists()
    assert (tmp_path / "p.png").exists() and list(home.iterdir()) == []
