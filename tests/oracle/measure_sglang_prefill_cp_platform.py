"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_platform [COUNT]
[SEED]` (issue 23 s55g).

COUNT generated prefill-CP lines (sglang_prefill_cp_platform_oracle.generate) on the MI300X,
each compared with SGLang's resolution on the fake ROCm platform
(sglang_prefill_cp_platform_oracle.compare). "after" is this tree's graphfit, "before"
/work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

# after measure_root.CHILD_HEAD (`graphfit` from the tree scored, json, sys and Counter)
CHILD = """from tests.oracle import sglang_prefill_cp_platform_oracle as po

out = Counter()
for case in po.generate({count}, {seed}):
    outcome, diffs = po.compare(case)
    out[outcome] += 1
    if outcome == "differs":
        print("DIFFERS", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} prefill-CP lines on the MI300X (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
