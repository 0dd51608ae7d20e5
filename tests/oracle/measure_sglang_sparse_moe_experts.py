"""TP above the routed-expert count in DeepSeek-V2-family, GLM-4-MoE and GLM-4-MoE-Lite
targets (issue 23, s69q): drawn targets (class x 1-8 routed experts x dense prefix x MoE
layer frequency) under TP x EP, graphfit's pasted-line answer against SGLang 0.5.23's own MoE
block on the first sparse layer (tests.oracle.test_sglang_sparse_moe_experts_oracle);
BEFORE_ROOT's graphfit on the same draw in a child process (measure_root.main_with_before,
through before_tree.frozen). Verdicts as measure_sglang_dense_tp_builds's.

    python -m tests.oracle.measure_sglang_sparse_moe_experts [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.oracle.measure_root import main_with_before, print_agreement

_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-measure-sparse-experts-")


def built(model: Path, argv: tuple[str, ...], block: Any, what: str) -> tuple[str, str]:
    """Both answers on one drawn target and line (SGLang building `block`): (verdict, its
    text). The MoE-experts measures (split, more classes) judge their lines with it."""
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle.measure_sglang_dense_tp_builds import _verdict

    theirs, code, said = dc.build_answers(model, argv, block)
    return (_verdict(theirs, code, said),
            f"{what} {argv} SGLang {theirs} graphfit {code} {said}")


def drawn(count: int, seed: int, line: Callable[[random.Random], tuple[str, str]]
          ) -> dict[str, int]:
    """`count` lines `line` draws from `seed` under the oracle, their agreement printed."""
    from tests.oracle import sglang_oracle as so

    logging.disable(logging.WARNING)
    so.oracle()
    rng = random.Random(seed)
    return print_agreement(count, lambda: line(rng))


def sparse_line(rng: random.Random) -> tuple[str, str]:
    """One drawn line: (verdict, its text)."""
    from tests.oracle import test_sglang_sparse_moe_experts_oracle as ts

    kind, experts = rng.choice(ts.KINDS), rng.choice((1, 2, 4, 8))
    fields = {"first_k_dense_replace": rng.choice((0, 1, 3, 4)),
              "moe_layer_freq": rng.choice((1, 2))}
    tp, ep = rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4))
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    model = ts.model_dir(kind, experts, fields, Path(_DIRS.name))
    return built(model, argv, ts._block(kind), f"{kind} experts={experts} {fields}")


def measure(count: int, seed: int) -> dict[str, int]:
    return drawn(count, seed, sparse_line)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_sparse_moe_experts", measure,
                                      sys.argv[1:], 40, "lines"))
