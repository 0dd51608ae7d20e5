"""Agreement counts on SGLang 0.5.23's model-loader dtype check (model_loader/loader.py:
263-270): N (--quantization, config.json quantization_config, --dtype, checkpoint torch_dtype,
named GPU) lines of tests.oracle.sglang_quant_dtype_compare drawn with SEED, each read whole
by graphfit and run through SGLang's own checks.

Judged: a dtype refusal must be graphfit's; a line SGLang passes must not be refused on the
dtype. Lines SGLang stops earlier are counted by stage only (other rules, other tests).

Run: python -m tests.oracle.measure_sglang_quant_dtype [N SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` package is imported instead (a before /
after figure on the same lines with this tree's oracle)."""

from __future__ import annotations

import collections
import logging
import random
import sys

from tests.oracle.before_tree import frozen


def main(argv: list[str]) -> None:
    if len(argv) > 2:
        sys.path.insert(0, frozen(argv[2]))  # one commit (before_tree, s70m)
    import graphfit
    from tests.oracle import sglang_quant_dtype_compare as dc

    logging.disable(logging.WARNING)
    count = int(argv[0]) if argv else 300
    rng = random.Random(int(argv[1]) if len(argv) > 1 else 46)
    stages: collections.Counter[str] = collections.Counter()
    wrong: collections.Counter[str] = collections.Counter()
    shown = []
    for _ in range(count):
        line = (rng.choice(dc.FLAGS), rng.choice((None, None, *dc.LAYOUTS)),
                rng.choice(dc.DTYPES), rng.choice(dc.CHECKPOINT_DTYPES), rng.choice(dc.GPUS))
        stage, bad = dc.compare(*line)
        stages[stage] += 1
        if bad:
            wrong[stage] += 1
            shown.append(bad)
    passes = stages["passed"] + stages["none"]
    print(f"graphfit from {graphfit.__file__}")
    print(f"{count} lines; SGLang stages: {dict(sorted(stages.items()))}")
    print(f"dtype refusals graphfit refuses on the dtype: "
          f"{stages['dtype'] - wrong['dtype']}/{stages['dtype']}; "
          f"passes graphfit does not refuse on it: "
          f"{passes - wrong['passed'] - wrong['none']}/{passes}")
    for line in shown[:6]:
        print("  " + line[:240])


if __name__ == "__main__":
    main(sys.argv[1:])
