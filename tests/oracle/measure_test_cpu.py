"""CPU seconds per test module, each in its own pytest process, this tree against a before
checkout interleaved (issue 23, s68x). Not a test.

CI runs the suite on 2 shared cores, so a module's cost is CPU, not wall time (which the other
processes on the machine stretch). Each run is one child `python -c` process running pytest on
one module; the child reports its CPU (user + system, its own children's included) at points:
start-up (torch and pytest imported), SGLang's oracle installed (`sglang_stubs.install`, the
first SGLang import of the process: what every oracle module pays once) and the end, plus each
test's own CPU (setup + call + teardown). Runs alternate between the roots, so the load the other
processes put on the machine falls on both alike; the figures are medians.

Run: python -m tests.oracle.measure_test_cpu [--repeat N] [--before ROOT] [--top K] MODULE...
(ROOT: another checkout, run with its own `tests` and `graphfit`; MODULE: a test file path
relative to the root, e.g. tests/oracle/test_sglang_draft_layer_entries_oracle.py).
`--install` alone (no MODULE) measures SGLang's first import per process only; `--warm W`
runs the module W first in the same process, so "its tests" is MODULE's cost once the shared
start-up (torch, SGLang's install, its model registry) is paid, as in CI's one-process suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.oracle.before_tree import frozen

HERE = Path(__file__).resolve().parents[2]

# the child: pytest on one module with a plugin timing each test's CPU; prints one JSON line
CHILD = r"""
import json, resource, sys, time
def cpu():
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + child.ru_utime + child.ru_stime
import pytest, torch  # noqa: F401
marks = {"startup": cpu()}
per_test = {}
failed = []
class Plugin:
    def pytest_collection_finish(self, session):
        marks["collected"] = cpu()
    def pytest_runtest_protocol(self, item, nextitem):
        start = cpu()
        yield
        per_test[item.nodeid] = cpu() - start
    pytest_runtest_protocol.hookwrapper = True
    def pytest_runtest_logreport(self, report):
        if report.failed:
            failed.append(report.nodeid)
mode, target, warm = sys.argv[1], sys.argv[2], sys.argv[3:]
if mode == "install":
    from tests.oracle import sglang_oracle
    start = cpu()
    sglang_oracle.oracle()
    marks["install"] = cpu() - start
    code = 0
else:
    from tests.oracle import sglang_stubs
    real_install = sglang_stubs.install
    def install(root):
        start = cpu()
        real_install(root)
        marks.setdefault("install", cpu() - start)
    sglang_stubs.install = install
    code = int(pytest.main(["-q", "-p", "no:randomly", "-p", "no:cacheprovider", *warm,
                            *([target] if target != "-" else [])], plugins=[Plugin()]))
    if target != "-":
        per_test = {k: v for k, v in per_test.items() if k.split("::")[0] == target}
marks["total"] = cpu()
print("CPU-JSON " + json.dumps({"code": code, "marks": marks, "tests": per_test,
                               "failed": failed}))
"""


def run_one(root: Path, mode: str, target: str, warm: list[str]) -> dict[str, Any]:
    """One child process under `root` (its `tests` and `graphfit`): its CPU figures (the
    tests of `target` only; `warm` modules run first in the same process)."""
    env = {**os.environ, "PYTHONPATH": str(root), "HYPOTHESIS_PROFILE": "ci"}
    if root != HERE:  # another checkout: read, never written (no bytecode files)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "-c", CHILD, mode, target, *warm], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("CPU-JSON "):
            result: dict[str, Any] = json.loads(line[len("CPU-JSON "):])
            return result
    tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
    raise RuntimeError(f"{root} {target}: no figures ({' | '.join(tail)})")


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f}" if values else "     -"


def rank_together(roots: dict[str, Path], modules: list[str], repeat: int) -> int:
    """All `modules` in one pytest process per root (the first pays the shared start-up, as
    in CI), each module's tests' CPU summed, ranked (medians over `repeat` interleaved runs)."""
    sums: dict[str, dict[str, list[float]]] = {name: {} for name in roots}
    for _ in range(repeat):
        for name, root in roots.items():
            result = run_one(root, "module", "-", modules)
            per_module: dict[str, float] = {}
            for test, cpu in result["tests"].items():
                module = test.split("::")[0]
                per_module[module] = per_module.get(module, 0.0) + cpu
            for module, cpu in per_module.items():
                sums[name].setdefault(module, []).append(cpu)
            print(f"  {name}: total {result['marks']['total']:.2f} s CPU, "
                  f"SGLang install {result['marks'].get('install', 0.0):.2f}, "
                  f"pytest exit {result['code']}")
            for test in result.get("failed", []):
                print(f"    FAILED {test}")
    last = list(roots)[-1]
    order = sorted(sums[last], key=lambda m: -statistics.median(sums[last][m]))
    print(f"{len(modules)} modules in one process (median of {repeat}, CPU seconds of each "
          f"module's tests; the first run module includes the shared start-up)")
    print("  " + "  ".join(f"{name:>6s}" for name in roots) + "  module")
    for module in order:
        print("  " + "  ".join(_median(sums[name].get(module, [])) for name in roots)
              + f"  {module}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--top", type=int, default=4)
    parser.add_argument("--install", action="store_true")
    parser.add_argument("--together", action="store_true",
                        help="all MODULEs in one process (CI's view), ranked by their tests' CPU")
    parser.add_argument("--warm", action="append", default=[],
                        help="a module run first in the same process (the shared start-up "
                             "paid), so the figures are MODULE's own cost in a suite run")
    args = parser.parse_args(argv)
    # the before checkout frozen at its HEAD for the whole measure: a merge into it mid-run
    # would mix two commits in one run (tests.oracle.before_tree, issue 23 s68f)
    roots = {"after": HERE} if args.before is None else {
        "before": Path(frozen(str(args.before))), "after": HERE}
    if args.together:
        return rank_together(roots, args.modules, args.repeat)
    targets = [("install", "-")] if args.install else [("module", m) for m in args.modules]
    for mode, target in targets:
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in roots}
        for _ in range(args.repeat):
            for name, root in roots.items():  # interleaved: same load on both
                runs[name].append(run_one(root, mode, target, args.warm))
        print(f"{target} (median of {args.repeat}, CPU seconds)")
        for name, results in runs.items():
            marks = [r["marks"] for r in results]
            codes = sorted({r["code"] for r in results})
            installs = [m["install"] for m in marks if "install" in m]
            own = [sum(r["tests"].values()) for r in results]
            print(f"  {name:6s} total {_median([m['total'] for m in marks])}  "
                  f"SGLang install {_median(installs)}  its tests {_median(own)}  "
                  f"pytest exit {codes}")
            for test in sorted({t for r in results for t in r.get("failed", [])}):
                print(f"    FAILED {test}")  # which test, so a failed run can be rerun
            tests = results[0]["tests"]
            slow = sorted(tests, key=lambda t: -statistics.median(
                [r["tests"].get(t, 0.0) for r in results]))[:args.top]
            for test in slow:
                values = [r["tests"].get(test, 0.0) for r in results]
                print(f"    {_median(values)}  {test.split('::', 1)[-1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
