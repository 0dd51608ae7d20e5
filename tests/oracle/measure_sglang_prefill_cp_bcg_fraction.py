"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg_fraction [COUNT]
[SEED]` (issue 23 s55g).

The default mem_fraction_static of COUNT generated lines with `--attn-cp-size` equal to
`--tp-size` (sglang_prefill_cp_bcg_oracle.generate): SGLang's memory hook's
(sglang_dcp_oracle.fraction) against graphfit's for the same pasted line, for this tree
("after") and /work/main's graphfit (or GRAPHFIT_BEFORE's, "before"), each in a child
process under this tree's oracle."""

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
from tests.oracle import sglang_dcp_oracle as dc
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


def run(tree: str, count: int, seed: int) -> dict[str, int]:
    code = CHILD.format(graphfit=tree, tests=os.getcwd(), count=count, seed=seed)
    return dict(child_result(code, tree, differs=False))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    was = run(os.environ.get("GRAPHFIT_BEFORE", "/work/main"), count, seed)
    now = run(os.getcwd(), count, seed)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed}): default fraction")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
