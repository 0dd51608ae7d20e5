"""DeepSeek-family prefill-CP lines with backend flags, KV dtypes and GPUs drawn (issue 23
s67p): sglang_prefill_cp_dsa_oracle.generate's lines (DSA / MLA, DeepSeek-V3.2, Glm5Next's
CP-TP sharing, a multimodal MiMo-V2) drew no backend flag and ran on the H100 only, so the
attention hook's refusals (pipeline.py:242) and SGLang's default base (DeepSeek-V3's trtllm_mla
on SM100, model_overrides/deepseek_v2.py:178-187) never met the family's override and CP
checks there. Here each line names a backend of sglang_prefill_cp_attention_hook_oracle.BACKENDS
(or none), a KV dtype now and then, on one of its GPUS.

`compare(case, file)`: the pasted line on a CUDA GPU as sglang_prefill_cp_dsa_oracle.compare
judges it (SGLang's resolution, runners and memory fraction where both serve it); graphfit's
own config file, and any line on the MI300X, as sglang_prefill_cp_model_hook_oracle.compare
does (SGLang's refusal on the fake GPU, held to its place)."""

from __future__ import annotations

import random

from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa
from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

Case = dsa.Case


def compare(case: Case, file: bool = False) -> tuple[str, list[str]]:
    from tests.oracle import sglang_dcp_oracle as dc

    if not file and case[1] in dc.GPUS:
        return dsa.compare(case)
    dsa.model_dir(case[2])  # the MI300X: its refusals, as the ROCm-order oracle judges them
    return ro.judged(case, ah.sglang_refusal(case), file)


def generate(count: int, seed: int) -> list[Case]:
    """`count` of dsa.generate's lines, each with a backend flag set of ah.BACKENDS (the
    line's own `--attention-backend`, none there, kept out), half of them with a KV dtype of
    ah.KV, on a GPU of ah.GPUS."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, _gpu, model in dsa.generate(count, rng.randrange(1 << 30)):
        words = [*argv, *rng.choice(ah.BACKENDS)]
        words += rng.choice(ah.KV) if rng.random() < 0.5 else ()
        out.append((tuple(words), rng.choice(ah.GPUS), model))
    return out
