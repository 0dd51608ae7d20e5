"""The experts' EP split and a missing `first_k_dense_replace` in DeepSeek-V2-family and
GLM-4-MoE targets, and Qwen3-Next's Qwen2-MoE block (issue 23, s70c): drawn targets (class x
2-8 routed experts x the field absent or a value x 2-4 layers) under TP x EP x redundant
experts, graphfit's pasted-line answer against SGLang 0.5.23's own MoE block on the first
sparse layer
(tests.oracle.test_sglang_sparse_moe_split_oracle); BEFORE_ROOT's graphfit on the same draw
in a child process (measure_root.main_with_before, through before_tree.frozen). Verdicts as
measure_sglang_dense_tp_builds's.

    python -m tests.oracle.measure_sglang_sparse_moe_split [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before
from tests.oracle.measure_sglang_sparse_moe_experts import built, drawn

_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-measure-sparse-split-")


def split_line(rng: random.Random) -> tuple[str, str]:
    """One drawn line: (verdict, its text)."""
    from tests.oracle import test_sglang_sparse_moe_experts_oracle as ts
    from tests.oracle import test_sglang_sparse_moe_split_oracle as tsp

    kind, experts = rng.choice((*tsp.KINDS, "qwen3_next")), rng.choice((2, 3, 4, 6, 8))
    if kind == "qwen3_next":  # every layer sparse: no dense prefix to draw
        argv = tsp.drawn_argv(rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4)),
                              rng.choice((0, 2)))
        model = tsp.qwen3_next_dir(experts, Path(_DIRS.name))
        return built(model, argv, tsp._qwen3_next_block, f"{kind} experts={experts}")
    first = rng.choice((tsp.ABSENT, tsp.ABSENT, 0, 1, 3))
    if kind == "glm4_moe_lite" and first is tsp.ABSENT:
        first = 1  # Glm4MoeLiteConfig has no such field (the oracle module's Left)
    fields = {"first_k_dense_replace": first, "num_hidden_layers": rng.choice((2, 3, 4))}
    argv = tsp.drawn_argv(rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4)),
                          rng.choice((0, 2)))
    model = tsp.model_dir(kind, experts, fields, Path(_DIRS.name))
    block = ts._block("deepseek_v3" if kind == "deepseek_v2" else kind)
    return built(model, argv, block, f"{kind} experts={experts} {fields}")


def measure(count: int, seed: int) -> dict[str, int]:
    return drawn(count, seed, split_line)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_sparse_moe_split", measure,
                                      sys.argv[1:], 40, "lines"))
