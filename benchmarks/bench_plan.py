"""Planning time with exhaustive verification, and `graphfit plan` wall time.

    python benchmarks/bench_plan.py

Part 1: `plan(config)` and `Plan.verify()` (every reachable batch of every buffer dispatched
and checked) for S up to 1024 and T up to 65536, DFlash k=3 (the config with the most
buffers and streams). Part 2: the CLI's wall time against `python -c pass`, i.e. the
interpreter start-up every Python CLI pays.
"""

from __future__ import annotations

import subprocess
import sys
import time

from common import best_of, fmt_seconds, table

from graphfit import EngineConfig, plan

GRID_S = (1, 8, 64, 256, 1024)
GRID_T = (2048, 8192, 32768, 65536)


def planning_times() -> str:
    rows = []
    for S in GRID_S:
        for T in GRID_T:
            if T < S:
                continue
            config = EngineConfig(max_num_seqs=S, max_num_batched_tokens=T,
                                  num_speculative_tokens=3, spec_method="dflash")
            t_plan = best_of(lambda c=config: plan(c), repeat=3)
            p = plan(config)
            start = time.perf_counter()
            verification = p.verify()
            t_verify = time.perf_counter() - start
            assert verification.ok
            rows.append((S, T, len(p.capture_sizes), fmt_seconds(t_plan),
                         fmt_seconds(t_verify), f"{verification.checked:,}"))
    return table("plan() and exhaustive verify() (DFlash k=3)",
                 ["S", "T", "graphs", "plan()", "verify()", "batch/buffer checks"], rows)


def _wall(argv: list[str], repeat: int = 5) -> float:
    def once() -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    return best_of(once, repeat=repeat)


def cli_times() -> str:
    py = sys.executable
    cli = [py, "-m", "graphfit", "plan"]
    cases = [
        ("python -c pass", [py, "-c", "pass"]),
        ("python -c 'import graphfit.cli'", [py, "-c", "import graphfit.cli"]),
        ("graphfit plan --max-num-seqs 256", [*cli, "--max-num-seqs", "256"]),
        ("graphfit plan ... dflash k=3, S=33", [*cli, "--max-num-seqs", "33",
                                                "--num-speculative-tokens", "3",
                                                "--method", "dflash"]),
        ("graphfit plan --json, S=1024 T=65536 dflash k=3",
         [*cli, "--max-num-seqs", "1024", "--max-num-batched-tokens", "65536",
          "--num-speculative-tokens", "3", "--method", "dflash", "--json"]),
    ]
    base = _wall(cases[0][1])
    rows = [(cases[0][0], fmt_seconds(base), "baseline")]
    for label, argv in cases[1:]:
        seconds = _wall(argv)
        rows.append((label, fmt_seconds(seconds), f"+{fmt_seconds(max(seconds - base, 0))}"))
    return table("CLI wall time (best of 5, includes interpreter start-up)",
                 ["command", "wall", "over python -c pass"], rows)


if __name__ == "__main__":
    print(planning_times())
    print(cli_times())
