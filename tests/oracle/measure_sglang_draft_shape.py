"""Agreement of graphfit with SGLang 0.5.23 over N generated EAGLE-family lines whose draft's
vocabulary, dtype or EAGLE3 aux width differ from the target's (not a test).

    python -m tests.oracle.measure_sglang_draft_shape 120

Prints, on the same drawn lines and the same SGLang answers (tests/oracle/sglang_draft_shape),
how many lines both plan with the same buffers, both reject, or differ: "before" with
graphfit's draft-config reader switched off (graphfit.inputs.sglang_draft_shape.settings
returning nothing: main's reading, whose planner then keeps the target's vocabulary, dtype and
3 x hidden aux width), "after" with it on; then the first differences left after.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from hypothesis import HealthCheck, given, settings

from graphfit.inputs import sglang_draft_shape as shape
from tests.oracle import sglang_draft_shape as ds


def draw(n: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(ds.lines())
    def collect(argv: tuple[str, ...]) -> None:
        out.append(argv)

    collect()
    return list(dict.fromkeys(out))


def count(lines: list[tuple[str, ...]]) -> tuple[collections.Counter[str], list[str]]:
    outcomes: collections.Counter[str] = collections.Counter()
    first: list[str] = []
    for argv in lines:
        got, diffs = ds.compare(argv)
        outcomes[got] += 1
        if diffs and len(first) < 5:
            first.append(f"{' '.join(argv[:8])} ...: {diffs[0].detail}")
    return outcomes, first


def main(args: list[str]) -> int:
    n = int(args[0]) if args else 120
    lines = draw(n)
    print(f"generated EAGLE-family lines with draft-shaped buffers: {len(lines)}")
    with mock.patch.object(shape, "settings", lambda values: ([], [])):
        before, _ = count(lines)
    after, first = count(lines)
    for label, got in (("before (draft config not read)", before), ("after", after)):
        print(f"{label}: " + ", ".join(f"{k} {got[k]}" for k in
                                        ("planned", "rejected", "differs")))
    for detail in first:
        print("  differs:", detail)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
