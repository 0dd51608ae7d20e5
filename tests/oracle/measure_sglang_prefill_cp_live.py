"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_live [COUNT] [SEED]
[family]`.

COUNT generated `--enable-prefill-cp` lines (sglang_prefill_cp_oracle.generate), each read
three ways and compared with SGLang's own resolution (sglang_prefill_cp_oracle): SGLang's
resolved ServerArgs record through the live check (`live_compare`), the flags as graphfit's
own `--config` file (`file_compare`) and the prefill-CP flags in an SGLang `--config` YAML
on the pasted line (`compare(yaml_case(...))`). "after" is this tree's graphfit, "before"
/work/main's (or GRAPHFIT_BEFORE's) graphfit under this tree's oracle, each in a child
process. `family`: sglang_prefill_cp_dsa_oracle.generate's lines (issue 23 s54c)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = """
import json, sys
sys.path.insert(0, {graphfit!r})
import graphfit  # this tree's or the "before" tree's, first on the path
sys.path.insert(0, {tests!r})
from collections import Counter
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa

count, seed = {count}, {seed}
out = {{"live": Counter(), "file": Counter(), "yaml": Counter()}}
for model in (dsa.FAMILY if {family} else ()):
    dsa.model_dir(model)
for case in (dsa.generate if {family} else cp.generate)(count, seed):
    for name, outcome in (("live", cp.live_compare(case)[0]), ("file", cp.file_compare(case)[0]),
                          ("yaml", cp.compare(cp.yaml_case(case))[0])):
        out[name][outcome] += 1
print("RESULT", json.dumps({{k: dict(sorted(v.items())) for k, v in out.items()}}))
"""


def run(tree: str, count: int, seed: int, family: bool = False) -> dict[str, dict[str, int]]:
    here = os.getcwd()
    code = CHILD.format(graphfit=tree, tests=here, count=count, seed=seed, family=family)
    env = {**os.environ, "PYTHONPATH": here}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=here)
    line = [t for t in done.stdout.splitlines() if t.startswith("RESULT ")][-1]
    return dict(json.loads(line[len("RESULT "):]))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    family = len(sys.argv) > 3 and sys.argv[3] == "family"  # issue 23 s54c
    was = run(os.environ.get("GRAPHFIT_BEFORE", "/work/main"), count, seed, family)
    now = run(os.getcwd(), count, seed, family)
    print(f"{count} lines (seed {seed})")
    for name in ("live", "file", "yaml"):
        print(f"{name}: before {was[name]}")
        print(f"{name}: after  {now[name]}")


if __name__ == "__main__":
    main()
