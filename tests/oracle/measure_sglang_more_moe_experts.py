"""TP above the expert count in MiniMax-M2, Hunyuan, Mixtral-quant, Cohere2-MoE, LongCat-Flash
and Step3.5 targets (issue 23, s70b), LFM2-MoE, AFMoE, EXAONE-MoE and Laguna (s70q),
with Cohere2-MoE's dense prefix width and Step3.5's MoE layer list left out or unreadable
half the time (s70t): drawn targets (class x 2-8 experts, Cohere2-MoE's dense prefix,
Step3.5's MoE layer list, LFM2-MoE's / AFMoE's `num_dense_layers`, EXAONE-MoE's
`is_moe_layer`, Laguna's `mlp_layer_types`) under TP x EP, graphfit's pasted-line answer
against SGLang 0.5.23's own layers / blocks built on the meta device
(tests.oracle.test_sglang_more_moe_experts_oracle); BEFORE_ROOT's graphfit on the same
draw in a child process (measure_root.main_with_before, through before_tree.frozen).
Verdicts as measure_sglang_dense_tp_builds's.

    python -m tests.oracle.measure_sglang_more_moe_experts [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import main_with_before
from tests.oracle.measure_sglang_sparse_moe_experts import built, drawn

_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-measure-more-experts-")


def more_line(rng: random.Random) -> tuple[str, str]:
    """One drawn line: (verdict, its text)."""
    from tests.oracle import test_sglang_more_moe_experts_oracle as tm

    kind, experts = rng.choice(tuple(tm.KINDS)), rng.choice((2, 4, 8))
    first = rng.choice((0, 2, 4))
    fields = ({"first_k_dense_replace": first} if kind == "cohere2_moe" else
              {"moe_layers_enum": tm._ENUMS[first]} if kind == "step3p5" else
              {"num_dense_layers": first} if kind in ("lfm2_moe", "afmoe") else
              {"is_moe_layer": tm._FLAGS[first]} if kind == "exaone_moe" else
              {"mlp_layer_types": tm._TYPES[first]} if kind == "laguna" else {})
    if kind == "cohere2_moe" and rng.random() < 0.5:  # s70t: no dense prefix width
        fields["prefix_dense_intermediate_size"] = tm.ABSENT
    if kind == "step3p5" and rng.random() < 0.5:  # s70t: no / unreadable MoE layer list
        fields["moe_layers_enum"] = rng.choice((tm.ABSENT, None, [1, 2], "1,x"))
    tp, ep = rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4))
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    model = tm.model_dir(kind, experts, fields, Path(_DIRS.name))
    return built(model, argv, tm._block(kind), f"{kind} experts={experts} {fields}")


def measure(count: int, seed: int) -> dict[str, int]:
    return drawn(count, seed, more_line)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_more_moe_experts", measure,
                                      sys.argv[1:], 40, "lines"))
