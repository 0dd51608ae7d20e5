"""The tensor behind a draft vocabulary's logits view, SGLang 0.5.23 against graphfit, over N
generated EAGLE-family / DFLASH lines (not a test).

    python -m tests.oracle.measure_sglang_draft_logits_rows 150

On the same drawn lines (tests/oracle/sglang_draft_shape.lines) and the same SGLang answers:
for every line whose draft-extend (or DFLASH draft) runner reads logits of a vocabulary other
than the target's, SGLang's elements of that tensor (its runners built under its own
GraphSharedOutput, tests/oracle/sglang_draft_shape.draft_logits_allocation) against
graphfit's reference elements of the buffer: "before" with
graphfit.planner.engines.sglang_shared.draft_logits_rows switched off (main's counting: the
view's rows), "after" with it on; then the bytes graphfit's memory figure missed before.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from graphfit.planner.engines import sglang
from tests.oracle import sglang_draft_shape as ds
from tests.oracle.measure_sglang_draft_shape import draw

LOGITS_BYTES = 4  # float32 (graph_shared_output.py:69-71)


def count(lines: list[tuple[str, ...]]) -> tuple[collections.Counter[str], int]:
    outcomes: collections.Counter[str] = collections.Counter()
    missed = 0
    for argv in lines:
        runner = "dflash_draft" if "DFLASH" in argv else "draft_extend"
        got = ds.draft_logits_allocation(argv, runner)
        if got is None:
            continue
        theirs, ours = got
        outcomes["agree" if theirs == ours else "differ"] += 1
        missed += max(0, theirs - ours) * LOGITS_BYTES
    return outcomes, missed


def main(args: list[str]) -> int:
    n = int(args[0]) if args else 150
    lines = draw(n)
    print(f"generated lines: {len(lines)}")
    with mock.patch.object(sglang, "draft_logits_rows", lambda decode, vocab: decode):
        before, missed_before = count(lines)
    after, missed_after = count(lines)
    for label, got, missed in (("before (view rows only)", before, missed_before),
                               ("after", after, missed_after)):
        print(f"{label}: draft-vocab logits tensors {sum(got.values())}, agree "
              f"{got['agree']}, differ {got['differ']}, bytes graphfit left out "
              f"{missed / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
