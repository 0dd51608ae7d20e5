"""Count graphfit vs SGLang 0.5.23 agreement for the Bailing MM v1/v2 and RADIO ViT towers.

    PYTHONPATH=. python tests/oracle/measure_sglang_vit_towers.py [--configs N] [--seed S]
        [--main DIR]

Generated Bailing MM config.json files (tests/oracle/sglang_vit_towers.py `bailing_case`) go
through SGLang's own constructor, VisionAttention, glue and ViTCudaGraphRunner on the CPU and
through graphfit's `read_geometry` + plan; printed: configs that agree (planned or refused by
both), per family, the keys compared, and any disagreement. RADIO: SGLang's own forwards
under ViT graphs (the exception each path ends in) next to graphfit's refusal.
Qwen3-VL subclasses (Qwen3.5 / -MoE, Intern-S1-Pro, Intern-S2, Cosmos3, Qwen4-Exp): generated
config.json files through SGLang's own constructor and config class (sglang_vit_towers.py
`subclass_agrees`), with the "before" of `--main DIR` (default /work/main): a config agrees
there only when main plans the architecture as qwen3_vl or both refuse it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from graphfit.planner.engines import sglang_vit as sv
from tests.oracle import sglang_vit_oracle as vo
from tests.oracle import sglang_vit_towers as towers
from tests.oracle.measure_sglang_vit import main_module, run_options


def main() -> None:
    configs, rng = run_options()
    agree: Counter[str] = Counter()
    disagree: list[str] = []
    keys = 0
    with vo.cpu_graphs():
        for i in range(configs):
            case = towers.bailing_case(rng)
            try:
                n = towers.bailing_agrees(case)
            except AssertionError as exc:
                disagree.append(f"config {i}: {exc!r}"[:200])
                continue
            keys += n
            name = (case.vision.get("architectures") or [case.vision.get("model_type")])[0]
            agree["refused by both" if n == 0 else sv.BAILING_MM_TOWERS[name]] += 1
        outcome, captured = vo.radio_with_graphs(hidden=32, heads=2, tokens=5, images=3)
    print(f"Bailing MM: {sum(agree.values())}/{configs} configs agree "
          f"({', '.join(f'{k} {v}' for k, v in sorted(agree.items()))}); {keys} keys agree; "
          f"{len(disagree)} disagree")
    for line in disagree[:5]:
        print(f"  {line}")
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps({"architectures": [next(iter(sv.REFUSED_ARCHITECTURES))]}))
        said = towers.radio_refused(path)
    print(f"RADIO under SGLang's ViT graphs: fixed-size forward -> {outcome['forward']}, "
          f"dynamic forward -> {outcome['dynamic']}; graphs captured first: {len(captured)}")
    print(f"graphfit: {said}")
    subclasses(configs, rng)
    sys.exit(1 if disagree or SUBCLASS_DISAGREE else 0)


SUBCLASS_DISAGREE: list[str] = []


def subclasses(configs: int, rng: Any) -> None:
    """The Qwen3-VL subclasses' section (module docstring); disagreements into
    SUBCLASS_DISAGREE."""
    main = main_module()
    agree: Counter[str] = Counter()
    before = keys = 0
    with vo.cpu_graphs():
        for i in range(configs):
            case = towers.subclass_case(rng)
            try:
                n = towers.subclass_agrees(case)
            except AssertionError as exc:
                SUBCLASS_DISAGREE.append(f"config {i}: {exc!r}"[:200])
                continue
            keys += n
            agree["refused by both" if n == 0 else case.model_class] += 1
            if main is not None:
                planned = (main.VIT_ARCHITECTURES.get(case.model_class) == "qwen3_vl"
                           and case.model_class not in main.REFUSED_ARCHITECTURES)
                before += planned if n else not planned
    print(f"Qwen3-VL subclasses: {sum(agree.values())}/{configs} configs agree "
          f"({', '.join(f'{k} {v}' for k, v in sorted(agree.items()))}); {keys} keys agree; "
          f"{len(SUBCLASS_DISAGREE)} disagree")
    if main is not None:
        print(f"  before ({main.__file__}): {before}/{configs} agree")
    for line in SUBCLASS_DISAGREE[:5]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
