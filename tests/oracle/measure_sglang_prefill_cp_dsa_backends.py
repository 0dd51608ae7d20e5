"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_dsa_backends
[COUNT] [SEED]` (issue 23 s67p).

COUNT generated DeepSeek-family prefill-CP lines (DSA / MLA, DeepSeek-V3.2, Glm5Next, a
multimodal MiMo-V2: sglang_prefill_cp_dsa_oracle.generate's) naming a backend of the attention
hook oracle's BACKENDS or none, a KV dtype now and then, on the MI300X, H100, B200 or RTX 5090
(sglang_prefill_cp_dsa_backends_oracle.generate), each compared with SGLang's resolution on its
fake GPU as a pasted line and as graphfit's own config file ("file ..."). "after" is this
tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each
in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed, pasted_and_file_child

CHILD = pasted_and_file_child("sglang_prefill_cp_dsa_backends_oracle")


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} DeepSeek-family prefill-CP lines with backend flags (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
