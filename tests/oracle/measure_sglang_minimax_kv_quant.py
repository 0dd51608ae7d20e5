"""Measure graphfit's MiniMax-M3 sparse KV price and page against SGLang's own
`_compute_cell_size` and resolved page_size on lines whose checkpoint names a KV quantization
or that give --page-size (issue 23 s55n):
`python -m tests.oracle.measure_sglang_minimax_kv_quant [COUNT] [SEED] [BEFORE]` (default 60
draws, seed 23). A draw is test_sglang_minimax_kv_oracle's `draw` with a quantization config
(none, fp8 with kv_cache_quant_algo FP8 / fp8 / NVFP4 / absent, mxfp8 FP8, the NVFP4 checkpoint,
compressed-tensors with a static / dynamic FP8 kv_cache_scheme) and a --page-size (unset, 1,
16, 64, 128) added. SGLang resolves each line on a fake device of the GPU's memory. It prints
SGLang's refusals, each difference, and the counts.

BEFORE, a repository root (e.g. /work/main), also pastes each line SGLang prices into that
tree's `graphfit plan` (a child process a line) and counts the lines whose output states
SGLang's figure a token and a page ("<N> B a token", "<N x P> B a page of <P>"), printed
first; "after" counts this tree's agreement on the same lines."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from typing import Any

from tests.oracle import test_sglang_minimax_kv_oracle as t
from tests.oracle import test_sglang_minimax_kv_quant_oracle as q
from tests.oracle.measure_sglang_minimax_kv import measure

# per-tensor fp8 (no weight_block_size): the block rules of the model class (fp8.py:601-609)
# are the target oracle's business, not this price's
FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic"}
QUANTS: tuple[dict[str, Any] | None, ...] = (
    None, None, {**FP8, "kv_cache_quant_algo": "FP8"}, {**FP8, "kv_cache_quant_algo": "fp8"},
    {**FP8, "kv_cache_quant_algo": "NVFP4"}, FP8,
    {"quant_method": "mxfp8", "activation_scheme": "dynamic", "kv_cache_quant_algo": "FP8"},
    t.NVFP4["quantization_config"], {**q.CT, "kv_cache_scheme": q.CT_SCHEME},
    {**q.CT, "kv_cache_scheme": {**q.CT_SCHEME, "dynamic": True}})


def draw(rng: random.Random) -> dict[str, Any]:
    """One line: the KV oracle's draw, a quantization config and a --page-size."""
    c = t.draw(rng)
    config = rng.choice(QUANTS)
    page = rng.choice((None, None, 1, 1, 16, 64, 128))
    more = tuple(c["more"]) + (() if page is None else ("--page-size", str(page)))
    fields = dict(c["fields"])
    if config is not None:
        fields["quantization_config"] = config
    return {**c, "fields": fields, "more": more}


def _before_states(root: str, c: dict[str, Any], theirs: Any) -> bool:
    """Whether `root`'s graphfit plan of the pasted line states SGLang's figures."""
    totals, page = theirs
    line = [*(f"{k}={v}" for k, v in c["env"]), "python", "-m", "sglang.launch_server",
            "--model-path", t.path_of(c), *t.argv_of(c)]
    out = subprocess.run(
        [sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", c["gpu"], "--",
         shlex.join(line)], capture_output=True, text=True, check=False, cwd=root,
        env={**os.environ, "PYTHONPATH": root, "COLUMNS": "400"})
    text = " ".join((out.stdout + out.stderr).split())
    return all(f"{total} B a token" in text and f"{total * page} B a page of {page}" in text
               for total in totals)


def verdict(c: dict[str, Any]) -> tuple[str, Any, Any]:
    """t.verdict with SGLang resolved on a fake device of the GPU's own memory (graphfit's
    GPU_MEMORY_GB, as measure_sglang_minimax_nvfp4_hook does), so memory-tier defaults
    (chunked prefill, hence the megamoe token budget) match the plan's."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import sglang_minimax_kv_oracle as kv

    theirs = kv.cell_sizes(t.path_of(c), t.argv_of(c), t.CAPABILITY[c["gpu"]], c["env"],
                           gpu_mem_gb=GPU_MEMORY_GB[c["gpu"]])
    ours = t.graphfit_prices(c)
    if isinstance(theirs, str):
        return ("sglang refuses", theirs, ours)
    return ("agree" if theirs == ours else "differ", theirs, ours)


def main(count: int = 60, seed: int = 23, root: str | None = None) -> None:
    measure(draw, verdict, lambda c: (t.argv_of(c), c["gpu"],
                                      c["fields"].get("quantization_config")),
            count, seed, root, states=_before_states, labels=("agree", "differ"),
            ours_width=160)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 60, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
