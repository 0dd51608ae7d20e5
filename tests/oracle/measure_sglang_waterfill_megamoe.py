"""SGLang 0.5.23's `--enable-waterfill` on flashinfer_megamoe lines: each line drawn by
tests.oracle.sglang_moe_a2a_compare with --moe-a2a-backend flashinfer_megamoe and
`--enable-waterfill` added, compared on every aspect that oracle compares
(graphfit.planner.engines.sglang_waterfill_megamoe).

    python -m tests.oracle.measure_sglang_waterfill_megamoe [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure).
Prints agree / differ / not modelled (graphfit refuses as not modelled, SGLang starts) and the
first differing lines."""

from __future__ import annotations

import sys

from tests.oracle import measure_sglang_waterfill


def main(argv: list[str]) -> int:
    # the same scoring loop as measure_sglang_waterfill, on flashinfer_megamoe lines only
    return measure_sglang_waterfill.main(argv, "flashinfer_megamoe", 40)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
