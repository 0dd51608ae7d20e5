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
from tests.oracle.measure_sglang_plan_prefill import Tally, draw, print_aspects


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    root = Path(tempfile.mkdtemp())
    models = {"cohere2_vision": (str(smc.write_cohere2_vision_model_dir(root / "c2v")), None),
              "qwen3_vl": (str(sglang_stubs.write_qwen3_vl_model_dir(root / "q3vl")), (8, 0)),
              "gemma3": (str(smc.write_gemma3_model_dir(root / "g3")), None)}
    t = Tally()
    per_model: Counter[str] = Counter()
    for _ in range(n):
        argv, gb, _mla = draw(rng)
        name = rng.choice(sorted(models))
        model, capability = models[name]
        out = smc.compare(argv, gb, model, capability)
        if not t.planned(out):
            continue
        per_model[name] += 1
        t.count(smc.ASPECTS, out.diffs, f"{name}: {' '.join(argv)} @{gb}")
    print(f"{n} lines: SGLang rejects {t.rejected}, graphfit refuses {t.refused} (not "
          f"modelled), {t.compared} compared ({t.on} with prefill graphs on; per model "
          f"{dict(per_model)})\n")
    print_aspects(smc.ASPECTS, t.equal, t.compared, t.first)


if __name__ == "__main__":
    main()
