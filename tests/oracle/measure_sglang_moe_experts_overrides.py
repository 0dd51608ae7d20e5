"""`--json-model-override-args` and the config classes' names for the expert count in the
"more TP ranks than experts" rules (issue 23, s70k): drawn targets (Qwen3-MoE, Qwen2-MoE,
DeepSeek-V3, GLM-4-MoE x written count x overridden name: none / the class's field /
`num_local_experts` / `architectures` x value x TP x EP), each as a pasted line or as
graphfit's config file, graphfit's answer against SGLang 0.5.23's own MoE block built from
the overridden config (tests.oracle.test_sglang_moe_experts_overrides_oracle); BEFORE_ROOT's
graphfit on the same draw in a child process (measure_root.main_with_before, through
before_tree.frozen). Verdicts as measure_sglang_dense_tp_builds's (a config-file line: by
exit status).

    python -m tests.oracle.measure_sglang_moe_experts_overrides [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle.measure_root import main_with_before, print_agreement

_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-measure-experts-overrides-")


def drawn_line(rng: random.Random) -> tuple[str, str]:
    """One drawn line: (verdict, its text)."""
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle import test_sglang_moe_experts_overrides_oracle as to
    from tests.oracle.measure_sglang_dense_tp_builds import _verdict

    kind = rng.choice(tuple(to.CONFIGS))
    written = rng.choice((1, 2, 4, 8))
    name = rng.choice(("", "field", "num_local_experts", "architectures"))
    overrides: dict[str, Any] = {}
    if name == "architectures":
        if kind in ("qwen3", "qwen2"):
            other = "Qwen2MoeForCausalLM" if kind == "qwen3" else "Qwen3MoeForCausalLM"
            overrides = {"architectures": [other]}
    elif name:
        overrides = {to.COUNT_NAME[kind] if name == "field" else name: rng.choice((1, 2, 4, 8))}
    tp, ep = rng.choice((2, 4, 8)), rng.choice((1, 2))
    argv: tuple[str, ...] = ("--tp-size", str(tp)) + (("--ep-size", "2") if ep > 1 else ())
    root = Path(_DIRS.name)
    model = to.model_dir(kind, {to.COUNT_NAME[kind]: written}, root)
    theirs = to.theirs_on(model, overrides, argv)
    form = rng.choice(("line", "file"))
    if form == "line":
        code, said = dc.graphfit(model, to.line(overrides, argv), True)
        marked = None if theirs is None else (  # build_answers' marks
            theirs.removeprefix("build: ") if theirs.startswith("build: ")
            else f"Rejected: {theirs}")
        verdict = _verdict(marked, code, said)
    else:
        code, said = to._file_answer(model, overrides, argv, root), ""
        verdict = "agree" if (theirs is None) == (code == 0) else "differ"
    return verdict, (f"{form} {kind} written={written} {overrides} {argv} SGLang {theirs} "
                     f"graphfit {code} {said}")


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_oracle as so

    logging.disable(logging.WARNING)
    so.oracle()
    rng = random.Random(seed)
    return print_agreement(count, lambda: drawn_line(rng))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_moe_experts_overrides", measure,
                                      sys.argv[1:], 40, "lines"))
