"""A maintainer's first step when vLLM ships a release: what must graphfit model?

    PYTHONPATH=. python -m tests.oracle.add_vllm_release 0.35.0 [PREVIOUS] [N]
    # e.g. PYTHONPATH=. python -m tests.oracle.add_vllm_release 0.34.0 0.33.0 300

1. fetches the wheel's *.py into the oracle cache (`fetch.py vllm 0.35.0`);
2. snapshots its own `vllm serve` parser into graphfit/inputs/flags/vllm-0.35.0.json and
   prints the flags and config keys added or removed since PREVIOUS's table;
3. runs the oracle measure on the new release's code with graphfit's model of PREVIOUS
   (default: the newest registered release), N generated configs plus the edge grid, and
   prints the agreement per aspect and every class of difference with a minimal reproducer:
   the differences a maintainer must model in `releases/v0_35.py`.

The rest is docs/maintainers/vllm-releases.md: the release module, its registration, the
oracle pins and ENGINES. The oracle glue may itself need a change first when vLLM moved or
renamed what it calls (the measure then stops with vLLM's ImportError or TypeError).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.oracle import fetch, flag_tables, paths

ROOT = Path(__file__).resolve().parents[2]


def _run(module: str, release: str, *args: str, model: str | None = None) -> str:
    env = {**os.environ, paths.env_var("vllm"): release,
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get(
               "PYTHONPATH"))))}
    if model is not None:
        env["GRAPHFIT_ORACLE_MODEL"] = model
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{module} failed for vLLM {release}:\n{proc.stderr[-4000:]}")
    return proc.stdout


def _options(table: dict[str, Any]) -> set[str]:
    return {o for a in table["parsers"]["serve"]["actions"] for o in a.get("options", [])}


def flag_changes(new: Path, old: Path) -> list[str]:
    """Flags and config-class keys added or removed between two snapshots."""
    a, b = json.loads(old.read_text()), json.loads(new.read_text())
    out = []
    added, removed = sorted(_options(b) - _options(a)), sorted(_options(a) - _options(b))
    if added:
        out.append(f"flags added: {' '.join(added)}")
    if removed:
        out.append(f"flags removed: {' '.join(removed)}")
    for name in sorted(set(a["configs"]) | set(b["configs"])):
        fa = set(a["configs"].get(name, {}).get("fields", []))
        fb = set(b["configs"].get(name, {}).get("fields", []))
        if fa != fb:
            out.append(f"{name} keys added {sorted(fb - fa)}, removed {sorted(fa - fb)}")
    return out


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    from graphfit.planner.engines import registry

    release = argv[0]
    previous = argv[1] if len(argv) > 1 else registry.versions("vllm")[-1]
    n = argv[2] if len(argv) > 2 else "300"
    print(f"## vLLM {release} (measured with graphfit's vLLM {previous} model)\n")
    print(f"sources: {fetch.fetch('vllm', release)}")
    print(_run("tests.oracle.flag_tables", release).strip())
    changes = flag_changes(flag_tables.vllm_file(release), flag_tables.vllm_file(previous))
    print("\n### Flag table changes since " + previous)
    print("\n".join(f"- {c}" for c in changes) or "- none")
    print("\n### The oracle on the new release's code\n")
    print(_run("tests.oracle.measure_vllm", release, n, model=previous))


if __name__ == "__main__":
    main(sys.argv[1:])
