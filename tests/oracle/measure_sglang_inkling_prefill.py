"""How often `graphfit plan`'s SGLang prefill component agrees with SGLang 0.5.23 on Inkling
lines, per aspect: Inkling's default FULL prefill graphs (arg_groups/cuda_graph_hook.py:
349-372) under every flag measure_sglang_plan_prefill draws (prefill flags and JSON phase,
TP / attention DP / CP, context length, two-batch overlap, PP, --max-total-tokens, PD roles,
torch_native), on the Inkling model and on its class-default one.

    python -m tests.oracle.measure_sglang_inkling_prefill [N] [SEED]   # default 120, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle.measure_sglang_plan_prefill import draw, print_aspects


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    models = (mm.model_dir(mm.INKLING), mm.model_dir(mm.INKLING_DEFAULTS))
    equal: Counter[str] = Counter()
    first: dict[str, str] = {}
    compared = rejected = refused = on = 0
    for i in range(n):
        argv, gb, _ = draw(rng)
        out = spp.compare(argv, gb, models[i % 2])
        if out.sglang_rejects:
            rejected += 1
            continue
        if out.graphfit_refuses:
            refused += 1
            continue
        compared += 1
        on += out.prefill_on
        for aspect in spp.ASPECTS:
            if aspect in out.diffs:
                first.setdefault(aspect, f"{' '.join(argv)} @{gb}: {out.diffs[aspect][0]}")
            else:
                equal[aspect] += 1
    print(f"{n} Inkling lines: SGLang rejects {rejected}, graphfit refuses {refused} (not "
          f"modelled), {compared} compared ({on} with prefill graphs on)\n")
    print_aspects(spp.ASPECTS, equal, compared, first)


if __name__ == "__main__":
    main()
