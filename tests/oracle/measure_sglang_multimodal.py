"""How often `graphfit plan` agrees with SGLang 0.5.23 on a multimodal model's prefill and decode
runners (input_embeds, mrope_positions and the rest), per aspect, on generated pasted lines.

    PYTHONPATH=. python tests/oracle/measure_sglang_multimodal.py [N] [SEED]  # default 120

Lines are drawn as tests/oracle/measure_sglang_plan_prefill.draw draws them, each on one of
three model directories (Cohere2-Vision: allowlisted; Qwen3-VL: off the breakable allowlist,
SGLang on an Ampere device; Gemma 3: text-only by default), and compared by
tests/oracle/sglang_multimodal_compare.compare. Prints one markdown row per aspect.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle import sglang_multimodal_compare as smc
from tests.oracle import sglang_stubs
from tests.oracle.measure_sglang_plan_prefill import draw, print_aspects


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    root = Path(tempfile.mkdtemp())
    models = {"cohere2_vision": (str(smc.write_cohere2_vision_model_dir(root / "c2v")), None),
              "qwen3_vl": (str(sglang_stubs.write_qwen3_vl_model_dir(root / "q3vl")), (8, 0)),
              "gemma3": (str(smc.write_gemma3_model_dir(root / "g3")), None)}
    equal: Counter[str] = Counter()
    first: dict[str, str] = {}
    per_model: Counter[str] = Counter()
    compared = rejected = refused = on = 0
    for _ in range(n):
        argv, gb, _mla = draw(rng)
        name = rng.choice(sorted(models))
        model, capability = models[name]
        out = smc.compare(argv, gb, model, capability)
        if out.sglang_rejects:
            rejected += 1
            continue
        if out.graphfit_refuses:
            refused += 1
            continue
        compared += 1
        per_model[name] += 1
        on += out.prefill_on
        for aspect in smc.ASPECTS:
            if aspect in out.diffs:
                first.setdefault(aspect, f"{name}: {' '.join(argv)} @{gb}: "
                                         f"{out.diffs[aspect][0]}")
            else:
                equal[aspect] += 1
    print(f"{n} lines: SGLang rejects {rejected}, graphfit refuses {refused} (not modelled), "
          f"{compared} compared ({on} with prefill graphs on; per model {dict(per_model)})\n")
    print_aspects(smc.ASPECTS, equal, compared, first)


if __name__ == "__main__":
    main()
