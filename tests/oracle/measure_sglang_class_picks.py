"""Nemotron-H's expert-remap rules, HYV4's deep_gemm pick and the ModelOpt / W4A16 config
the overrides read, graphfit against SGLang 0.5.23's own code over generated model
directories (tests.oracle.sglang_class_picks_cases).

    python -m tests.oracle.measure_sglang_class_picks [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (e.g. /work/main
for a before figure; the cases and SGLang's side stay this tree's). Prints the counts and
the first differing lines."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 2000
    seed = int(argv[1]) if len(argv) > 1 else 23
    if len(argv) > 2:
        here = str(Path(__file__).resolve().parents[2])
        sys.path.insert(0, argv[2])
        import graphfit  # bound to GRAPHFIT_ROOT's package

        sys.path.insert(0, here)  # the tests package stays this tree's
        print(f"graphfit from {Path(graphfit.__file__).parent}")
    from tests.oracle import sglang_class_picks_cases as cases

    with tempfile.TemporaryDirectory(prefix="class-picks-") as root:
        counts, lines = cases.run(count, seed, Path(root))
    print(f"{count} lines (seed {seed}): {counts['agree']} agree, {counts['differ']} differ, "
          f"{counts['not modelled']} not modelled")
    for line in [x for x in lines if not x.startswith("not modelled")][:12]:
        print("  " + line)
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
