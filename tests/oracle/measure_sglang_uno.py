"""Agreement of graphfit with SGLang 0.5.23 over N generated UNO lines (not a test).

    python -m tests.oracle.measure_sglang_uno 300

Prints how many pasted lines both plan in linear mode, in tree mode, without decode graphs,
both reject, and how many differ (with the first differences); tests/oracle/
sglang_uno_compare.py says what is compared.
"""

from __future__ import annotations

import collections
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_uno_compare as uc


def main(n: int) -> int:
    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(uc.uno_lines())
    def draw(case: tuple[tuple[str, ...], float | None]) -> None:
        outcome, diffs = uc.compare_line(*case)
        counts[outcome] += 1
        if diffs and len(shown) < 10:
            shown.append(f"{' '.join(case[0])} ({case[1]} GB): {diffs[0]}")

    draw()
    total = sum(counts.values())
    agree = total - counts["differs"]
    print(f"{total} generated UNO lines in {time.perf_counter() - start:.0f} s: "
          f"{agree}/{total} agree (linear {counts['linear']}, tree {counts['tree']}, no decode "
          f"graphs {counts['no_graphs']}, rejected by both {counts['rejected']}), "
          f"{counts['differs']} differ")
    for line in shown:
        print("  ", line)
    return 1 if counts["differs"] else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
