"""Agreement of graphfit with SGLang 0.5.23 over N generated DFLASH lines (not a test).

    python -m tests.oracle.measure_sglang_dflash 300

Prints how many lines both plan with the DFLASH draft runner, both plan without draft graphs,
both reject, and how many differ (with the first differences).
"""

from __future__ import annotations

import collections
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_dflash_compare as dc


def main(n: int) -> int:
    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(dc.dflash_lines())
    def draw(case: tuple[tuple[str, ...], float | None]) -> None:
        outcome, diffs = dc.compare_line(*case)
        counts[outcome] += 1
        if not {"--speculative-num-draft-tokens", "--speculative-dflash-block-size"} & set(
                case[0]):
            counts["block from the draft config"] += 1
        if diffs and len(shown) < 10:
            shown.append(f"{' '.join(case[0])} ({case[1]} GB): {diffs[0]}")

    draw()
    total = sum(counts.values())
    agree = total - counts["differs"]
    print(f"{total} generated DFLASH lines in {time.perf_counter() - start:.0f} s: "
          f"{agree}/{total} agree (runner {counts['runner']}, no draft graphs "
          f"{counts['no_runner']}, rejected by both {counts['rejected']}), "
          f"{counts['differs']} differ; block from the draft's config.json on "
          f"{counts['block from the draft config']} lines")
    for line in shown:
        print("  ", line)
    return 1 if counts["differs"] else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
