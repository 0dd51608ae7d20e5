"""`python -m tests.oracle.measure_sglang_live_fraction N SEED`: N lines of
measure_sglang_plan_prefill's generator, each resolved by SGLang 0.5.23 on CPU; SGLang's
resolved record goes to `from_sglang` (tests/oracle/sglang_live_fraction.compare). Prints how
many live checks agree with SGLang's default mem_fraction_static (a not-positive figure:
named by graphfit's warning), after issue 23 s45l and before it (in the same run: the live
reader without the JSON `--cuda-graph-config` prefill phase and `max_total_tokens`, and the
warning without SGLang's figure), then the first difference left."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from unittest import mock

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_live_post_capture as lpc  # noqa: E402
from graphfit.planner.engines.sglang_reserve import RESERVE_UNFIT  # noqa: E402
from tests.oracle import sglang_live_fraction as lf  # noqa: E402

OLD_KEYS = tuple(k for k in lpc.KEYS if k != "max_total_tokens")


def _before() -> ExitStack:
    stack = ExitStack()
    stack.enter_context(mock.patch.object(lpc, "KEYS", OLD_KEYS))
    stack.enter_context(mock.patch.object(lpc, "_json_phases", lambda *_: []))
    stack.enter_context(mock.patch("graphfit.planner.engines.sglang.unfit_warning",
                                   lambda *_: RESERVE_UNFIT))
    return stack


def main(count: int, seed: int) -> None:
    rejected = before = after = 0
    first = ""
    lines = lf.drawn(count, seed)
    for argv, gb in lines:
        now = lf.compare(argv, gb, pasted=False)
        if now == lf.REJECTED:
            rejected += 1
            continue
        with _before():
            old = lf.compare(argv, gb, pasted=False)
        after += now is None
        before += old is None
        if now is not None and not first:
            first = f"{' '.join(argv)} @{gb:g} GB: {now}"
    print(f"{len(lines)} lines, {rejected} rejected by SGLang; live default fraction agrees "
          f"with SGLang: before {before}, after {after}")
    if first:
        print(f"first difference left: {first}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
