"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg_live [COUNT]
[SEED]` (issue 23 s55g).

COUNT generated `--enable-prefill-cp` lines with `--attn-cp-size` equal to `--tp-size`
(sglang_prefill_cp_bcg_oracle.generate), each read as SGLang's resolved record on the live
check (the GPU named) and as graphfit's own `--config` file, and compared by
sglang_prefill_cp_bcg_oracle.live_file_compare (with the pasted line, then the prefill
component with SGLang's prefill runner). "after" is this tree's graphfit, "before" /work/main's
(or GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

# after measure_root.CHILD_HEAD (`graphfit` from the tree scored, json, sys and Counter)
CHILD = """from tests.oracle import sglang_prefill_cp_bcg_oracle as bo

out = {{"live": Counter(), "file": Counter()}}
for case in bo.generate({count}, {seed}):
    for name, (outcome, diffs) in bo.live_file_compare(case).items():
        out[name][outcome] += 1
        if outcome == "differs":
            print("DIFFERS", name, case, diffs[:2])
print("RESULT", json.dumps({{k: dict(sorted(v.items())) for k, v in out.items()}}))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 40, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed})")
    for name in ("live", "file"):
        print(f"{name}: before {was[name]}")
        print(f"{name}: after  {now[name]}")


if __name__ == "__main__":
    main()
