"""Measure (not a test): `python -m tests.oracle.measure_sglang_mamba_track_prefill [COUNT] [SEED]`.

COUNT generated lines on hybrid-mamba targets (tests/oracle/sglang_mamba_track_prefill.
generate), each compared as tests/oracle/sglang_plan_prefill.compare does (SGLang's prefill
runner buffers, fills, ladder, dispatch vs graphfit's plan). Prints the outcome counts, how
many compared lines SGLang's prefill runner tracks on, per backend, the first differences, and
which graphfit answered. For a "before" figure run it from a directory holding another tree's
graphfit and this tree's tests (`python -m` puts the working directory first on the path),
e.g. `mkdir -p /tmp/before && ln -sfn /work/main/graphfit /tmp/before/graphfit && ln -sfn
$PWD/tests /tmp/before/tests && cd /tmp/before && PYTHONPATH=$PWD python -m
tests.oracle.measure_sglang_mamba_track_prefill 120 1`.
"""

from __future__ import annotations

import sys
from collections import Counter

import graphfit
from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_mamba_track_prefill as mp  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402
from tests.oracle.measure_root import print_outcomes  # noqa: E402


def main(count: int = 120, seed: int = 1) -> int:
    outcomes: Counter[str] = Counter()
    tracked: Counter[str] = Counter()
    shown: list[str] = []
    for case in mp.generate(count, seed):
        out = mp.compare(case)
        if out.sglang_rejects:
            outcome = ("both refuse" if mp.graphfit_tracks(case) is None
                       else "SGLang refuses, graphfit plans")
        elif out.graphfit_refuses:
            outcome = "graphfit refuses (not modelled)"
        elif out.diffs:
            outcome = "differs"
            if len(shown) < 5:
                shown.append(f"{' '.join(case[0])} [{case[1]}]: {out.diffs}")
        else:
            outcome = "agree"
            if mp.sglang_tracks(case):
                sg = po.prefill(case[0], 80, mp.model_path(case[1]))
                tracked[getattr(sg, "backend", "?")] += 1
        outcomes[outcome] += 1
    print_outcomes(graphfit.__file__, count, seed, outcomes,
                   "agreeing lines where SGLang's prefill runner tracks, by backend",
                   tracked, shown)
    return 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
