"""The backend set SGLang's attention hook checks on a prefill-CP line (issue 23 s68p): before
the hook (pipeline.py:242), the model override writes its pick (pipeline.py:225: Kimi-K3's
trtllm_mla pair on SM100, kimi_k3.py:146-149; Beam's trtllm_mha, beam.py:27-31; Gemma 4's
trtllm_mha on SM100, gemma4.py:30-44; MiniMax-M3's fa4 / trtllm_mha, minimax_m3.py:160-192)
and the nvfp4 hook writes an nvfp4 KV cache's prefill / decode pair or refuses the set so far
(pipeline.py:241, kv_cache_hook.py:34-99); the hook's refusals of that set come before the DP
refusal (:274) and the CP hook (:278). graphfit answers in that order
(graphfit.inputs.sglang_prefill_cp_hook_set).

`compare(case, file)`: the model hook oracle's (SGLang on its fake GPU, graphfit as a pasted
line or its own config file, the verdict by place, sglang_prefill_cp_rocm_order_oracle.
judged)."""

from __future__ import annotations

import random

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
from tests.oracle import sglang_prefill_cp_model_hook_oracle as mh
from tests.oracle import sglang_prefill_cp_oracle as cp

Case = cp.Case
# targets with a model override graphfit restates on its own (Kimi-K3, Beam, Gemma 4,
# MiniMax-M3, GPT-OSS, Llama 4) and two without (Llama-shaped MHA, DeepSeek-V3-shaped MLA)
MODELS = (dc.KIMI, "beam_full", "gemma4", "minimax", "gptoss", "llama4", "llama", "mla")
# the backend flags drawn: none (the override's pick) most often, the nvfp4 hook's two
# prefill backends, a backend it refuses, split flags
BACKENDS: tuple[tuple[str, ...], ...] = (
    (), (), (), ("--attention-backend", "trtllm_mha"), ("--attention-backend", "flashinfer"),
    ("--attention-backend", "triton"), ("--prefill-attention-backend", "flashinfer"),
    ("--decode-attention-backend", "trtllm_mla"), ("--attention-backend", "trtllm_mla"))
# the KV dtypes drawn, nvfp4 with and without a named prefill workspace
KV = ((), ("--kv-cache-dtype", "nvfp4"), ("--kv-cache-dtype", "nvfp4"),
      ("--kv-cache-dtype", "nvfp4", "--prefill-kv-cache-dequant-dtype", "fp8_e4m3"),
      ("--kv-cache-dtype", "nvfp4", "--prefill-kv-cache-dequant-dtype", "nvfp4"),
      ("--kv-cache-dtype", "fp8_e4m3"), ("--kv-cache-dtype", "fp8_e5m2"),
      ("--kv-cache-dtype", "bf16"))


def model_dir(name: str) -> str:
    """The model hook oracle's directories; Kimi-K3's the DCP oracle's (registered first)."""
    if name == dc.KIMI:
        return dc.model_path(name)
    return mh.model_dir(name)


def compare(case: Case, file: bool = False) -> tuple[str, list[str]]:
    model_dir(case[2])
    return mh.compare(case, file)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines (sglang_prefill_cp_oracle.generate's shapes) on a GPU of
    ah.GPUS, a target of MODELS, the line's own backend replaced by one of BACKENDS and a KV
    dtype of KV on most lines (ah.rebackend: attention DP on a fifth)."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, _gpu, _model in cp.generate(count, rng.randrange(1 << 30)):
        words = ah.rebackend(argv, rng, BACKENDS, KV, 0.8)
        out.append((tuple(words), rng.choice(ah.GPUS), rng.choice(MODELS)))
    return out
