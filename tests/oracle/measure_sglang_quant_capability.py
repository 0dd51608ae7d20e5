"""Agreement counts on SGLang 0.5.23's model-loader GPU check (model_loader/loader.py:253-262):
every (--quantization flag, config.json quantization_config, named GPU) line of
tests.oracle.sglang_quant_capability_compare (FLAGS x LAYOUTS x GPUS), or N of them drawn
with SEED, each read whole by graphfit and run through SGLang's own checks.

A line is judged only where it reaches SGLang's check: a refusal there must be graphfit's
with the same bar, a pass must not be refused on it. Lines SGLang stops earlier are counted
by stage ("args", "verify", "before"): other rules, other tests.

Run: python -m tests.oracle.measure_sglang_quant_capability [all | N SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` package is imported instead (for a
before / after figure with the same lines and this tree's oracle)."""

from __future__ import annotations

import collections
import itertools
import logging
import random
import sys

from tests.oracle.before_tree import frozen


def main(argv: list[str]) -> None:
    if (len(argv) > 2 and argv[0] != "all") or (len(argv) > 1 and argv[0] == "all"):
        sys.path.insert(0, frozen(argv[-1]))  # one commit (before_tree, s70m)
    import graphfit
    from tests.oracle import sglang_quant_capability_compare as cc

    logging.disable(logging.WARNING)
    lines = list(itertools.product(cc.FLAGS, cc.LAYOUTS, cc.GPUS))
    if argv and argv[0] != "all":
        rng = random.Random(int(argv[1]) if len(argv) > 1 else 45)
        lines = [rng.choice(lines) for _ in range(int(argv[0]))]
    stages: collections.Counter[str] = collections.Counter()
    wrong: collections.Counter[str] = collections.Counter()
    shown = []
    for flag, layout, gpu in lines:
        stage, bad = cc.compare(flag, layout, gpu)
        stages[stage] += 1
        if bad:
            wrong[stage] += 1
            shown.append(bad)
    judged = stages["capability"] + stages["passed"] + stages["none"]
    bad_judged = wrong["capability"] + wrong["passed"] + wrong["none"]
    print(f"graphfit from {graphfit.__file__}")
    print(f"{len(lines)} lines; SGLang stages: {dict(sorted(stages.items()))}")
    passes = stages["passed"] + stages["none"]
    passes_ok = passes - wrong["passed"] - wrong["none"]
    print(f"reach the loader's check: {judged}; agree {judged - bad_judged}/{judged} "
          f"(capability refusals {stages['capability'] - wrong['capability']}/"
          f"{stages['capability']}, passes {passes_ok}/{passes})")
    print(f"argument refusals graphfit plans: {wrong['args']}/{stages['args']}")
    for line in shown[:6]:
        print("  " + line[:240])


if __name__ == "__main__":
    main(sys.argv[1:])
