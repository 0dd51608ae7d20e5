"""Agreement of graphfit with SGLang 0.5.23 over N generated DSPARK lines with no
`--speculative-draft-model-path`, the draft bundled in the target or in its dspark/ folder
(or neither) (not a test; tests.oracle.sglang_dspark_fill).

    python -m tests.oracle.measure_sglang_dspark_fill 120

Prints, per place, how many lines both plan with the DSPARK draft runner, both plan without
draft graphs, both refuse, and how many differ (with the first differences), then how many
graphfit refuses as not modelled. `before` runs the same lines with graphfit's fill turned off
(graphfit.inputs.sglang_dspark.fill a no-op: main's behaviour before s51d).
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from hypothesis import HealthCheck, given, settings

from graphfit.inputs import sglang_dspark
from tests.oracle import sglang_dspark_fill as df


def measure(n: int) -> dict[str, collections.Counter[str]]:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    shown: list[str] = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(df.filled_lines())
    def run(case: tuple[tuple[str, ...], str, float | None]) -> None:
        argv, target, gb = case
        place = target.rsplit("/", 1)[-1].split("-")[1]
        outcome, diffs = df.compare_line(argv, target, gb)
        gf = df.pasted(argv, target, gb)
        if gf.rejected is not None and "not modelled" in gf.rejected and outcome == "differs":
            outcome = "differs, graphfit: not modelled"
        counts[place][outcome] += 1
        if diffs and len(shown) < 6:
            shown.append(f"{place} {' '.join(argv)[-160:]}: {diffs[0].aspect}: "
                         f"{diffs[0].detail[:240]}")

    run()
    for line in shown:
        print("  ", line)
    return counts


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    sides = {"before": mock.patch.object(sglang_dspark, "fill", lambda values: None),
             "after": mock.patch.object(sglang_dspark, "fill", sglang_dspark.fill)}
    differs = 0
    for side, patch in sides.items():
        df.pasted.cache_clear()
        with patch:
            counts = measure(n)
        total = collections.Counter[str]()
        for place in sorted(counts):
            total.update(counts[place])
            print(f"{side} {place}: {dict(sorted(counts[place].items()))}")
        agree = sum(v for k, v in total.items() if not k.startswith("differs"))
        print(f"{side}: {agree} of {sum(total.values())} lines agree")
        differs = sum(v for k, v in total.items() if k.startswith("differs"))
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
