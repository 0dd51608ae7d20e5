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


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 400
    seed = int(argv[1]) if len(argv) > 1 else 23
    if len(argv) > 2:
        here = str(Path(__file__).resolve().parents[2])
        sys.path.insert(0, argv[2])
        import graphfit  # bound to GRAPHFIT_ROOT's package

        sys.path.insert(0, here)  # the tests package stays this tree's
        print(f"graphfit from {Path(graphfit.__file__).parent}")
    from tests.oracle import sglang_ep_rules_cases as cases

    with tempfile.TemporaryDirectory(prefix="ep-rules-") as root:
        counts, lines = cases.run(count, seed, Path(root))
    print(f"{count} lines (seed {seed}): {counts['agree']} agree, {counts['differ']} differ, "
          f"{counts['not modelled']} not modelled")
    for line in [x for x in lines if not x.startswith("not modelled")][:12]:
        print("  " + line)
    reasons = collections.Counter(x for x in lines if x.startswith("not modelled"))
    for reason, times in reasons.most_common(6):
        print(f"  {times} x {reason}")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
