"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg_fraction [COUNT]
[SEED]` (issue 23 s55g).

The default mem_fraction_static of COUNT generated lines with `--attn-cp-size` equal to
`--tp-size` (sglang_prefill_cp_bcg_oracle.generate): SGLang's memory hook's
(sglang_dcp_oracle.fraction) against graphfit's for the same pasted line, for this tree
("after") and /work/main's graphfit (or GRAPHFIT_BEFORE's, "before"), each in a child
process under this tree's oracle."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

# after measure_root.CHILD_HEAD (`graphfit` from the tree scored, json, sys and Counter)
CHILD = """from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo

out = Counter()
for case in bo.generate({count}, {seed}):
    theirs, ours, _ = dc.fraction(case, None)
    if theirs is None or not isinstance(ours, float):
        out["refused"] += 1
    else:
        out["same fraction" if abs(theirs - ours) < 1e-9 else "fraction differs"] += 1
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 80, 1)
    was, now = child_before_after(CHILD, count, seed, differs=False)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed}): default fraction")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
