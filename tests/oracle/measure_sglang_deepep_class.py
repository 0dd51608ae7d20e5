"""The DeepEP-class MoE build checks (graphfit.planner.engines.sglang_deepep_class) over
drawn Qwen3-MoE lines: SGLang resolves each line and builds the model's MoE block
(tests.oracle.test_sglang_deepep_class_oracle.sglang), graphfit plans it through its CLI;
both must refuse (naming SGLang's build error where the build is what fails) or both start.

    python -m tests.oracle.measure_sglang_deepep_class [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure).
Prints agree / differ / not modelled, then the first differing lines."""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle import test_sglang_deepep_class_oracle as t

    so.oracle()
    model = sglang_stubs.write_moe_model_dir(Path(tempfile.mkdtemp()) / "moe")
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    for _ in range(count):
        line, jit = t.line(rng)
        said = t._agree(model, line, jit)
        tally(counts, lines, said is None, said or "",
              f"{' '.join(line)} jit={jit}: {(said or '')[:240]}")
    print_counts(count, seed, counts, lines)
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
