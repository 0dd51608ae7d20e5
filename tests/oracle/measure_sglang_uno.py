"""Agreement of graphfit with SGLang 0.5.23 over N generated UNO lines (not a test).

    python -m tests.oracle.measure_sglang_uno 300
    python -m tests.oracle.measure_sglang_uno --defaults

The second form runs every UNO line naming no attention backend (sglang_uno_compare.
default_lines) on every fake GPU and model shape (SGLang's default by GPU and model).

Prints how many pasted lines both plan in linear mode, in tree mode, without decode graphs,
both reject, and how many differ (with the first differences); tests/oracle/
sglang_uno_compare.py says what is compared.
"""

from __future__ import annotations

import collections
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_compare as sc
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
    summary = (f"{total} generated UNO lines in {time.perf_counter() - start:.0f} s: "
               f"{agree}/{total} agree (linear {counts['linear']}, tree {counts['tree']}, "
               f"no decode graphs {counts['no_graphs']}, rejected by both "
               f"{counts['rejected']}), "
               f"{counts['differs']} differ")
    return sc.report(summary, shown, counts)


def defaults() -> int:
    """Every default line x fake GPU x model shape, plus each line with the GPU in GiB."""
    import tempfile

    from tests.oracle.sglang_mtp_oracle import model_dirs

    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:
        shapes = model_dirs(root)
        cases = [(line, gpu, shape, None) for line in uc.default_lines()
                 for gpu in uc.DEFAULT_GPUS for shape in uc.DEFAULT_SHAPES]
        cases += [(line, "H100", "llama", "80") for line in uc.default_lines()]
        for line, gpu, shape, given in cases:
            outcome, diffs = uc.default_line(line, gpu, shapes[shape], given)
            counts[outcome] += 1
            if diffs and len(shown) < 10:
                shown.append(f"{gpu} {shape} {' '.join(line)}: {diffs[0]}")
    total = sum(counts.values())
    summary = (f"{total} UNO lines without a backend in {time.perf_counter() - start:.0f} s: "
               f"{total - counts['differs']}/{total} agree (fa3 planned by both {counts['fa3']}, "
               f"rejected by both {counts['rejected']}, refused by graphfit for a missing input "
               f"{counts['unrestated']}), {counts['differs']} differ")
    return sc.report(summary, shown, counts)


if __name__ == "__main__":
    if sys.argv[1:] == ["--defaults"]:
        sys.exit(defaults())
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
