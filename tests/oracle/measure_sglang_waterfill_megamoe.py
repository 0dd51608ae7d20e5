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

from tests.oracle.measure_root import count_seed_root, print_counts


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_moe_a2a_compare as mc

    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    for line in mc.lines(count, seed, "flashinfer_megamoe"):
        line = (*line, "--enable-waterfill")
        found = {k: v for k, v in mc.compare(line).items() if v}
        rejected = mc.graphfit_cli(line).rejected
        if rejected is not None and "not modelled" in str(rejected) and (
                mc.sglang(line).rejected is None):
            counts["not modelled"] += 1
            lines.append(f"not modelled: {str(rejected)[:110]}")
        elif found:
            counts["differ"] += 1
            lines.append(f"{' '.join(line)}: {str(found)[:240]}")
        else:
            counts["agree"] += 1
    print_counts(count, seed, counts, lines)
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
