"""Render the example reports of docs/operators/reports.md (needs `graphfit[report]`).

    PYTHONPATH=. python examples/render_reports.py [OUT_DIR]   # default: docs/reports

Each report is what the CLI writes with `--png`; the commands are printed as they run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from graphfit.cli import main

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "examples" / "traces"

REPORTS = {
    "plan.png": ["plan", "--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method",
                 "dflash"],
    "sweep.png": ["sweep", "--max-num-seqs", "1..64", "--num-speculative-tokens", "0..7",
                  "--method", "dflash", "--runner", "v1",  # #50065 is the V1 runner's (0.33)
                  "--engine-version", "0.33.0",
                  "--ladder", "vllm-legacy", "--capacity", "drafter.positions=S*q"],
    "compare.png": ["compare", "vllm", "sglang-spec", "--max-num-seqs", "33",
                    "--num-speculative-tokens", "3", "--method", "eagle",
                    "--speculative-eagle-topk", "1"],
    "optimize.png": ["optimize", "--trace", str(TRACES / "vllm_cudagraph_metrics.log"),
                     "--engine-version", "0.33.0", "--max-num-seqs", "64",
                     "--num-speculative-tokens", "3", "--method", "eagle"],
}


def render(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, argv in REPORTS.items():
        path = folder / name
        print("graphfit", " ".join(argv), "--png", path.relative_to(ROOT) if path.is_relative_to(
            ROOT) else path, file=sys.stderr)
        try:
            main([*argv, "--png", str(path), "--json"])
        except SystemExit as exc:
            if exc.code not in (0, 1):  # 1: the sweep finds the short buffer it is built for
                raise
        written.append(path)
    return written


if __name__ == "__main__":
    render(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "reports")
