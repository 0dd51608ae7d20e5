"""Measure (not a test): `python -m tests.oracle.measure_sglang_kv_auto [COUNT] [SEED]`
(issue 23 s68p).

COUNT generated pasted lines without prefill CP on a DeepSeek DSA target, Muse Spark, a
DeepSeek-V3-shaped MLA target or a Llama-shaped one, naming an attention backend (or none) and
a KV dtype (or none), on the H100, B200, RTX 5090 or MI300X (sglang_kv_auto_oracle.generate),
each compared with SGLang's resolution on its fake GPU. "after" is this tree's graphfit,
"before" /work/main's (or GRAPHFIT_BEFORE's) under this tree's oracle, each in a child
process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import main_generated

if __name__ == "__main__":
    main_generated("sglang_kv_auto_oracle", sys.argv[1:], 80,
                   "pasted lines on DSA, Muse Spark, MLA and Llama targets")
