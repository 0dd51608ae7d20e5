"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_lm_head [COUNT]
[SEED]` (issue 23 s68p).

COUNT DeepSeek-family prefill-CP lines with attention DP or DP replicas and
`--enable-dp-lm-head` (sglang_prefill_cp_lm_head_oracle.generate), each compared with SGLang's
resolution and decode runners on the fake GPU (the family comparison plus the
`global_num_tokens` entries). "after" is this tree's graphfit, "before" /work/main's (or
GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

CHILD = """from tests.oracle import sglang_prefill_cp_lm_head_oracle as oracle

out = Counter()
for case in oracle.generate({count}, {seed}):
    outcome, diffs = oracle.compare(case)
    out[outcome] += 1
    if outcome == "differs":
        print("DIFFERS", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 40, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} DeepSeek-family prefill-CP lines with the DP LM head (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
