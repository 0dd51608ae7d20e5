"""Live check vs pasted line on the EPLB fields (issue 23, s40l): a grid of lines on the
oracle's model, each built by SGLang's `prepare_server_args`, then planned by `from_sglang` and
as a pasted line (tests/oracle/test_sglang_live_flags.compare).

Run: `PYTHONPATH=. python -m tests.oracle.measure_sglang_live_flags` (prints the counts)."""

from __future__ import annotations

import collections
import itertools

from tests.oracle.test_sglang_live_flags import S48, compare

GRID = itertools.product([True, False], ["0", "2"], ["trivial", "random"],
                         [(1, 1), (2, 2), (2, 1)], [None, "scale"], [None, "static", "fake"])


def main() -> None:
    counts: collections.Counter[str] = collections.Counter()
    for eplb, redundant, location, (tp, ep), join, dispatch in itertools.islice(GRID, 0, None, 3):
        argv = [*S48, "--tp", str(tp), "--ep-size", str(ep), "--ep-num-redundant-experts",
                redundant, "--init-expert-location", location]
        argv += ["--enable-eplb"] if eplb else []
        argv += [] if join is None else ["--ep-join-mode", join]
        argv += [] if dispatch is None else ["--ep-dispatch-algorithm", dispatch]
        try:
            out = compare(tuple(argv))
        except AssertionError as exc:
            counts["differ"] += 1
            print(str(exc)[:200])
            continue
        counts["SGLang refuses" if out is None
               else "refused alike" if isinstance(out, str) else "planned alike"] += 1
    print(dict(counts))


if __name__ == "__main__":
    main()
