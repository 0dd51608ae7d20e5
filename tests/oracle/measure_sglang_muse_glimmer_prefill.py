"""How often `graphfit plan`'s SGLang prefill component agrees with SGLang 0.5.23 on
MuseGlimmer lines, per aspect: SGLang's declared prefill graph max of 512 tokens
(arg_groups/cuda_graph_hook.py:375-389) under every flag measure_sglang_plan_prefill draws
(prefill flags and JSON phase, TP / attention DP / CP, context length, two-batch overlap, PP,
--max-total-tokens, PD roles, torch_native), on the text-only and the multimodal class, plus
the static memory fraction of each compared line (the reserve counts the ladder's sizes,
memory_hook.py:386-387).

    python -m tests.oracle.measure_sglang_muse_glimmer_prefill [N] [SEED]   # default 120, 23
"""

from __future__ import annotations

import random
import sys

from tests.oracle import sglang_muse_glimmer as mg
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle.measure_sglang_plan_prefill import Tally, draw, print_aspects

# torch_native attention lines are counted apart: their fraction counts the graphs the flags
# ask for, as the memory hook sees them (graphfit.inputs.sglang_hook_graphs, s42h)
NATIVE = "fraction, --attention-backend torch_native"


def _fraction_agrees(argv: tuple[str, ...], gb: float, model: str) -> bool:
    theirs = po.mem_fraction(argv, gb, model)
    if isinstance(theirs, so.Rejected):
        return False
    ours = spp.graphfit_plan(argv, gb, model).config.mem_fraction_static
    # equal, or none where SGLang's is not positive (graphfit leaves it unset and warns)
    return pc.disagreement(theirs[1], ours) is None


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    models = (mg.model_dir(mg.TEXT), mg.model_dir(mg.VISION))
    t = Tally()
    native_lines = 0
    for i in range(n):
        argv, gb, _ = draw(rng)
        out = spp.compare(argv, gb, models[i % 2])
        if not t.planned(out):
            continue
        aspects = dict(out.diffs)
        native = "torch_native" in argv
        native_lines += native
        if not _fraction_agrees(argv, gb, models[i % 2]):
            aspects[NATIVE if native else "fraction"] = ["mem_fraction_static differs"]
        t.count((*spp.ASPECTS, NATIVE if native else "fraction"), aspects,
                f"{' '.join(argv)} @{gb}")
    print(f"{n} MuseGlimmer lines: SGLang rejects {t.rejected}, graphfit refuses {t.refused} "
          f"(not modelled), {t.compared} compared ({t.on} with prefill graphs on)\n")
    print_aspects(spp.ASPECTS, t.equal, t.compared, t.first)
    print(f"\n| static fraction | equal | compared |\n|---|---|---|\n"
          f"| other lines | {t.equal['fraction']} | {t.compared - native_lines} |\n"
          f"| {NATIVE} | {t.equal[NATIVE]} | {native_lines} |")


if __name__ == "__main__":
    main()
