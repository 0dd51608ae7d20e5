"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_lm_head [COUNT]
[SEED]` (issue 23 s68p).

COUNT DeepSeek-family prefill-CP lines with attention DP or DP replicas and
`--enable-dp-lm-head` (sglang_prefill_cp_lm_head_oracle.generate), each compared with SGLang's
resolution and decode runners on the fake GPU (the family comparison plus the
`global_num_tokens` entries). "after" is this tree's graphfit, "before" /work/main's (or
GRAPHFIT_BEFORE's) under this tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_generated

if __name__ == "__main__":
    main_generated("sglang_prefill_cp_lm_head_oracle", sys.argv[1:], 40,
                   "DeepSeek-family prefill-CP lines with the DP LM head", shown=("differs",))
