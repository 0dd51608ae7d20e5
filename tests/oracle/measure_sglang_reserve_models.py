"""How often graphfit's default mem_fraction_static equals SGLang 0.5.23's own for MLA and
vision-language models, on generated lines, through both of graphfit's paths.

    PYTHONPATH=. python tests/oracle/measure_sglang_reserve_models.py [N] [SEED]  # default 200

Each line (drawn with `random` over the space of test_sglang_memory_oracle.lines: running
requests, PD role, chunked prefill, decode/prefill graph flags, EAGLE, TP / attention DP, PP,
GPU size) is paired with one of four model directories (a DeepSeek-V3-shaped MLA model and
Qwen3-VL models with small, about twice ViT-L/14 and very large vision encoders). Printed per
model: lines SGLang resolves, lines where the raw-args restatement equals SGLang, lines where
the pasted line's config path (`graphfit plan`) equals SGLang or is left unset where SGLang's
value is not positive (of the lines graphfit plans; SGLang run on an Ampere-class device,
since a bare GPU size leaves graphfit the generation unknown), lines graphfit refuses, and the first
difference.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle import test_sglang_memory_oracle as tm

GPUS = (16, 24, 30, 48, 80, 141, 192)


def draw(rng: random.Random) -> tuple[str, ...]:
    argv: list[str] = []
    if rng.random() < 0.75:
        argv += ["--max-running-requests", str(rng.randint(1, 4096))]
    mode = rng.choice(("", "", "decode", "prefill"))
    if mode:
        argv += ["--disaggregation-mode", mode]
    if rng.random() < 0.5:
        argv += ["--chunked-prefill-size", str(rng.randint(64, 20000))]
    graphs = rng.choice(("", "max_bs", "bs", "off", "decode_off", "prefill_off", "breakable"))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(rng.randint(1, 1024))]
    elif graphs == "bs":
        argv += ["--cuda-graph-bs-decode", *map(str, sorted(rng.sample(range(1, 600), 3)))]
    elif graphs == "off":
        argv.append("--disable-cuda-graph")
    elif graphs == "decode_off":
        argv.append("--disable-decode-cuda-graph")
    elif graphs == "prefill_off":
        argv.append("--disable-prefill-cuda-graph")
    elif graphs == "breakable":
        argv += ["--cuda-graph-backend-prefill", "breakable"]
    if rng.random() < 0.3:
        argv += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                 "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens",
                 str(rng.randint(2, 64))]
    tp = rng.choice((1, 2, 4, 8))
    if tp > 1:
        argv += ["--tp", str(tp)]
        if rng.random() < 0.5:
            argv += ["--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0]))]
    if rng.random() < 0.2:
        argv += ["--pp-size", "2"]
    return tuple(argv)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    resolved: Counter[str] = Counter()
    native: Counter[str] = Counter()
    pasted: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    first: dict[str, str] = {}
    for _ in range(n):
        name = rng.choice(tm.MODEL_NAMES)
        argv, gb = draw(rng), float(rng.choice(GPUS))
        sg = po.mem_fraction(argv, gb, tm.model_dir(name))
        if isinstance(sg, so.Rejected):
            continue
        resolved[name] += 1
        diff = tm.compare_model(argv, gb, name)
        native[name] += not diff
        ours = tm.config_fraction_for(argv, gb, name)
        sg = po.mem_fraction(argv, gb, tm.model_dir(name), tm.AMPERE)  # the generation unknown
        if isinstance(sg, so.Rejected):
            continue
        refused[name] += isinstance(ours, str)
        same = isinstance(ours, str) or ours == sg[1] or (sg[1] <= 0 and ours is None)
        pasted[name] += same and not isinstance(ours, str)
        if diff or not same:
            first.setdefault(name, f"{' '.join(argv)} @{gb:g}: {diff or (sg[1], ours)}")
    print("| model | SGLang resolves | raw-args restatement equal | pasted line equal "
          "| pasted line refused by graphfit | first difference |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in tm.MODEL_NAMES:
        planned = resolved[name] - refused[name]
        print(f"| {name} | {resolved[name]} | {native[name]}/{resolved[name]} | "
              f"{pasted[name]}/{planned} | {refused[name]} | {first.get(name, '-')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
