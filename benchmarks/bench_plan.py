"""Planning with exhaustive verification, next to the same checks done per batch with numpy;
and `graphfit plan`'s CPU time next to the interpreter's own start-up.

    python benchmarks/bench_plan.py

Part 1: `plan(config)` + `Plan.verify()` (every reachable batch of every buffer, proven by
intervals) against `plan(config)` + `numpy_ref.verify_batches` (the same batches checked one
by one as arrays; the check counts must match), DFlash, S up to 1024, T up to 65536. Medians
of rounds that alternate between the two.
Part 2: the CLI's CPU time (user + system of the child, medians of 7) over `python -c pass`,
and a floor without the CLI framework: `python -c` that imports the planner, plans, verifies
and prints the same JSON document.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
from typing import Any

from common import ROOT, fmt_seconds, paired_medians, table
from numpy_ref import verify_batches

from graphfit import EngineConfig, plan

GRID = ((1, 2048, 3), (64, 8192, 3), (256, 8192, 7), (1024, 8192, 15), (1024, 65536, 3),
        (1024, 65536, 15))
HEADLINE = (1024, 65536, 15)


def _config(S: int, T: int, k: int) -> EngineConfig:
    # the support level given, so there is one scenario to check (an unknown level adds the
    # PIECEWISE scenario: about twice the checks and the time)
    return EngineConfig(max_num_seqs=S, max_num_batched_tokens=T, num_speculative_tokens=k,
                        spec_method="dflash", attention_cudagraph_support="ALWAYS")


def planning() -> list[dict[str, Any]]:
    rows = []
    for S, T, k in GRID:
        config = _config(S, T, k)
        p = plan(config)
        ours, ref = p.verify(), verify_batches(p)
        assert ours.ok and ref.ok and ours.checked == ref.checked, "the two proofs disagree"
        t_ours, t_ref = paired_medians([lambda c=config: plan(c).verify(),
                                        lambda c=config: verify_batches(plan(c))], repeat=9)
        rows.append({"S": S, "T": T, "k": k, "graphs": len(p.capture_sizes),
                     "checked": ours.checked, "graphfit": t_ours, "numpy": t_ref})
    return rows


def _cpu(argv: list[str], repeat: int = 7) -> float:
    """Median CPU seconds (user + system) of a child process."""
    samples = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(samples)


SEED = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"]
FLOOR = ("import json; from graphfit.planner.config import EngineConfig; "
         "from graphfit.planner.plan import plan; "
         "from graphfit.planner.document import plan_document; "
         "p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, "
         "spec_method='dflash')); print(json.dumps(plan_document(p, p.verify())))")


def cli() -> dict[str, float]:
    py = sys.executable
    return {
        "pass": _cpu([py, "-c", "pass"]),
        "floor": _cpu([py, "-c", FLOOR]),
        "tables": _cpu([py, "-m", "graphfit", "plan", *SEED]),
        "json": _cpu([py, "-m", "graphfit", "plan", *SEED, "--json"]),
    }


def report(rows: list[dict[str, Any]], c: dict[str, float]) -> str:
    out = table(
        "plan() + exhaustive verify(), DFlash: graphfit by intervals vs numpy per batch "
        "(medians)", ["S", "T", "k", "graphs", "batch/buffer checks", "graphfit",
                      "plan() + numpy checks", "numpy / graphfit"],
        [(r["S"], r["T"], r["k"], r["graphs"], f"{r['checked']:,}", fmt_seconds(r["graphfit"]),
          fmt_seconds(r["numpy"]), f"{r['numpy'] / r['graphfit']:.1f}x") for r in rows])
    base = c["pass"]
    out += "\n" + table(
        "CLI CPU time, seed config (S=33, DFlash k=3); medians of 7",
        ["command", "CPU", "x `python -c pass`"],
        [("python -c pass", fmt_seconds(base), "1.0x"),
         ("no-CLI floor: import planner, plan, verify, print JSON", fmt_seconds(c["floor"]),
          f"{c['floor'] / base:.1f}x"),
         ("graphfit plan (tables)", fmt_seconds(c["tables"]), f"{c['tables'] / base:.1f}x"),
         ("graphfit plan --json", fmt_seconds(c["json"]), f"{c['json'] / base:.1f}x")])
    return out


if __name__ == "__main__":
    figures = {"planning": planning(), "cli": cli()}
    print(report(figures["planning"], figures["cli"]))
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        with open(sys.argv[2], "w") as fh:
            json.dump(figures, fh)
