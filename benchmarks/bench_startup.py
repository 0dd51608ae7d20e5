"""The CLI's start-up: CPU time of whole `graphfit` processes next to `python -c pass`.

    python benchmarks/bench_startup.py [--rounds N]

Each figure is the CPU time (user + system, the operating system's own accounting of the
finished child: `resource.getrusage(RUSAGE_CHILDREN)`) of one whole process, start-up and
exit included. Rounds run every command once, in turn, so that a command and the reference
see the same machine load; a ratio is the median over rounds of that round's command /
`python -c pass`. The seed config is S=33, DFlash k=3 (issue 13); the pasted line is the same
config as `vllm serve` flags. References in the same run: `python -c pass` (the goal's unit),
`python -c "import typer"` (the framework's own import, which every command pays) and the
no-CLI floor (import the planner, plan, verify both sizings, print the JSON document).

The package is byte-compiled first (`compileall`): an installed package has its .pyc files,
and PYTHONDONTWRITEBYTECODE (set in some environments) would otherwise make every run
compile graphfit's sources again. The console script's code caches (graphfit.cli.codecache)
live in a fresh folder for this run (XDG_CACHE_HOME): the warm-up run fills them, as a
user's first run does. Reference rows: `--json` with the caches off (GRAPHFIT_NO_CODE_CACHE=1,
what a first run pays), and `--json` from a copy of the package without .pyc files under
PYTHONDONTWRITEBYTECODE=1 (a source checkout in a container or CI), caches on and off.
"""

from __future__ import annotations

import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from typing import Any

from common import ROOT, table

SEED = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"]
PASTED = ["--", "vllm", "serve", "m", "--max-num-seqs", "33", "--speculative-config",
          '{"method":"dflash","num_speculative_tokens":3}']
FLOOR = ("import json; from graphfit.planner.config import EngineConfig; "
         "from graphfit.planner.plan import plan; "
         "from graphfit.planner.document import plan_document; "
         "p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, "
         "spec_method='dflash')); p.verify_engine(); "
         "print(json.dumps(plan_document(p, p.verify())))")

# name -> (argv after the interpreter, the goal as a ratio to `python -c pass` or None)
COMMANDS: dict[str, tuple[list[str], float | None]] = {
    "pass": (["-c", "pass"], None),
    "typer": (["-c", "import typer"], None),
    "floor": (["-c", FLOOR], None),
    "json": (["-m", "graphfit", "plan", *SEED, "--json"], 4.0),
    "tables": (["-m", "graphfit", "plan", *SEED], 6.0),
    "pasted_json": (["-m", "graphfit", "plan", "--json", *PASTED], None),
    "pasted": (["-m", "graphfit", "plan", *PASTED], None),
    "json_cold": (["-m", "graphfit", "plan", *SEED, "--json"], None),
    "checkout": (["-m", "graphfit", "plan", *SEED, "--json"], None),
    "checkout_cold": (["-m", "graphfit", "plan", *SEED, "--json"], None),
}
OFF = {"GRAPHFIT_NO_CODE_CACHE": "1"}
NO_PYC = {"PYTHONDONTWRITEBYTECODE": "1"}  # and PYTHONPATH: the copy without .pyc files
# extra environment of a command
ENV = {"json_cold": OFF, "checkout": NO_PYC, "checkout_cold": {**NO_PYC, **OFF}}
LABELS = {
    "pass": "`python -c pass` (the unit)",
    "typer": "`python -c \"import typer\"` (reference: the framework's import)",
    "floor": "no-CLI floor: import the planner, plan, verify, print JSON (reference)",
    "json": "`graphfit plan --json` (seed config)",
    "tables": "`graphfit plan` (seed config), tables",
    "pasted_json": "`graphfit plan --json -- vllm serve m --max-num-seqs 33 "
                   "--speculative-config '{...dflash, 3}'`",
    "pasted": "`graphfit plan -- vllm serve m ...` (same line), tables",
    "json_cold": "`graphfit plan --json`, code caches off: a first run (reference)",
    "checkout": "`graphfit plan --json`, no .pyc (source checkout, PYTHONDONTWRITEBYTECODE=1)",
    "checkout_cold": "`graphfit plan --json`, no .pyc, code caches off (reference)",
}


def _cpu(argv: list[str], env: dict[str, str], cwd: str | os.PathLike[str] = ROOT) -> float:
    """CPU seconds (user + system) of one child process, from start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, cwd=cwd, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{argv} exited {done.returncode}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def measure(rounds: int = 21) -> dict[str, Any]:
    """Medians of CPU seconds and of per-round ratios to `python -c pass`."""
    compileall.compile_dir(str(ROOT / "graphfit"), quiet=1)
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory(prefix="graphfit-bench-") as scratch:
        checkout = os.path.join(scratch, "checkout")
        shutil.copytree(ROOT / "graphfit", os.path.join(checkout, "graphfit"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "XDG_CACHE_HOME": os.path.join(scratch, "cache")}
        for variable in (*OFF, *NO_PYC):
            env.pop(variable, None)
        envs, roots = {}, {}
        for name in COMMANDS:  # `-m` puts the working folder first on sys.path
            extra = ENV.get(name, {})
            roots[name] = checkout if "PYTHONDONTWRITEBYTECODE" in extra else str(ROOT)
            envs[name] = {**env, **extra, "PYTHONPATH": os.pathsep.join(
                [roots[name], os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        for name, (argv, _) in COMMANDS.items():  # warm-up: file caches, .pyc, code caches
            _cpu(argv, envs[name], roots[name])
        for _ in range(rounds):
            for name, (argv, _) in COMMANDS.items():
                samples[name].append(_cpu(argv, envs[name], roots[name]))
    base = samples["pass"]
    return {name: {"cpu": statistics.median(s),
                   "ratio": statistics.median(x / b for x, b in zip(s, base)),
                   "goal": COMMANDS[name][1]}
            for name, s in samples.items()}


def report(figures: dict[str, Any]) -> str:
    rows = []
    for name, f in figures.items():
        goal = f"<= {f['goal']:g}x" if f["goal"] else ""
        rows.append((LABELS[name], f"{f['cpu'] * 1e3:.1f} ms", f"{f['ratio']:.2f}x", goal))
    return table("CLI start-up, CPU time of the whole process (user + system), medians; "
                 "ratios to `python -c pass` taken round by round in the same run",
                 ["command", "CPU", "x `python -c pass`", "goal"], rows)


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 21
    figures = measure(rounds)
    print(report(figures))
    if "--summary" in args:
        with open(args[args.index("--summary") + 1], "w") as fh:
            json.dump(figures, fh)
