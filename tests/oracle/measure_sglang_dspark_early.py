"""Agreement of graphfit with SGLang 0.5.23 on the shared tensors of N generated static DSPARK
lines under SGLANG_OPT_DSV41_TARGET_METADATA_EARLY (not a test; tests.oracle.
sglang_dspark_early, issue 23 s54d).

    python -m tests.oracle.measure_sglang_dspark_early 24

Each line draws the running requests, whether the draft samples from the anchor, gamma, the
two-batch overlap and the variable's spelling (SGLang's EnvBool, on or off). SGLang's side is
its runners built with the variable set; graphfit's the pasted line with the variable in
front. `before` runs graphfit with the early-metadata rule off (the target's staged inputs
pooled as without the variable: main before s54d), `after` this tree. Prints how many lines
agree (no shared-tensor difference, equal bytes) and the bytes graphfit over- / under-counts.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphfit.planner.engines import sglang
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_dspark_early as de


@st.composite
def lines(draw: st.DrawFn) -> tuple[tuple[str, ...], str]:
    extra = ("--enable-two-batch-overlap",) if draw(st.integers(0, 3)) == 0 else ()
    flags = ("--max-running-requests", str(draw(st.sampled_from((8, 24, 48)))), *extra,
             "--speculative-algorithm", "DSPARK", kc.DRAFT,
             kc.draft_dir("block_size", draw(st.sampled_from((3, 8))), draw(st.booleans())))
    return flags, draw(st.sampled_from(("1", "Y", "true", "0", "no")))


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    off_bytes: dict[str, int] = collections.Counter()

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(lines())
    def run(line: tuple[tuple[str, ...], str]) -> None:
        flags, value = line
        for mode in ("before", "after"):
            if mode == "before":
                with mock.patch.object(sglang, "private_inputs", lambda config: {}):
                    got = de.compare(flags, value)
            else:
                got = de.compare(flags, value)
            if got is None:
                counts[mode]["a side refuses"] += 1
                continue
            diffs, figures, _, _ = got
            gap = figures["graphfit_bytes"] - figures["sglang_bytes"]
            off_bytes[mode] += abs(gap)
            counts[mode]["agree" if not diffs and not gap else "differ"] += 1

    run()
    for mode in ("before", "after"):
        told = ", ".join(f"{k} {v}" for k, v in sorted(counts[mode].items()))
        print(f"{mode}: {n} lines: {told}; bytes off in all: {off_bytes[mode]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
