"""Measure (not a test): `python -m tests.oracle.measure_sglang_skip_softmax [COUNT] [SEED]`
(issue 23 s67p).

COUNT generated pasted lines on a Llama target, half with prefill CP, naming trtllm_mha for a
phase, another backend or none, on the RTX 5090 (SM120), H100 or B200, with
SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR unset or set to a value above, at or below
0, or one `float` cannot read (sglang_skip_softmax_oracle.generate), each compared with
SGLang's resolution on its fake GPU with the variable in its environment. "after" is this
tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each
in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_generated

if __name__ == "__main__":
    main_generated("sglang_skip_softmax_oracle", sys.argv[1:], 60,
                   "pasted lines with the skip-softmax variable")
