"""Sweeps: every point planned and verified exhaustively, against the same points proven with
numpy per batch.

    python benchmarks/bench_sweep.py

1. `sweep` over S 1..256 x k 0..7 (DFlash), in this process: CPU seconds, against the
   reference loop over the same points (graphfit's `plan`, then `numpy_ref.verify_batches`:
   every reachable batch of every buffer as arrays), whose check counts must match.
2. The README grid, S 1..1024 x k 0..15: `graphfit sweep` wall time with 2 workers (the
   goal: <= 20 s on 2 cores), the same sweep in one process (CPU seconds and peak RSS; goal:
   < 300 MiB for 16,384 points), and the numpy reference's CPU seconds.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

from common import ROOT, fmt_seconds, table
from numpy_ref import verify_batches

from graphfit import plan
from graphfit.planner.analysis.summary import decode_stats
from graphfit.planner.analysis.sweep import grid_points, point_config, sweep

# the attention support level given: one scenario per point, as the numpy reference checks
BASE = {"spec_method": "dflash", "attention_cudagraph_support": "ALWAYS",
        "drafter_attention_cudagraph_support": "ALWAYS"}
SMALL = {"max_num_seqs": tuple(range(1, 257)), "num_speculative_tokens": tuple(range(8))}
README = {"max_num_seqs": tuple(range(1, 1025)), "num_speculative_tokens": tuple(range(16))}


def numpy_reference(axes: dict[str, tuple[int, ...]]) -> tuple[float, int]:
    """CPU seconds and checks of the reference: plan each point, prove it with numpy."""
    start, checked = time.process_time(), 0
    for point in grid_points(axes):
        p = plan(point_config(BASE, point))
        result = verify_batches(p)
        assert result.ok
        decode_stats(p)  # the sweep reports decode waste per point too
        checked += result.checked
    return time.process_time() - start, checked


def _one_process(axes: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    """The sweep in a fresh process with one worker: its CPU seconds and peak RSS."""
    code = (
        "import json, resource, sys, time\n"
        "from graphfit.planner.analysis.sweep import sweep\n"
        f"axes = {{k: tuple(v) for k, v in {json.dumps({k: list(v) for k, v in axes.items()})}"
        ".items()}\n"
        "start = time.process_time()\n"
        f"result = sweep({BASE!r}, axes, workers=1)\n"
        "print(json.dumps({'cpu': time.process_time() - start, 'ok': result.ok,\n"
        "                  'points': len(result.results), 'checked': result.checked,\n"
        "                  'rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
        " / 1024}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _cli_wall(axes: dict[str, tuple[int, ...]], workers: int) -> tuple[float, float, bool]:
    """`graphfit sweep --json` wall seconds, CPU seconds (with its workers) and verdict."""
    argv = [sys.executable, "-m", "graphfit", "sweep", "--max-num-seqs",
            f"{axes['max_num_seqs'][0]}..{axes['max_num_seqs'][-1]}",
            "--num-speculative-tokens",
            f"{axes['num_speculative_tokens'][0]}..{axes['num_speculative_tokens'][-1]}",
            "--method", "dflash", "--attention-cudagraph-support", "ALWAYS",
            "--workers", str(workers), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    doc = json.loads(done.stdout)
    return wall, cpu, done.returncode == 0 and doc["failing"] == 0


def measure() -> dict[str, Any]:
    start = time.process_time()
    small = sweep(BASE, SMALL, workers=1)
    small_cpu = time.process_time() - start
    small_ref, small_ref_checked = numpy_reference(SMALL)
    assert small.ok and small.checked == small_ref_checked, "the two proofs disagree"
    wall, wall_cpu, wall_ok = _cli_wall(README, 2)
    alone = _one_process(README)
    readme_ref, readme_ref_checked = numpy_reference(README)
    assert alone["checked"] == readme_ref_checked, "the two proofs disagree"
    return {"small_points": len(small.results), "small_cpu": small_cpu,
            "small_ref_cpu": small_ref, "small_checked": small.checked,
            "readme_points": alone["points"], "readme_wall_2": wall,
            "readme_cpu_2": wall_cpu, "readme_ok": wall_ok and alone["ok"],
            "readme_cpu_1": alone["cpu"], "readme_rss_mib": alone["rss_mib"],
            "readme_ref_cpu": readme_ref, "readme_checked": alone["checked"]}


def report(m: dict[str, Any]) -> str:
    rows = [
        (f"S 1..256 x k 0..7 ({m['small_points']:,} points), one process",
         f"{m['small_checked']:,}", f"{m['small_cpu']:.2f} CPU-s",
         f"{m['small_ref_cpu']:.2f} CPU-s", f"{m['small_ref_cpu'] / m['small_cpu']:.1f}x"),
        (f"S 1..1024 x k 0..15 ({m['readme_points']:,} points), one process",
         f"{m['readme_checked']:,}", f"{m['readme_cpu_1']:.2f} CPU-s",
         f"{m['readme_ref_cpu']:.2f} CPU-s", f"{m['readme_ref_cpu'] / m['readme_cpu_1']:.1f}x"),
    ]
    out = table("Exhaustive sweeps, DFlash: graphfit vs the same points proven with numpy "
                "per batch", ["grid", "batch/buffer checks", "graphfit", "numpy reference",
                              "reference / graphfit"], rows)
    out += "\n" + table(
        "The README grid through the CLI (`graphfit sweep ... --method dflash --json`)",
        ["measure", "value", "goal"],
        [("wall, 2 workers", fmt_seconds(m["readme_wall_2"]), "<= 20 s"),
         ("CPU, 2 workers (parent + workers)", f"{m['readme_cpu_2']:.2f} s", ""),
         ("peak RSS, one process, 16,384 points", f"{m['readme_rss_mib']:.0f} MiB",
          "< 300 MiB"),
         ("verdict", "SAFE" if m["readme_ok"] else "UNSAFE", "SAFE")])
    return out


if __name__ == "__main__":
    figures = measure()
    print(report(figures))
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        with open(sys.argv[2], "w") as fh:
            json.dump(figures, fh)
