"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_platform [COUNT]
[SEED] [file]` (issue 23 s55g; `file`, issue 23 s60r: each line's flags as graphfit's own
config file too, sglang_prefill_cp_platform_oracle.file_compare, counted as "file ...").

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
    if {files}:  # the line's flags as graphfit's own config file (issue 23 s60r)
        outcome, diffs = po.file_compare(case)
        out["file " + outcome] += 1
        if outcome == "differs":
            print("DIFFERS (file)", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""

FILES = "file" in sys.argv[3:]  # `file`: graphfit's config file too (issue 23 s60r)


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed, files=FILES)
    print(f"{count} prefill-CP lines on the MI300X (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
