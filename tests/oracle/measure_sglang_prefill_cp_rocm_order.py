"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_rocm_order [COUNT]
[SEED]` (issue 23 s64p).

COUNT generated prefill-CP lines with trtllm_mha in a phase (or none) on the MI300X
(sglang_prefill_cp_rocm_order_oracle.generate), each compared with SGLang's resolution on the
fake ROCm platform as a pasted line and as graphfit's own config file ("file ...").
"after" is this tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's) under this
tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed, pasted_and_file_child

CHILD = pasted_and_file_child("sglang_prefill_cp_rocm_order_oracle")


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} prefill-CP lines with trtllm_mha on the MI300X (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
