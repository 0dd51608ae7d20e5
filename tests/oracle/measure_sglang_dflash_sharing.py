"""The tensors a DFLASH (or DSPARK) line's target and draft runners share, SGLang 0.5.23
against graphfit, over N generated lines (not a test).

    python -m tests.oracle.measure_sglang_dflash_sharing 40
    python -m tests.oracle.measure_sglang_dflash_sharing 40 dspark

(DSPARK's draft runner is not in graphfit's pooled / logits runners yet, so for DSPARK
"before" and "after" are the same and show the gap; docs/engines/sglang-coverage.md, s47r.)

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

from graphfit.planner.engines import sglang_shared
from tests.oracle import sglang_dflash_compare as dc
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_static_sharing as ss


def draw(n: int, dspark: bool = False) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(kc.dspark_lines() if dspark else dc.dflash_lines())
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
    dspark = args[1:2] == ["dspark"]
    runner = "dspark_draft" if dspark else "dflash_draft"
    lines = draw(int(args[0]) if args else 40, dspark)
    print(f"generated {'DSPARK' if dspark else 'DFLASH'} lines: {len(lines)}")
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
