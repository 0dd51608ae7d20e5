"""The model hook and SGLang's default backend on a prefill-CP line (issue 23 s67p): SGLang
0.5.23's model hook (pipeline.py:225) asserts GPT-OSS's, Llama 4's, Gemma 4's and Olmo2's
backend lists (model_hook.py:515-692) before the attention hook (:242), and the attention
hook checks the base backend SGLang's default wrote where the line names none
(`_attention_backend_default`, overrides.py:1126-1140, attention_hook.py:120: DeepSeek's
trtllm_mla on SM100 with an fp8_e5m2 KV cache, say), all before the DP refusal (:274) and the
CP hook (:278: its HIP sentence, its strategy and width checks). graphfit answers in that order
(graphfit.inputs.sglang_prefill_cp_model_hook, graphfit.inputs.sglang_prefill_cp_platform.
default_base).

`compare(case, file)`: SGLang resolves the line on its fake GPU
(sglang_prefill_cp_attention_hook_oracle.sglang_refusal); graphfit reads it as its CLI does or
as its own config file; the verdict is sglang_prefill_cp_rocm_order_oracle.judged's (the model
hook's sentences held to their place in model_hook.py, `ro.REASONS`)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro
from tests.oracle import sglang_stubs

Case = cp.Case
# Llama-shaped config.json directories under the classes whose model hook asserts a backend
# list (model_hook.py:515-543, 615-630, 682-692); Gemma 4 is pc's `gemma4`
CLASSES = {"gptoss": "GptOssForCausalLM", "llama4": "Llama4ForCausalLM",
           "olmo2": "Olmo2ForCausalLM"}
# the drawn targets: those, the MLA / MHA ones whose default the attention hook checks, and
# the two whose `auto` KV dtype the model resolves (graphfit.inputs.sglang_kv_auto): a DSA
# target and Muse Spark (pc's `muse`)
MODELS = (*CLASSES, "gemma4", "mla", "llama", "dsa", "muse")
# the backend flags drawn: on and off the model hook's lists, split flags, none
BACKENDS: tuple[tuple[str, ...], ...] = (
    ("--attention-backend", "flashinfer"), ("--attention-backend", "trtllm_mla"),
    ("--attention-backend", "fa3"), ("--attention-backend", "triton"),
    ("--attention-backend", "trtllm_mha"), ("--prefill-attention-backend", "triton"),
    ("--decode-attention-backend", "flashinfer"), ("--prefill-attention-backend", "cutedsl_mla"),
    ("--prefill-attention-backend", "triton", "--decode-attention-backend", "flashinfer"),
    (), (), ())
KV = ((), ("--kv-cache-dtype", "fp8_e4m3"), ("--kv-cache-dtype", "fp8_e5m2"),
      ("--kv-cache-dtype", "bf16"))


def model_dir(name: str) -> str:
    """cp.model_dir's directory; CLASSES' written and registered there first, the DSA
    oracle's `dsa` target its own."""
    if name == "dsa":
        from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa

        return dsa.model_dir(name)
    if name in CLASSES and name not in pc._MODELS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-prefill-cp-model-hook-")) / name
        sglang_stubs.write_model_dir(root, architecture=CLASSES[name])
        pc.register(name, str(root))
    return cp.model_dir(name)


def compare(case: Case, file: bool = False) -> tuple[str, list[str]]:
    model_dir(case[2])
    return ro.judged(case, ah.sglang_refusal(case), file)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines (sglang_prefill_cp_oracle.generate's shapes) on a GPU of
    ah.GPUS, a target of MODELS, the line's own backend replaced by one of BACKENDS, a KV
    dtype now and then, and the DP refusal drawn in."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, _gpu, _model in cp.generate(count, rng.randrange(1 << 30)):
        words = ah.rebackend(argv, rng, BACKENDS, KV, 0.5)
        out.append((tuple(words), rng.choice(ah.GPUS), rng.choice(MODELS)))
    return out
