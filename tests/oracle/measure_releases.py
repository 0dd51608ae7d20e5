"""Per vLLM release, per aspect: how often graphfit's model of that release agrees with the
release's own code (each release in its own process: one vLLM per interpreter).

    PYTHONPATH=. python -m tests.oracle.measure_releases [N] [SEED]   # default 300, seed 7

Runs `tests.oracle.measure_vllm N SEED` once per release in `paths.ENGINES["vllm"]` (the same
edge grid and the same generated configs for every release) and prints one markdown table:
configs where graphfit agrees / configs where the aspect applies. Releases whose sources
were not fetched are listed as such.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.oracle import paths

ROOT = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| (\w+) \| (\d+) \| (\d+) \| [\d.]+ \|$")


def measure(release: str, n: int, seed: int) -> tuple[dict[str, tuple[int, int]], str]:
    """aspect -> (agree, compared) for one release, and the run's full report."""
    env = {**os.environ, paths.env_var("vllm"): release,
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get(
               "PYTHONPATH"))))}
    env.pop("GRAPHFIT_ORACLE_MODEL", None)
    proc = subprocess.run([sys.executable, "-m", "tests.oracle.measure_vllm", str(n), str(seed)],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    rows: dict[str, tuple[int, int]] = {}
    for line in proc.stdout.splitlines():
        match = _ROW.match(line)
        if match:
            rows[match[1]] = (int(match[3]), int(match[2]))
    return rows, proc.stdout


def main(n: int = 300, seed: int = 7) -> None:
    from tests.oracle.vllm_compare import ASPECTS

    releases = [r for r in paths.ENGINES["vllm"] if paths.available("vllm", r)]
    missing = [r for r in paths.ENGINES["vllm"] if r not in releases]
    results = {r: measure(r, n, seed)[0] for r in releases}
    print(f"graphfit vs each vLLM release's own code ({n} generated configs + the edge grid, "
          f"seed {seed}; agree / compared)\n")
    print("| aspect | " + " | ".join(f"vLLM {r}" for r in releases) + " |")
    print("| --- |" + " ---: |" * len(releases))
    for aspect in ASPECTS:
        cells = []
        for r in releases:
            agree, compared = results[r].get(aspect, (0, 0))
            cells.append(f"{agree}/{compared} ({100 * agree / compared:.1f}%)" if compared
                         else "n/a")
        if any(c != "n/a" for c in cells):
            print(f"| {aspect} | " + " | ".join(cells) + " |")
    if missing:
        print(f"\nnot fetched (python tests/oracle/fetch.py vllm <version>): {', '.join(missing)}")


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:3]])
