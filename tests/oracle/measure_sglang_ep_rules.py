"""SGLang 0.5.23's expert-parallel start-up rules (GPT-OSS's Triton kernel runner,
`--moe-dp-size`, the PD role switch), graphfit's CLI against SGLang's own resolution over
generated lines (tests.oracle.sglang_ep_rules_cases).

    python -m tests.oracle.measure_sglang_ep_rules [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (e.g. /work/main
for a before figure; the cases and SGLang's side stay this tree's). Prints the counts, the
first differing lines and the "not modelled" reasons."""

from __future__ import annotations

import collections
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 400)
    from tests.oracle import sglang_ep_rules_cases as cases

    with tempfile.TemporaryDirectory(prefix="ep-rules-") as root:
        counts, lines = cases.run(count, seed, Path(root))
    print_counts(count, seed, counts, lines)
    reasons = collections.Counter(x for x in lines if x.startswith("not modelled"))
    for reason, times in reasons.most_common(6):
        print(f"  {times} x {reason}")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
