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

from tests.oracle.measure_root import count_seed_root, print_counts


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 2000)
    from tests.oracle import sglang_class_picks_cases as cases

    with tempfile.TemporaryDirectory(prefix="class-picks-") as root:
        counts, lines = cases.run(count, seed, Path(root))
    print_counts(count, seed, counts, lines)
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
