"""The target's dtype on SGLang 0.5.23 lines, SGLang against graphfit (not a test).

    python -m tests.oracle.measure_sglang_target_dtype 150

On the same drawn EAGLE-family / DFLASH lines (tests/oracle/sglang_draft_shape.lines, whose
--dtype is none, auto, float16, bfloat16 or half), each also drawn with the target's config
made float32 by --json-model-override-args, and the same SGLang answers (its runners on its
own target ModelConfig dtype, tests/oracle/sglang_oracle._target_dtype): how many lines both
plan with the same buffers, both reject, or differ. "before" with graphfit's SGLang dtype
rule off (graphfit.inputs.sglang_dtype: --dtype ignored and vLLM's float32 -> bfloat16 rule,
main's reading), "after" with it on; then the first differences left.
"""

from __future__ import annotations

import sys
from unittest import mock

from graphfit.inputs import model_config
from graphfit.inputs import sglang as sglang_args
from tests.oracle.measure_outcomes import print_before_after

# the draft-shape measure's lines and its per-line tally (sglang_draft_shape.compare)
from tests.oracle.measure_sglang_draft_shape import count, draw

F32 = ("--json-model-override-args", '{"torch_dtype": "float32"}')


def main(args: list[str]) -> int:
    n = int(args[0]) if args else 150
    drawn = draw(n)
    lines = drawn + [(*F32, *argv) for argv in drawn]
    print(f"lines: {len(lines)} ({len(drawn)} drawn, each also with a float32 target config)")
    # main's reading: only the draft's own dtype followed --dtype (s42r)
    with mock.patch.object(model_config, "sglang_dtype", lambda data, flag: None), \
            mock.patch.dict(sglang_args.LINE_KEYS):
        del sglang_args.LINE_KEYS["dtype"]  # --dtype "not modelled, ignored" again
        before, _ = count(lines)
    after, first = count(lines)
    print_before_after("before (SGLang's dtype rule off)", before, after,
                       ("planned", "rejected", "differs"), first)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
