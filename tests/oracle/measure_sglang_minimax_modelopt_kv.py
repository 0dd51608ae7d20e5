"""Measure graphfit's MiniMax-M3 sparse KV price and page against SGLang's own
`_compute_cell_size` on lines whose checkpoint is a flat ModelOpt config (issue 23 s60m):
`python -m tests.oracle.measure_sglang_minimax_modelopt_kv [COUNT] [SEED] [BEFORE]` (default
40 draws, seed 23). A draw is the KV quant measure's line (test_sglang_minimax_kv_oracle's
`draw` and a --page-size) with a ModelOpt `quantization_config` (FP8 / NVFP4 / W4A16_NVFP4 /
MIXED_PRECISION with NVFP4 or W4A8 layers / MXFP8 (s61m); `kv_cache_quant_algo` FP8 / fp8 /
NVFP4 / absent, a `kv_cache_scheme` dict of 8 or 4 bits or a string) and, sometimes, a
--quantization naming the class, another ModelOpt one, fp8 or mxfp8 (s61m). SGLang resolves
each line on a fake device of the GPU's memory. BEFORE (e.g. /work/main) counts the lines
whose plan by that tree states SGLang's figures, printed first. A fourth argument `nested` moves
each drawn config into the directory's hf_quant_config.json as its `quantization` section (a
ModelOpt producer and, for FP4 algorithms, a group_size on most draws) with no config.json
config (issue 23 s62m); `both` writes the file and keeps the config.json config (which wins,
save an incomplete modelopt_mixed one the loader completes from the file). Issue 23 s63m's
forms: `vl` (the config in the VL wrapper's text_config, a nested file beside it), `flatfile`
(the file flat, no config.json config), `doubly` (the file's section nested twice), `slim`
(a ModelSlim quant_model_description.json beside the config.json config: SGLang prices it
under `--quantization modelslim` only; its refusals print with graphfit's answer)."""

from __future__ import annotations

import functools
import random
import sys
from typing import Any

from tests.oracle import measure_sglang_minimax_kv_quant as mq
from tests.oracle.measure_sglang_minimax_kv import measure
from tests.oracle.test_sglang_minimax_modelopt_kv_oracle import (
    NVFP4_LAYERS,
    SLIM,
    W4A8_LAYERS,
)

ALGOS = {"FP8": "modelopt_fp8", "NVFP4": "modelopt_fp4", "W4A16_NVFP4": "modelopt_fp4",
         "MIXED_PRECISION": "modelopt_mixed", "MXFP8": "mxfp8"}
KV: tuple[dict[str, Any], ...] = (
    {}, {"kv_cache_quant_algo": "FP8"}, {"kv_cache_quant_algo": "fp8"},
    {"kv_cache_quant_algo": "NVFP4"}, {"kv_cache_scheme": {"type": "float", "num_bits": 8}},
    {"kv_cache_scheme": {"type": "float", "num_bits": 4}, "kv_cache_quant_algo": "FP8"},
    {"kv_cache_scheme": "FP8"}, {"kv_cache_scheme": "nvfp4", "kv_cache_quant_algo": "FP8"})


def draw(rng: random.Random) -> dict[str, Any]:
    """One line: the KV quant measure's draw with a ModelOpt config and maybe its flag."""
    c = mq.draw(rng)
    algo = rng.choice(list(ALGOS))
    config: dict[str, Any] = {"quant_method": "modelopt", "quant_algo": algo, **rng.choice(KV)}
    if algo == "MIXED_PRECISION":
        config["quantized_layers"] = rng.choice((NVFP4_LAYERS, NVFP4_LAYERS, W4A8_LAYERS))
    flag = rng.choice((ALGOS[algo], ALGOS[algo], "modelopt", "modelopt_fp8", "modelopt_fp4",
                       "fp8", "mxfp8", "w4afp8"))
    more = tuple(c["more"]) + (("--quantization", flag) if rng.random() < 0.4 else ())
    return {**c, "fields": {**c["fields"], "quantization_config": config}, "more": more}


def draw_nested(rng: random.Random, keep: bool = False, shape: str = "nested"
                ) -> dict[str, Any]:
    """`draw`'s line with its config as a nested hf_quant_config.json instead (`keep`: in
    config.json too); `shape` "flat" writes the file flat (the config's keys at its top, its
    quant_method kept on half the draws), "doubly" nests the section twice, "vl" keeps the
    config in the VL wrapper's text_config only (issue 23 s63m)."""
    c = draw(rng)
    if shape == "vl":
        c, keep = {**c, "nested": True}, True
    fields = dict(c["fields"])
    flat = fields["quantization_config"] if keep else fields.pop("quantization_config")
    section = {k: v for k, v in flat.items() if k != "quant_method"}
    producer = {"producer": {"name": "modelopt"}} if rng.random() < 0.8 else {}
    if "FP4" in section["quant_algo"] and rng.random() < 0.85:
        section["group_size"] = 16  # the nested FP4 reader needs one (modelopt_quant.py:1562)
    if shape == "flat":
        method = {"quant_method": "modelopt"} if rng.random() < 0.5 else {}
        return {**c, "fields": fields, "hf_quant": {**producer, **method, **section}}
    if shape == "doubly":
        section = {"quantization": section}
    return {**c, "fields": fields, "hf_quant": {**producer, "quantization": section}}


def main(count: int = 40, seed: int = 23, root: str | None = None, form: str = "flat") -> None:
    drawn = {"nested": draw_nested, "both": lambda rng: draw_nested(rng, keep=True),
             **{shape: functools.partial(draw_nested, shape=shape)
                for shape in ("vl", "doubly")},
             "flatfile": functools.partial(draw_nested, shape="flat"),
             "slim": lambda rng: {**draw(rng), "modelslim": SLIM}}
    measure(drawn.get(form, draw), mq.verdict,
            lambda c: (mq.t.argv_of(c), c["gpu"], c["fields"].get("quantization_config"),
                       c.get("hf_quant")),
            count, seed, root, states=mq._before_states, labels=("agree", "differ"),
            ours_width=160)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 40, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None, args[3] if len(args) > 3 else "flat")
