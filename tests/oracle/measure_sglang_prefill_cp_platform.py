"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_platform [COUNT]
[SEED] [file]` (issue 23 s55g; `file`, issue 23 s60r: each line's flags as graphfit's own
config file too, sglang_prefill_cp_platform_oracle.file_compare, counted as "file ...").

COUNT generated prefill-CP lines (sglang_prefill_cp_platform_oracle.generate) on the MI300X,
each compared with SGLang's resolution on the fake ROCm platform
(sglang_prefill_cp_platform_oracle.compare). "after" is this tree's graphfit, "before"
/work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

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
from tests.oracle import sglang_prefill_cp_platform_oracle as po

out = Counter()
for case in po.generate({count}, {seed}):
    outcome, diffs = po.compare(case)
    out[outcome] += 1
    if outcome == "differs":
        print("DIFFERS", case, diffs[:1])
    if {files}:  # the line's flags as graphfit's own config file (issue 23 s60r)
        outcome, diffs = po.file_compare(case)
        out["file " + outcome] += 1
        if outcome == "differs":
            print("DIFFERS (file)", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


FILES = "file" in sys.argv[3:]  # `file`: graphfit's config file too (issue 23 s60r)


def run(tree: str, count: int, seed: int) -> dict[str, int]:
    code = CHILD.format(graphfit=tree, tests=os.getcwd(), count=count, seed=seed,
                        files=FILES)
    return dict(child_result(code, tree))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    was = run(os.environ.get("GRAPHFIT_BEFORE", "/work/main"), count, seed)
    now = run(os.getcwd(), count, seed)
    print(f"{count} prefill-CP lines on the MI300X (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
