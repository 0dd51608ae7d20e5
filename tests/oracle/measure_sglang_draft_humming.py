"""Agreement of graphfit with SGLang 0.5.23 on humming drafts (not a test; tests.oracle.
sglang_draft_humming, issue 23 s54d).

    python -m tests.oracle.measure_sglang_draft_humming

The grid: an unquantized bfloat16 / float16 draft or an AWQ / GPTQ / FP8 / NVFP4 draft
checkpoint, `--speculative-draft-model-quantization humming`, with or without `--dtype
float32`, on T4 / A100 / H100 / B200: 48 lines. SGLang's side runs its draft ModelConfig and
loader with the humming-kernels package stood in; `before` is graphfit with humming left
unchecked on a draft (main before s54d), `after` this tree.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable
from contextlib import AbstractContextManager
from unittest import mock

from graphfit.inputs import sglang_draft_quant
from tests.oracle import sglang_draft_humming as hm
from tests.oracle import sglang_draft_quant as dq
from tests.oracle import test_sglang_draft_quant_oracle as base

DRAFTS = {"bf16": base._bf16, "fp16": base._fp16,
          **{name: (lambda name=name: base._quantized(name)) for name in base.QUANTIZED}}


def grid(method: str, unchecked: frozenset[str], dtypes: tuple[tuple[str, ...], ...],
         installed: Callable[[], AbstractContextManager[object]]) -> int:
    """Each draft of DRAFTS x T4 / A100 / H100 / B200 x `dtypes` under
    `--speculative-draft-model-quantization METHOD`, SGLang inside `installed()`; `before`:
    graphfit with `unchecked` as the drafts it does not check, `after` this tree. Shared with
    measure_sglang_draft_quark_int4fp8 (s60d)."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for make, gpu, dtype in itertools.product(DRAFTS.values(),
                                              ("T4", "A100", "H100", "B200"), dtypes):
        argv = base._line(make(), base.DRAFT, method, *dtype)
        for mode in ("before", "after"):
            dq.planned.cache_clear()
            with installed(), mock.patch.object(
                    sglang_draft_quant, "NOT_RESTATED",
                    unchecked if mode == "before" else sglang_draft_quant.NOT_RESTATED):
                theirs, _ours, agree = dq.compare(argv, gpu)
            side = "starts" if theirs == "starts" else "refuses"
            counts[mode][f"SGLang {side}, " + ("agree" if agree else "differ")] += 1
    dq.planned.cache_clear()
    for mode in ("before", "after"):
        told = ", ".join(f"{k} {v}" for k, v in sorted(counts[mode].items()))
        print(f"{mode}: {sum(counts[mode].values())} lines: {told}")
    return 0


def main() -> int:
    return grid("humming", frozenset({"humming", "quark_int4fp8_moe"}),
                ((), ("--dtype", "float32")), hm.installed)


if __name__ == "__main__":
    raise SystemExit(main())
