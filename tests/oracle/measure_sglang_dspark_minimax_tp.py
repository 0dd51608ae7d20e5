"""Agreement of graphfit with SGLang 0.5.23 over N generated DSPARK lines with a MiniMax M3.1
draft at TP 2 / 4 (not a test).

    python -m tests.oracle.measure_sglang_dspark_minimax_tp 60
    python -m tests.oracle.measure_sglang_dspark_minimax_tp 60 dp

With `dp` every line is under attention DP with --enable-dp-lm-head (TP 2 / DP 2, TP 4 / DP 2,
TP 4 / DP 4; the oracle's untied Llama target, whose lm_head SGLang shards on the
attention-TP group, llama.py:573-579).

Each line (a fixed seed: the same lines on every run) draws the draft's vocabulary, Markov
head type and QK norm (test_sglang_dspark_minimax_oracle.TP_FIELDS), a VAR=value prefix of
the two switches (TP_ENV) and `--disable-custom-all-reduce` on half the lines. SGLang's
answer: its whole DSPARK pipeline and draft runner (sglang_dspark_compare.compare_line), and
its own `attach_shared_modules` on both GPU kinds (sglang_dspark_minimax_tp.outcome). Agrees:

- SGLang raises (construction, worker or the Markov TP shard): graphfit refuses, not "as not
  modelled";
- SGLang keeps a symmetric buffer on multicast GPUs only ("gpus"): graphfit refuses as not
  modelled;
- SGLang keeps none ("plain"): graphfit plans, and its plan of the line has no difference
  from SGLang's runners and folded sampler.

Prints the counts by SGLang's outcome, the agreement, and the first disagreements.
"""

from __future__ import annotations

import json
import random
import sys

from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_dspark_minimax_tp as kt
from tests.oracle import test_sglang_dspark_minimax_oracle as tm


def _line(rng: random.Random, dp: bool
          ) -> tuple[str, tuple[int, int], dict[str, str], bool]:
    fields = {name: rng.choice(values) for name, values in tm.TP_FIELDS.items()}
    names = rng.sample(sorted(tm.TP_ENV), rng.randint(0, 2))
    environ = {name: rng.choice(tm.TP_ENV[name]) for name in sorted(names)}
    sizes = rng.choice(((2, 2), (4, 2), (4, 4))) if dp else (rng.choice((2, 4)), 1)
    return json.dumps(fields, sort_keys=True), sizes, environ, rng.random() < 0.5


def _graphfit(outcome: str, diffs: list) -> str:  # type: ignore[type-arg]
    """What graphfit did with the line, from compare_line's answer."""
    if outcome == "not_modelled":
        return "gpus"
    if outcome == "differs" and [d.aspect for d in diffs] == ["acceptance"] \
            and diffs[0].detail.startswith("SGLang accepts"):
        return "gpus" if "not modelled" in diffs[0].detail else "raises"
    if outcome == "rejected":
        return "raises"
    return "plain" if not diffs and outcome != "differs" else "differs"


def main(count: int, dp: bool = False) -> None:
    rng = random.Random(23)
    tally: dict[str, int] = {}
    agree = 0
    shown: list[str] = []
    for _ in range(count):
        fields, (tp, size), environ, car = _line(rng, dp)
        path = kc.minimax_dir(fields)
        resolved = tm._resolved_dp(tp, size) if dp else tm._resolved(tp)
        theirs, _ = kt.outcome(resolved, path, tm.VOCAB, tp, environ, car)
        argv = (*(f"{k}={v}" for k, v in environ.items()), "--speculative-algorithm",
                "DSPARK", "--tp-size", str(tp),
                *((*tm.DP, str(size)) if dp else ()),
                *(() if car else ("--disable-custom-all-reduce",)), kc.DRAFT, path)
        outcome, diffs = kc.compare_line(argv, 80)
        if theirs == "plain" and outcome == "rejected":
            theirs = "raises"  # SGLang's pipeline (or its model) refused it before the attach
        ours = _graphfit(outcome, diffs)
        tally[theirs] = tally.get(theirs, 0) + 1
        if ours == theirs:
            agree += 1
        elif len(shown) < 5:
            shown.append(f"  {' '.join(argv[:-1])} {fields}: SGLang {theirs}, graphfit {ours} "
                         f"{[d.detail[:120] for d in diffs]}")
    where = "under attention DP" if dp else "at TP 2 / 4"
    print(f"{count} MiniMax M3.1 DSPARK lines {where}: SGLang " +
          ", ".join(f"{name} {n}" for name, n in sorted(tally.items())))
    print(f"agree {agree}/{count}")
    print("\n".join(shown))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60, sys.argv[2:3] == ["dp"])
