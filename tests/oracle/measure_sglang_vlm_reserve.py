"""How often graphfit's restatement of SGLang 0.5.23's `adjust_mem_fraction_for_vlm` (and the
post-capture reserve around it) equals SGLang's own, before and after post-capture KV sizing
was restated (graphfit/planner/engines/sglang_memory.py `vlm_fraction`).

    PYTHONPATH=. python tests/oracle/measure_sglang_vlm_reserve.py [N] [SEED]  # default 300

Two measurements, both in this run:
* the function: N generated (fraction, vision encoder or none, post-capture on/off, GPU
  size or unknown) vs SGLang's `adjust_mem_fraction_for_vlm` (memory_hook.py:417-462);
  "before" is main's restatement (x the encoder's factor, no post-capture branch);
* the whole default: N generated lines (test_sglang_memory_oracle's space, plus forced
  breakable prefill graphs) on Qwen3-VL model directories and a text-only model, resolved by
  SGLang with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1; SGLang's own post-capture answer is
  the caller's input to graphfit (the predicate is not restated). "before": the same
  restatement without the post-capture flag (what main computes: it has none).
"""

from __future__ import annotations

import random
import sys
import types
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from graphfit.planner.engines.sglang_memory import (
    VisionEncoder,
    mem_fraction_static,
    vlm_fraction,
)
from tests.oracle import measure_sglang_reserve_models as mr
from tests.oracle import sglang_oracle as so
from tests.oracle import test_sglang_memory_oracle as tm
from tests.oracle import test_sglang_vlm_reserve_oracle as tv

MODELS = ("vl_small", "vl_2x", "vl_huge", "llama")


def _before_fn(fraction: float, vision: VisionEncoder | None) -> float:
    """main's restatement: the factor only."""
    return fraction * vision.factor() if vision is not None else fraction


def function_figures(n: int, rng: random.Random) -> tuple[int, int, int]:
    so.oracle()
    from sglang.srt.arg_groups.memory_hook import adjust_mem_fraction_for_vlm

    after = before = 0
    for _ in range(n):
        fraction = rng.randint(1, 999) / 1000
        vision = (None if rng.random() < 0.2 else VisionEncoder(
            rng.randint(1, 200), rng.choice([64, 768, 1024, 1152, 1280, 1664, 4096])))
        post = rng.random() < 0.5
        gpu = None if rng.random() < 0.15 else rng.choice(mr.GPUS) * 1024
        cfg = types.SimpleNamespace(hf_config=types.SimpleNamespace(
            vision_config=None if vision is None else types.SimpleNamespace(
                num_hidden_layers=vision.layers, hidden_size=vision.hidden_size)))
        theirs = adjust_mem_fraction_for_vlm(fraction, cfg, post, gpu)
        after += vlm_fraction(fraction, vision, post_capture_kv_sizing=post,
                              gpu_mib=gpu) == theirs
        before += _before_fn(fraction, vision) == theirs
    return n, before, after


def model_dir(name: str) -> str | None:
    return None if name == "llama" else tm.model_dir(name)


def pipeline_figures(n: int, rng: random.Random) -> None:
    resolved: Counter[str] = Counter()
    planned: Counter[str] = Counter()
    after: Counter[str] = Counter()
    before: Counter[str] = Counter()
    first: dict[str, str] = {}
    for _ in range(n):
        name = rng.choice(MODELS)
        argv, gb = mr.draw(rng), float(rng.choice(mr.GPUS))
        if rng.random() < 0.4 and "--cuda-graph-backend-prefill" not in argv:
            argv = (*argv, "--cuda-graph-backend-prefill", "breakable")
        model = model_dir(name)
        with tv.post_capture_env() as asked:
            sg = tv.fresh_fraction(argv, gb, model)
        if isinstance(sg, so.Rejected) or not asked:
            continue
        raw, theirs = sg
        try:
            ours = [mem_fraction_static(tv.graphfit_inputs(raw, gb, model, flag))
                    for flag in (asked[-1], False)]
        except Exception as exc:  # a line graphfit refuses: not counted
            first.setdefault(name, f"refused: {exc}")
            continue
        resolved[name] += 1
        planned[name] += asked[-1]
        after[name] += ours[0] == theirs
        before[name] += ours[1] == theirs
        if ours[0] != theirs:
            first.setdefault(name, f"{' '.join(argv)} @{gb:g}: SGLang {theirs}, {ours[0]}")
    print("| model | SGLang resolves | post-capture planned | before: equal | after: equal "
          "| first difference (after) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in MODELS:
        print(f"| {name} | {resolved[name]} | {planned[name]} | {before[name]}/{resolved[name]}"
              f" | {after[name]}/{resolved[name]} | {first.get(name, '-')} |")


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    total, before, after = function_figures(n, rng)
    print(f"adjust_mem_fraction_for_vlm over {total} generated inputs: before {before}/{total} "
          f"equal, after {after}/{total} equal")
    pipeline_figures(n, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
