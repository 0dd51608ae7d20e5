"""Beam's check of a quantized checkpoint's format (issue 23, s69u): drawn Beam targets with a
checkpoint quantization_config (tests.oracle.test_sglang_beam_build_oracle.FORMATS: fp8, AWQ,
ModelOpt FP8 / NVFP4_AWQ / NVFP4, compressed-tensors int or without groups) or none, under TP x
attention DP x one other flag group (nothing, dense TP 1, EPLB, redundant experts, an expert
location, LoRA): graphfit's pasted-line answer against SGLang 0.5.23's own
`BeamForCausalLM.__init__` (tests.oracle.sglang_beam_build_oracle); BEFORE_ROOT's graphfit on
the same draw in a child process. Verdicts as measure_sglang_dense_tp_builds.

    python -m tests.oracle.measure_sglang_beam_formats [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import logging
import random
import sys

from tests.oracle.measure_root import main_with_before, print_agreement
from tests.oracle.measure_sglang_dense_tp_builds import BEAM_LAYOUTS, _verdict


def beam_line(rng: random.Random) -> tuple[str, str]:
    """One drawn Beam line with a checkpoint format: (verdict, its text)."""
    from tests.oracle import sglang_beam_build_oracle as bo
    from tests.oracle import test_sglang_beam_build_oracle as tb

    name = rng.choice((None, *sorted(tb.FORMATS)))
    tp, attn_dp = rng.choice(BEAM_LAYOUTS)
    other = rng.choice(((), ("--moe-dense-tp-size", "1"), *tb.OTHERS[2:6]))
    if "--ep-size" in other and tp < 4:
        other = ()
    argv = ("--tp-size", str(tp), "--attn-dp-size", str(attn_dp), *other)
    path = bo.target_dir({} if name is None else {"quantization_config": tb.FORMATS[name]})
    theirs = bo.build(path, argv)
    code, said = tb.graphfit_line(path, argv)
    return (_verdict(theirs, code, said),
            f"Beam {name} {argv} SGLang {theirs} graphfit {code} {said}")


def measure(count: int, seed: int) -> dict[str, int]:
    from tests.oracle import sglang_oracle as so

    logging.disable(logging.WARNING)
    so.oracle()
    rng = random.Random(seed)
    return print_agreement(count, lambda: beam_line(rng))


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_beam_formats", measure, sys.argv[1:],
                                      40, "lines"))
