"""Agreement counts of graphfit with SGLang 0.5.23 over N generated `--speculative-adaptive`
lines (a fresh, non-derandomized draw each run):

    python -m tests.oracle.measure_sglang_adaptive [N]
"""

from __future__ import annotations

import collections
import sys

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_adaptive_oracle as sa
from tests.oracle import sglang_compare as sc
from tests.oracle.test_sglang_adaptive_oracle import adaptive_lines


def main(n: int) -> None:
    counts: collections.Counter[str] = collections.Counter()
    examples: list[str] = []

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(adaptive_lines())
    def draw(argv: tuple[str, ...]) -> None:
        diffs = sa.compare(argv)
        sg = sc.sglang(argv, 80)
        kind = ("rejected" if sg.rejected is not None
                else "kept on" if sa.states(sg.resolved) is not None else "fell back")
        bad = [str(d) for v in diffs.values() for d in v]
        counts[f"{kind}: {'differ' if bad else 'agree'}"] += 1
        if bad and len(examples) < 5:
            examples.append(f"{' '.join(argv)}: {bad[0]}")

    draw()
    total = sum(counts.values())
    agree = sum(v for k, v in counts.items() if k.endswith("agree"))
    print(f"{agree}/{total} generated lines agree")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    for line in examples:
        print(f"  e.g. {line}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
