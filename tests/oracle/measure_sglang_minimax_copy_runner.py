"""Measure MiniMax-M3 lines whose `--quantization` is unset, so the model hook copies
config.json's method into it on any GPU (arg_groups/model_overrides/minimax_m3.py:18-34,
46-53), against SGLang's own argument pipeline and KV price (the MiniMax KV oracle,
tests/oracle/sglang_minimax_kv_oracle.cell_sizes): the MoE runner asserts
(arg_groups/moe_hook.py:80-147) then see the copy (issue 23 s64m).
`python -m tests.oracle.measure_sglang_minimax_copy_runner [COUNT] [SEED] [BEFORE]`
(default 60 draws, seed 64). A draw: a quantization_config (none, fp8, ModelOpt FP8 / NVFP4 /
mixed, mxfp8, a named modelopt_fp8 / modelopt_fp4), a MoE runner, an a2a backend, a GPU,
sometimes the flag given. It prints each difference and the counts of this tree and, with
BEFORE (e.g. /work/main), of that tree's graphfit on the same draws (a subprocess)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.oracle.before_tree import frozen

MO = {"quant_method": "modelopt"}
CONFIGS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "fp8": {"quant_method": "fp8", "activation_scheme": "dynamic",
            "weight_block_size": [128, 128]},
    "modelopt-fp8": {**MO, "quant_algo": "FP8"},
    "modelopt-nvfp4": {**MO, "quant_algo": "NVFP4", "group_size": 16},
    "modelopt-mixed": {**MO, "quant_algo": "MIXED_PRECISION", "quantized_layers": {
        "model.layers.0.mlp": {"quant_algo": "NVFP4", "group_size": 16}},
        "kv_cache_quant_algo": "FP8"},
    "mxfp8": {"quant_method": "mxfp8", "activation_scheme": "dynamic"},
    "named-modelopt_fp8": {"quant_method": "modelopt_fp8", "quant_algo": "FP8"},
    "named-modelopt_fp4": {"quant_method": "modelopt_fp4", "quant_algo": "NVFP4",
                           "group_size": 16},
}
RUNNERS = ("auto", "flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed",
           "flashinfer_cutedsl", "triton", "deep_gemm")
FLAGS = ("fp8", "modelopt_fp8", "modelopt_fp4", "mxfp8")


def draw(rng: random.Random) -> dict[str, Any]:
    """One MiniMax-M3 line (the KV oracle's `case`, MoE fields named so a2a backends count)."""
    from tests.oracle import test_sglang_minimax_kv_oracle as t

    name = rng.choice(list(CONFIGS))
    a2a = rng.choice(("none", "none", "deepep", "flashinfer"))
    more: tuple[str, ...] = ("--moe-runner-backend", rng.choice(RUNNERS),
                             "--moe-a2a-backend", a2a)
    tp = (1, 1)
    if a2a != "none" or rng.random() < 0.2:
        tp = (2, 2 if a2a == "flashinfer" else 1)  # flashinfer: attention DP = TP
        more += ("--ep-size", "2")
    if rng.random() < 0.2:
        more += ("--quantization", rng.choice(FLAGS))
    c = t.case([0, 1], index_dim=128, gpu=rng.choice(("H100", "B200", "A100")), more=more,
               tp=tp)
    c["fields"].update(num_experts_per_tok=2, num_local_experts=4)
    config = CONFIGS[name]
    if config is not None:
        c["fields"]["quantization_config"] = config
    return c


def graphfit_side(c: dict[str, Any]) -> str:
    """"refused" / "not modelled" (a refusal saying so) / "not priced" / the price, as text
    (the tree on PYTHONPATH)."""
    from tests.oracle import test_sglang_minimax_kv_oracle as t

    ours = t.graphfit_prices(c)
    text = str(ours)
    if text.startswith("refused") and "not modelled" in text:
        return "not modelled"
    return text.split(":")[0] if text.startswith(("refused", "not priced")) else text


def emit(items: list[dict[str, Any]]) -> list[str]:
    return [graphfit_side(c) for c in items]


def verdict(theirs: Any, ours: str) -> str:
    """The outcome: SGLang's price or refusal against graphfit's side (a "not modelled"
    refusal is a refusal)."""
    if isinstance(theirs, str):
        if ours in ("refused", "not modelled"):
            return "agree (both refuse)"
        side = "not priced" if ours == "not priced" else "plans"
        return f"differ (sglang refuses, graphfit {side})"
    if ours in ("refused", "not priced", "not modelled"):
        return "differ (graphfit refuses)" if ours == "refused" else ours
    return "agree" if str(theirs) == ours else "differ (price)"


def main(count: int = 60, seed: int = 64, root: str | None = None) -> None:
    from tests.oracle import test_sglang_minimax_kv_oracle as t

    rng = random.Random(seed)
    items = [draw(rng) for _ in range(count)]
    theirs = [t.sglang_prices(c) for c in items]
    after: Counter[str] = Counter()
    for c, s, ours in zip(items, theirs, emit(items), strict=True):
        outcome = verdict(s, ours)
        after[outcome] += 1
        if outcome.startswith("differ"):
            print(outcome, t.argv_of(c), c["gpu"], c["fields"].get("quantization_config"),
                  "| sglang:", str(s)[:120].replace("\n", " "))
    before = None if root is None else _before(root, items, theirs)
    for label, counts in ((f"before ({root})", before), ("after (this tree)", after)):
        if counts is not None:
            print(f"{label}: {dict(sorted(counts.items()))}")


def _before(root: str, items: list[dict[str, Any]], theirs: list[Any]) -> Counter[str]:
    """The verdicts of `root`'s graphfit on the same draws (this script's `emit` run in a
    subprocess with `root` on PYTHONPATH)."""
    done = subprocess.run(
        [sys.executable, "-c", "import json, runpy, sys; emit = runpy.run_path("
         "sys.argv[1])['emit']; print(json.dumps(emit(json.loads(sys.stdin.read()))))",
         str(Path(__file__).resolve())], input=json.dumps(items), capture_output=True,
        text=True, env={**os.environ, "PYTHONPATH": frozen(root)}, check=True, cwd=frozen(root))
    old = json.loads(done.stdout.strip().splitlines()[-1])
    return Counter(verdict(s, o) for s, o in zip(theirs, old, strict=True))


if __name__ == "__main__":
    ARGS = dict(enumerate(sys.argv[1:]))
    main(int(ARGS.get(0, 60)), int(ARGS.get(1, 64)), ARGS.get(2))
