"""Measure (not a test): `python -m tests.oracle.measure_sglang_mamba_track_draft [COUNT] [SEED]`.

COUNT generated lines on hybrid-mamba targets with EAGLE drafts
(tests/oracle/sglang_mamba_track_draft.generate), each compared as
tests/oracle/sglang_mamba_track_draft.compare does (SGLang's runners, buffers and fills vs
graphfit's plan). Prints the outcome counts, how many served lines SGLang tracks in each
draft-extend runner, the first differences, and which graphfit answered. For a "before"
figure run it from a directory holding another tree's graphfit and this tree's tests (`python
-m` puts the working directory first on the path), e.g. `mkdir -p /tmp/before && ln -sfn
/work/main/graphfit /tmp/before/graphfit && ln -sfn $PWD/tests /tmp/before/tests && cd
/tmp/before && PYTHONPATH=$PWD python -m tests.oracle.measure_sglang_mamba_track_draft 200 1`.
A served line whose tracking sets differ (graphfit_tracks vs sglang_tracks) counts as differing.
"""

from __future__ import annotations

import sys
from collections import Counter

import graphfit
from tests.oracle import sglang_mamba_track_draft as mt
from tests.oracle.measure_root import print_outcomes


def main(count: int = 200, seed: int = 1) -> int:
    outcomes: Counter[str] = Counter()
    tracked: Counter[str] = Counter()
    shown: list[str] = []
    for case in mt.generate(count, seed):
        outcome, diffs = mt.compare(case)
        if outcome == "agree" and mt.graphfit_tracks(case) != mt.sglang_tracks(case):
            outcome, diffs = "differs", [f"tracking: graphfit {mt.graphfit_tracks(case)}, "
                                         f"SGLang {mt.sglang_tracks(case)}"]
        outcomes[outcome] += 1
        if outcome == "agree":
            for runner in mt.sglang_tracks(case):
                tracked[runner] += 1
        if outcome == "differs" and len(shown) < 5:
            shown.append(f"{' '.join(case[0])} [{case[1]}, {case[2]}]: {diffs[:2]}")
    print_outcomes(graphfit.__file__, count, seed, outcomes, "served lines where SGLang tracks",
                   tracked, shown)
    return 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
