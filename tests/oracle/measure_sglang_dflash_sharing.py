"""The tensors a DFLASH (or DSPARK) line's target and draft runners share, SGLang 0.5.23
against graphfit, over N generated lines (not a test).

    python -m tests.oracle.measure_sglang_dflash_sharing 40
    python -m tests.oracle.measure_sglang_dflash_sharing 40 dspark
    python -m tests.oracle.measure_sglang_dflash_sharing 40 dspark-plain

(For DSPARK, "before" is main before issue 23 / s48r: its draft runner outside graphfit's
pooled and logits runners. `dspark` draws the DSPARK oracle's lines, most of which one side
refuses or which carry a VAR=value prefix this oracle does not run; `dspark-plain` draws
lines both sides plan: requests, gamma, the draft's gamma key and sample_from_anchor, a
graph batch cap, TP.)

On the same drawn lines (tests/oracle/sglang_dflash_compare.dflash_lines, those SGLang and
graphfit both plan) and the same SGLang runners (built under its own GraphSharedOutput and
process-wide input pool, tests/oracle/sglang_static_sharing): "before" with DFLASH's draft
runner outside graphfit's pooled and logits runners (main before issue 23 / s47r), "after"
with it in: lines whose shared tensors agree, and the bytes graphfit counted over SGLang's
for the same modelled buffers.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphfit.planner.engines import sglang_shared
from tests.oracle import sglang_dflash_compare as dc
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_static_sharing as ss


@st.composite
def plain_dspark_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], None]:
    """A DSPARK line both sides plan (no environment prefix, a draft the worker accepts)."""
    running = draw(st.sampled_from((1, 4, 8, 12, 24, 48, 64, 128)))
    key = draw(st.sampled_from(("dspark_block_size", "block_size", "dflash_config")))
    gamma = draw(st.integers(1, 12))
    anchor = draw(st.sampled_from((None, True, False)))
    extra = draw(st.sampled_from(((), ("--cuda-graph-max-bs-decode", "16"), ("--tp-size", "2"))))
    return (("--max-running-requests", str(running), "--speculative-algorithm", "DSPARK",
             *extra, kc.DRAFT, kc.draft_dir(key, gamma, anchor)), None)


def draw(n: int, dspark: str = "") -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    lines = {"": dc.dflash_lines(), "dspark": kc.dspark_lines(),
             "dspark-plain": plain_dspark_lines()}[dspark]

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(lines)
    def collect(line: tuple[tuple[str, ...], float | None]) -> None:
        out.append(line[0])  # the static-sharing oracle plans both sides on 80 GiB

    collect()
    return list(dict.fromkeys(out))


def count(lines: list[tuple[str, ...]]) -> tuple[collections.Counter[str], int]:
    outcomes: collections.Counter[str] = collections.Counter()
    over = 0
    for argv in lines:
        try:
            got = ss.compare(argv)
        except Exception as exc:  # a line the oracle cannot build is counted
            outcomes[f"not built ({type(exc).__name__})"] += 1
            continue
        if got is None:
            outcomes["not compared"] += 1
            continue
        diffs, figures, _ = got
        outcomes["agree" if not diffs else "differ"] += 1
        over += figures["graphfit_bytes"] - figures["sglang_bytes"]
    return outcomes, over


def main(args: list[str]) -> int:
    mode = args[1] if len(args) > 1 else ""
    runner = "dspark_draft" if mode else "dflash_draft"
    lines = draw(int(args[0]) if args else 40, mode)
    print(f"generated {'DSPARK' if mode else 'DFLASH'} lines ({mode or 'dflash'}): "
          f"{len(lines)}")
    pooled = {k: v for k, v in sglang_shared.POOLED.items() if k != runner}
    with mock.patch.object(sglang_shared, "POOLED", pooled), \
            mock.patch.object(sglang_shared, "LOGITS_RUNNERS",
                              sglang_shared.LOGITS_RUNNERS - {runner}):
        before, over_before = count(lines)
    after, over_after = count(lines)
    for label, got, over in ((f"before ({runner} shares nothing)", before,
                              over_before), ("after", after, over_after)):
        print(f"{label}: " + ", ".join(f"{k} {v}" for k, v in sorted(got.items()))
              + f"; bytes graphfit counted over SGLang's {over / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
