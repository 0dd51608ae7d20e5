"""Measure (not a test): `python -m tests.oracle.measure_sglang_skip_softmax [COUNT] [SEED]`
(issue 23 s67p).

COUNT generated pasted lines on a Llama target, half with prefill CP, naming trtllm_mha for a
phase, another backend or none, on the RTX 5090 (SM120), H100 or B200, with
SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR unset or set to a value above, at or below
0, or one `float` cannot read (sglang_skip_softmax_oracle.generate), each compared with
SGLang's resolution on its fake GPU with the variable in its environment. "after" is this
tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each
in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

CHILD = """from tests.oracle import sglang_skip_softmax_oracle as oracle

out = Counter()
for case in oracle.generate({count}, {seed}):
    outcome, diffs = oracle.compare(case)
    out[outcome] += 1
    if outcome in ("differs", "other refusal"):
        print("DIFFERS", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} pasted lines with the skip-softmax variable (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
