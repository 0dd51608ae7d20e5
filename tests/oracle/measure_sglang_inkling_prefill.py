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

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle.measure_sglang_plan_prefill import Tally, draw, print_aspects


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    models = (mm.model_dir(mm.INKLING), mm.model_dir(mm.INKLING_DEFAULTS))
    t = Tally()
    for i in range(n):
        argv, gb, _ = draw(rng)
        out = spp.compare(argv, gb, models[i % 2])
        if t.planned(out):
            t.count(spp.ASPECTS, out.diffs, f"{' '.join(argv)} @{gb}")
    print(f"{n} Inkling lines: SGLang rejects {t.rejected}, graphfit refuses {t.refused} (not "
          f"modelled), {t.compared} compared ({t.on} with prefill graphs on)\n")
    print_aspects(spp.ASPECTS, t.equal, t.compared, t.first)


if __name__ == "__main__":
    main()
