"""SGLang 0.5.23's `--enable-waterfill` over the MoE all-to-all oracle's lines: each line
drawn by tests.oracle.sglang_moe_a2a_compare (every a2a backend, DeepEP on about half) with
`--enable-waterfill` added, compared on every aspect that oracle compares (start / refuse,
the decode ladder and padding, buffers, prefill graphs, mem_fraction_static, drafts, the
prefill runner). Waterfill forces deepep after the hooks that read the given backend
(overrides.py:1595-1607 at pipeline.py:295; graphfit.planner.engines.sglang_waterfill).

    python -m tests.oracle.measure_sglang_waterfill [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure).
Prints agree / differ / not modelled and the first differing lines."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_counts


def main(argv: list[str], backend: str | None = None, default_count: int = 60) -> int:
    """Score the drawn lines (`backend`: the a2a backend every line names, None for any)."""
    count, seed = count_seed_root(argv, default_count)
    from tests.oracle import sglang_moe_a2a_compare as mc

    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    for line in mc.lines(count, seed, backend):
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
