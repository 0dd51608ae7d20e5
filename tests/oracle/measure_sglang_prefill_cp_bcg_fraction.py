"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg_fraction [COUNT]
[SEED]` (issue 23 s55g).

The default mem_fraction_static of COUNT generated lines with `--attn-cp-size` equal to
`--tp-size` (sglang_prefill_cp_bcg_oracle.generate): SGLang's memory hook's
(sglang_dcp_oracle.fraction) against graphfit's for the same pasted line, for this tree
("after") and /work/main's graphfit (or GRAPHFIT_BEFORE's, "before"), each in a child
process under this tree's oracle."""

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
from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo

out = Counter()
for case in bo.generate({count}, {seed}):
    theirs, ours, _ = dc.fraction(case, None)
    if theirs is None or not isinstance(ours, float):
        out["refused"] += 1
    else:
        out["same fraction" if abs(theirs - ours) < 1e-9 else "fraction differs"] += 1
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def run(tree: str, count: int, seed: int) -> dict[str, int]:
    here = os.getcwd()
    code = CHILD.format(graphfit=tree, tests=here, count=count, seed=seed)
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": here},
                          capture_output=True, text=True, check=False, cwd=here)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    line = [t for t in done.stdout.splitlines() if t.startswith("RESULT ")][-1]
    return dict(json.loads(line[len("RESULT "):]))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    was = run(os.environ.get("GRAPHFIT_BEFORE", "/work/main"), count, seed)
    now = run(os.getcwd(), count, seed)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed}): default fraction")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
