"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_hook_set [COUNT]
[SEED]` (issue 23 s68p).

COUNT generated prefill-CP lines on Kimi-K3, Beam, Gemma 4, MiniMax-M3, GPT-OSS, Llama 4,
Llama-shaped and DeepSeek-V3-shaped targets, naming no backend (the model override's pick) or
one, with an nvfp4 KV cache (and a named prefill workspace) or another KV dtype, on the
MI300X, H100, B200 or RTX 5090 (sglang_prefill_cp_hook_set_oracle.generate), each compared
with SGLang's resolution on its fake GPU as a pasted line and as graphfit's own config file
("file ..."). "after" is this tree's graphfit, "before" /work/main's (or GRAPHFIT_BEFORE's)
under this tree's oracle, each in a child process."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed, pasted_and_file_child

CHILD = pasted_and_file_child("sglang_prefill_cp_hook_set_oracle")


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    was, now = child_before_after(CHILD, count, seed)
    print(f"{count} prefill-CP lines with model overrides' picks and nvfp4 KV (seed {seed})")
    print("before:", was)
    print("after: ", now)


if __name__ == "__main__":
    main()
