"""The KV cache dtype the model hook resolves, on every pasted line (issue 23 s68p): SGLang
0.5.23's model hook (pipeline.py:225) makes a DeepSeek DSA target's `auto` fp8_e4m3 on
capability 10+ (else bfloat16) and its `bf16` bfloat16, refusing other dtypes
(`_dsa_kv_cache_dtype_default`, overrides.py:490-547), and Muse Spark's `auto` fp8_e4m3
(overrides.py:309-320); the attention hook (:242) then checks the backends against that dtype
(trtllm_mla's list, overrides.py:1214-1217; FMHAv2's fp8_e4m3 prefill on SM120,
attention_hook.py:207-221). graphfit reads it so on every pasted line
(graphfit.inputs.sglang_kv_auto.on_line), not only on prefill-CP lines.

`compare(case)`: SGLang resolves the line on its fake GPU
(sglang_prefill_cp_attention_hook_oracle.sglang_refusal); graphfit reads it as its CLI does;
the verdict by place (sglang_prefill_cp_rocm_order_oracle.judged, pasted line)."""

from __future__ import annotations

import random

from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
from tests.oracle import sglang_prefill_cp_model_hook_oracle as mh
from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

Case = mh.Case
# a DSA target and Muse Spark (the two rules), and two targets without one
MODELS = ("dsa", "dsa", "muse", "muse", "mla", "llama")
BACKENDS: tuple[tuple[str, ...], ...] = (
    (), ("--attention-backend", "trtllm_mla"), ("--decode-attention-backend", "trtllm_mla"),
    ("--prefill-attention-backend", "trtllm_mha"), ("--attention-backend", "trtllm_mha"),
    ("--attention-backend", "cutedsl_mla"), ("--attention-backend", "flashinfer"))
KV = ((), (), ("--kv-cache-dtype", "auto"), ("--kv-cache-dtype", "fp8_e4m3"),
      ("--kv-cache-dtype", "fp8_e5m2"), ("--kv-cache-dtype", "bf16"),
      ("--kv-cache-dtype", "bfloat16"))
GPUS = ("H100", "B200", "RTX5090", "MI300X")


def compare(case: Case) -> tuple[str, list[str]]:
    mh.model_dir(case[2])
    return ro.judged(case, ah.sglang_refusal(case), False)


def generate(count: int, seed: int) -> list[Case]:
    """`count` lines without prefill CP: TP, a backend flag of BACKENDS, a KV dtype of KV, a
    GPU of GPUS and a target of MODELS drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv = ("--max-running-requests", "24", "--tp-size", str(rng.choice((1, 2, 4))),
                *rng.choice(BACKENDS), *rng.choice(KV))
        out.append((argv, rng.choice(GPUS), rng.choice(MODELS)))
    return out
