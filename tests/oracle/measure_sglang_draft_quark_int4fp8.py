"""Agreement of graphfit with SGLang 0.5.23 on quark_int4fp8_moe drafts (not a test;
tests.oracle.test_sglang_draft_quark_int4fp8_oracle, issue 23 s60d).

    python -m tests.oracle.measure_sglang_draft_quark_int4fp8

The grid (tests.oracle.measure_sglang_draft_humming.grid): an unquantized bfloat16 / float16
draft or an AWQ / GPTQ / FP8 / NVFP4 draft checkpoint,
`--speculative-draft-model-quantization quark_int4fp8_moe`, no `--dtype`, float32 or float16,
on T4 / A100 / H100 / B200. `before` is graphfit with quark_int4fp8_moe left unchecked on a
draft (main before s60d), `after` this tree.
"""

from __future__ import annotations

import contextlib

from tests.oracle.measure_sglang_draft_humming import grid


def main() -> int:
    return grid("quark_int4fp8_moe", frozenset({"quark_int4fp8_moe"}),
                ((), ("--dtype", "float32"), ("--dtype", "float16")), contextlib.nullcontext)


if __name__ == "__main__":
    raise SystemExit(main())
