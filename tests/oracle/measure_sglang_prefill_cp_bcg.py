"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_bcg [COUNT] [SEED]`.

COUNT generated `--enable-prefill-cp` lines with `--attn-cp-size` equal to `--tp-size`
(tests/oracle/sglang_prefill_cp_bcg_oracle.generate: TP 1-8, zigzag / interleave, B200 / H100,
a named attention backend, the prefill max), each compared with SGLang's own resolution,
decode runners and prefill runner's CP setup as sglang_prefill_cp_bcg_oracle.compare does,
for this tree ("after") and for /work/main's graphfit (or the tree named by GRAPHFIT_BEFORE)
in a child process ("before": its refusal counted the same refusal only where it carries
SGLang's sentence; a line it plans is counted "plans", its plan not compared)."""

from __future__ import annotations

import sys
from collections import Counter

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle.measure_sglang_prefill_cp import before


def _before_outcome(case: bo.Case, refusal: str | None) -> str:
    sg = bo._prefill(case)  # SGLang's refusal, the runner's included
    theirs = cp.sglang_reason(sg.text) if isinstance(sg, so.Rejected) else None
    if refusal is None:
        return "plans"
    if theirs is not None:
        return "same refusal" if theirs in refusal else "other refusal"
    return "not modelled" if dc.NOT_MODELLED in refusal else "other refusal"


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    cases = bo.generate(count, seed)
    after: Counter[str] = Counter()
    captured = 0
    for case in cases:
        outcome, diffs = bo.compare(case)
        after[outcome] += 1
        sg = bo._prefill(case)
        captured += outcome == "agree" and not isinstance(sg, so.Rejected) and any(
            name.startswith("cp_bcg_") for name in sg.buffers)
        if outcome == "differs":
            print("DIFFERS", case, diffs[:2])
    was = Counter(_before_outcome(c, r) for c, r in zip(cases, before(cases), strict=True))
    served = sum(not isinstance(bo._prefill(c), so.Rejected) for c in cases)
    print(f"{count} lines with --attn-cp-size == --tp-size (seed {seed}), SGLang serves "
          f"{served}, refuses {count - served}; CP breakable prefill graphs captured and "
          f"agreed on {captured}")
    print("before:", dict(sorted(was.items())))
    print("after: ", dict(sorted(after.items())))


if __name__ == "__main__":
    main()
