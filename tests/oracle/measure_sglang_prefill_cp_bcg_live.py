"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg_live [COUNT]
[SEED]` (issue 23 s55g).

COUNT generated `--enable-prefill-cp` lines with `--attn-cp-size` equal to `--tp-size`
(sglang_prefill_cp_bcg_oracle.generate), each read as SGLang's resolved record on the live
check (the GPU named) and as graphfit's own `--config` file, and compared by
sglang_prefill_cp_bcg_oracle.live_file_compare (with the pasted line, then the prefill
component with SGLang's prefill runner). "after" is this tree's graphfit, "before" /work/main's
(or GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

from __future__ import annotations

import os
import sys

from tests.oracle.measure_root import child_result

CHILD = """
import json, sys
sys.path.insert(0, {graphfit!r})
import graphfit  # this tree's or the "before" tree's, first on the path
sys.path.insert(0, {tests!r})
from collections import Counter
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo

out = {{"live": Counter(), "file": Counter()}}
for case in bo.generate({count}, {seed}):
    for name, (outcome, diffs) in bo.live_file_compare(case).items():
        out[name][outcome] += 1
        if outcome == "differs":
            print("DIFFERS", name, case, diffs[:2])
print("RESULT", json.dumps({{k: dict(sorted(v.items())) for k, v in out.items()}}))
"""


def run(tree: str, count: int, seed: int) -> dict[str, dict[str, int]]:
    code = CHILD.format(graphfit=tree, tests=os.getcwd(), count=count, seed=seed)
    return dict(child_result(code, tree))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    was = run(os.environ.get("GRAPHFIT_BEFORE", "/work/main"), count, seed)
    now = run(os.getcwd(), count, seed)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed})")
    for name in ("live", "file"):
        print(f"{name}: before {was[name]}")
        print(f"{name}: after  {now[name]}")


if __name__ == "__main__":
    main()
