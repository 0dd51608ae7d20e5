"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_rocm_order [COUNT]
[SEED]` (issue 23 s64p).

COUNT generated prefill-CP lines with trtllm_mha in a phase (or none) on the MI300X
(sglang_prefill_cp_rocm_order_oracle.generate), each compared with SGLang's resolution on the
fake ROCm platform as a pasted line and as graphfit's own config file ("file ...").
"after" is this tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's) under this
tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

# after measure_root.CHILD_HEAD (`graphfit` from the tree scored, json, sys and Counter)
CHILD = """from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

out = Counter()
for case in ro.generate({count}, {seed}):
    for file in (False, True):
        outcome, diffs = ro.compare(case, file)
        out[("file " if file else "") + outcome] += 1
        if outcome in ("differs", "other refusal"):
            print("DIFFERS", "(file)" if file else "", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} prefill-CP lines with trtllm_mha on the MI300X (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
