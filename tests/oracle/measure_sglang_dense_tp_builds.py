"""`--moe-dense-tp-size` in model builds and TP above the expert count (issue 23, s69n):
drawn MiniMax-M3 targets (dense / MoE layers, dense widths that do or do not split over TP)
and Beam lines (the flag with EPLB, redundant experts, an expert location, LoRA, a line's
--quantization), each with the flag unset, 1 or the TP size, and Qwen3-MoE / Qwen2-MoE
targets of 1-8 experts under TP x EP x MoE DP: graphfit's pasted-line answer against
SGLang 0.5.23's own model class or MoE block (tests.oracle.sglang_minimax_target_oracle,
sglang_beam_build_oracle, test_sglang_deepep_class_oracle.sglang);
BEFORE_ROOT's graphfit on the same draw in a child process. "agree": both start the line,
or both refuse it (where SGLang's class raises, graphfit names its exception and line);
"other": graphfit refuses as not modelled a line SGLang starts.

    python -m tests.oracle.measure_sglang_dense_tp_builds [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle.measure_root import main_with_before, print_agreement

MINIMAX_LAYOUTS = ((1, 1), (2, 1), (4, 1), (4, 2), (8, 1), (8, 2))
BEAM_LAYOUTS = ((1, 1), (2, 1), (4, 1), (4, 2), (2, 2))
_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-measure-builds-")


def _verdict(theirs: str | None, code: int, said: str) -> str:
    """agree / differ / other for SGLang's answer and graphfit's (exit code, error line)."""
    from tests.oracle.test_sglang_minimax_target_oracle import cites

    if theirs is None:
        if code == 0:
            return "agree"
        return "other" if "not modelled" in said else "differ"
    if code != 2:
        return "differ"
    if theirs.startswith("Rejected"):
        return "agree"
    kind, site = theirs.split(":", 1)[0], theirs.rsplit(" @ ", 1)[1]
    return "agree" if f"({kind}, " in said and cites(said, site) else "differ"


def _dense(rng: random.Random, tp: int) -> tuple[str, ...]:
    value = rng.choice((None, 1, 1, tp))
    return () if value is None else ("--moe-dense-tp-size", str(value))


def minimax_line(rng: random.Random) -> tuple[str, str]:
    """One drawn MiniMax-M3 line: (verdict, its text)."""
    from tests.oracle import sglang_minimax_target_oracle as mo
    from tests.oracle import test_sglang_minimax_target_oracle as tm

    tp, attn_dp = rng.choice(MINIMAX_LAYOUTS)
    fields: dict[str, Any] = {
        "head_dim": 128, "qk_norm_type": "per_head", **tm.MOE_KEYS[0],
        "num_local_experts": 8, "num_experts_per_tok": 2,
        "moe_layer_freq": rng.choice(([0, 0], [0, 1], [1, 1])),
        "dense_intermediate_size": rng.choice((1024, 1002, 1000)),
        "intermediate_size": rng.choice((1024, 1002)),
        "n_shared_experts": rng.choice((None, 1)), **rng.choice(tm.ACTS[:3])}
    nested = rng.random() < 0.3
    extra = _dense(rng, tp) + (("--ep-size", "2") if tp >= 2 and rng.random() < 0.3 else ())
    path = mo.target_dir(fields, nested)
    theirs = mo.build(path, tp, attn_dp, extra)
    code, said = tm.graphfit_line(path, tp, attn_dp, extra)
    text = f"MiniMax-M3 {fields} nested={nested} tp={tp} dp={attn_dp} {extra}"
    return _verdict(theirs, code, said), f"{text} SGLang {theirs} graphfit {code} {said}"


def beam_line(rng: random.Random) -> tuple[str, str]:
    """One drawn Beam line: (verdict, its text)."""
    from tests.oracle import sglang_beam_build_oracle as bo
    from tests.oracle import test_sglang_beam_build_oracle as tb

    tp, attn_dp = rng.choice(BEAM_LAYOUTS)
    other = rng.choice(tb.OTHERS)
    if "--ep-size" in other and tp < 4:
        other = ()
    argv = ("--tp-size", str(tp), "--attn-dp-size", str(attn_dp), *_dense(rng, tp), *other)
    path = bo.target_dir()
    theirs = bo.build(path, argv)
    code, said = tb.graphfit_line(path, argv)
    return _verdict(theirs, code, said), f"Beam {argv} SGLang {theirs} graphfit {code} {said}"


def qwen_line(rng: random.Random) -> tuple[str, str]:
    """One drawn Qwen3-MoE / Qwen2-MoE line: (verdict, its text)."""
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle import test_sglang_qwen_moe_experts_oracle as tq

    kind, experts = rng.choice(("qwen3", "qwen3", "qwen2")), rng.choice((1, 2, 3, 4, 8))
    tp, ep, moe_dp = rng.choice((1, 2, 4, 8)), rng.choice((1, 2, 4)), rng.choice((1, 2))
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    if tp % (moe_dp * ep) == 0 and moe_dp > 1:
        argv += ("--moe-dp-size", str(moe_dp))
    model = tq.model_dir(kind, experts, Path(_DIRS.name))
    theirs, code, said = dc.build_answers(model, argv, tq._block(kind))
    return (_verdict(theirs, code, said),
            f"{kind} experts={experts} {argv} SGLang {theirs} graphfit {code} {said}")


FAMILIES = (beam_line, minimax_line, qwen_line)


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_oracle as so

    logging.disable(logging.WARNING)
    so.oracle()
    rng = random.Random(seed)
    return print_agreement(count, lambda: rng.choice(FAMILIES)(rng))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_dense_tp_builds", measure, sys.argv[1:],
                                      40, "lines"))
