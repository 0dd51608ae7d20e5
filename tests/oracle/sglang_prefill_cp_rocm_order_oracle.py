"""The attention hook before the HIP check (issue 23 s64p): SGLang 0.5.23's attention hook
(pipeline.py:242) refuses the trtllm_mha backend for prefill (attention_hook.py:199-206) or
decode (:222-227) off Hopper / SM100 / SM120, before the CP hook's HIP refusal (:278,
parallel_hook.py:114-121) and before the data-parallelism and LongCat refusals (:274,
parallel_hook.py:78-81, 287-292). graphfit answers with the attention hook's refusal on a
named ROCm GPU (graphfit.inputs.sglang_prefill_cp_platform.attention_first).

`compare(case, file)`: SGLang resolves the line on the fake MI300X platform
(sglang_prefill_cp_platform_oracle.sglang_refusal); graphfit reads it as its CLI does
(the platform oracle's `graphfit_answer`) or as its own config file (`file=True`). "same
refusal": graphfit's error carries SGLang's sentence or, for the trtllm_mha GPU sentences,
which graphfit words as its other backend checks do (graphfit.planner.engines.
sglang_backend_checks), cites their place; "not modelled" where SGLang refuses and graphfit
says so; "other refusal" / "differs" / "served" as in the platform oracle."""

from __future__ import annotations

import random

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_platform_oracle as po

Case = cp.Case
# SGLang's words -> the place graphfit's refusal must cite for them
REASONS = {"TRTLLM MHA backend for prefill requires": "attention_hook.py:199-206",
           "TRTLLM MHA backend for decode is only supported": "attention_hook.py:222-227",
           # the hook's other refusals (issue 23 s66p)
           "TRTLLM FMHAv2 prefill on SM120": "attention_hook.py:207-221",
           "TRTLLM MLA backend is only supported": "overrides.py:1208-1213",
           "TensorRT-LLM MLA backend only supports": "overrides.py:1214-1217",
           "CuteDSL MLA only supports decoding": "overrides.py:1241-1243",
           "CuteDSL MLA backend is only supported": "overrides.py:1244-1247",
           "CuteDSL MLA backend only supports": "overrides.py:1248-1256",
           # the model hook's asserts, before the attention hook (issue 23 s67p)
           "GptOssForCausalLM requires one of": "model_hook.py:515-543",
           "fa3, aiter, triton, ascend, trtllm_mha or intel_xpu is required for Llama4":
           "model_hook.py:615-630",
           "Gemma4 only supports": "model_hook.py:636-660",
           "One of the attention backends in": "model_hook.py:668-681",
           "FlashInfer backend can significantly degrade": "model_hook.py:682-692",
           # the nvfp4 hook before the attention hook, the KV4 checks after it, both before
           # the DP refusal and the CP hook (issue 23 s68p)
           "--prefill-kv-cache-dequant-dtype applies only": "kv_cache_hook.py:39-45",
           "NVFP4 prefill supports an FP8 E4M3 workspace": "kv_cache_hook.py:47-56",
           "Native NVFP4 prefill currently requires SM100": "kv_cache_hook.py:59-63",
           "--prefill-kv-cache-dequant-dtype=": "kv_cache_hook.py:65-76",
           "NVFP4 decode requires --decode-attention-backend": "kv_cache_hook.py:78-84",
           "RuntimeError: --kv-cache-dtype=nvfp4 requires Blackwell": "kv_cache_hook.py:124-131",
           "FP4 KV cache does not yet support --enable-unified-memory":
           "kv_cache_hook.py:132-137",
           "KV4 FA4 MLA expects": "kv_cache_hook.py:266-316",
           "KV4 FA4 MHA expects": "kv_cache_hook.py:266-316",
           "KV4 MLA expects": "kv_cache_hook.py:266-316",
           "KV4 MHA expects": "kv_cache_hook.py:266-316"}
# the backend flags drawn: the trtllm_mha phases, and none of them
BACKENDS: tuple[tuple[str, ...], ...] = (
    ("--attention-backend", "trtllm_mha"), ("--prefill-attention-backend", "trtllm_mha"),
    ("--decode-attention-backend", "trtllm_mha"),
    ("--attention-backend", "trtllm_mha", "--prefill-attention-backend", "triton"),
    ("--attention-backend", "triton", "--prefill-attention-backend", "trtllm_mha"), ())


def same_reason(theirs: str, ours: str) -> bool:
    """graphfit's refusal `ours` gives SGLang's reason `theirs` (cp.sglang_reason)."""
    place = next((at for words, at in REASONS.items() if theirs.startswith(words)), None)
    return place in ours if place is not None else theirs in ours


def compare(case: Case, file: bool = False) -> tuple[str, list[str]]:
    return judged(case, po.sglang_refusal(case), file)


def judged(case: Case, theirs: str | None, file: bool) -> tuple[str, list[str]]:
    """The verdict on `case` given SGLang's refusal `theirs` (None: SGLang starts it), as a
    pasted line or as graphfit's own config file (`file`)."""
    ours = cp.file_plan(case)[1] if file else po.graphfit_answer(case).rejected
    if theirs is not None and ours is not None and dc.NOT_MODELLED in ours:
        return "not modelled", [ours]
    return po.verdict(theirs, ours, same=same_reason)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines on the MI300X (the platform oracle's), the line's own
    attention backend replaced by one of BACKENDS, and the DP / LongCat refusals drawn in."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, gpu, model in po.generate(count, rng.randrange(1 << 30)):
        words = list(argv)
        if "--attention-backend" in words:
            at = words.index("--attention-backend")
            del words[at:at + 2]
        words += rng.choice(BACKENDS)
        if rng.random() < 0.2:
            words += ["--dp-size", "2", "--attn-dp-size", "2"]
        out.append((tuple(words), gpu, rng.choice((model, "longcat")) if rng.random() < 0.2
                    else model))
    return out
