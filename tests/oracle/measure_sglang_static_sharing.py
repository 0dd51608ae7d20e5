"""The tensors a static speculative line's runners share, SGLang 0.5.23 against graphfit, over
N generated EAGLE / NEXTN / STANDALONE lines (not a test).

    python -m tests.oracle.measure_sglang_static_sharing 40

On the same drawn lines (tests/oracle/sglang_draft_shape.lines, the static EAGLE-family ones
SGLang and graphfit both plan) and the same SGLang runners (built under its own
GraphSharedOutput and process-wide input pool, tests/oracle/sglang_static_sharing): "before"
with graphfit's sharing only on adaptive lines (main before s45r:
graphfit.planner.engines.sglang.share_like_sglang switched off for these static lines),
"after" with it on: lines whose shared tensors agree, and the bytes graphfit counted over
SGLang's for the same modelled buffers.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from graphfit.planner.engines import sglang
from tests.oracle import sglang_static_sharing as ss
from tests.oracle.measure_sglang_draft_shape import draw


def count(lines: list[tuple[str, ...]]) -> tuple[collections.Counter[str], int]:
    outcomes: collections.Counter[str] = collections.Counter()
    over = logits = 0
    for argv in lines:
        got = ss.compare(argv)
        if got is None:
            continue
        diffs, figures, _ = got
        outcomes["agree" if not diffs else "differ"] += 1
        over += figures["graphfit_bytes"] - figures["sglang_bytes"]
        logits += any("next_token_logits_buffer" in d for d in diffs)
    outcomes["logits_differ"] = logits
    return outcomes, over


def main(args: list[str]) -> int:
    n = int(args[0]) if args else 40
    lines = [argv for argv in draw(n) if "DFLASH" not in argv]
    print(f"generated static EAGLE-family lines: {len(lines)}")
    with mock.patch.object(sglang, "share_like_sglang", lambda comps: comps):
        before, over_before = count(lines)
    after, over_after = count(lines)
    for label, got, over in (("before (shared on adaptive lines only)", before, over_before),
                             ("after", after, over_after)):
        print(f"{label}: compared {got['agree'] + got['differ']}, agree {got['agree']}, "
              f"differ {got['differ']} (the logits among them {got['logits_differ']}), "
              f"bytes graphfit counted over SGLang's {over / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
