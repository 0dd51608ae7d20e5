"""A pasted SGLang UNO line that leaves an attention side to SGLang's default while graphfit
lacks an input to restate it (the GPU given in GiB, no local config.json, or an architecture
whose model override graphfit does not restate): refused with SGLang's own reason when no
value of the missing input could make that side FA3, which `_handle_uno` requires
(speculative_hook.py:606-611). Otherwise graphfit.inputs.sglang_uno refuses saying which
input it lacks.

Two cases are decided without the missing input:

* `--kv-cache-dtype fp8_e5m2`: the attention hook turns a base backend of fa3 into triton
  after the model overrides and the default (`_attention_backend_fa3_fp8_fallback`,
  overrides.py:1262-1270, attention_hook.py:239; the overrides run first, pipeline.py:225-
  242), and a side the line leaves unnamed falls back to that base
  (`attention_backends_of`, model_override_base.py:138-152). The model overrides that write
  the split sides themselves write other backends (trtllm_mla, cutedsl_mla, aiter: kimi_k3.py
  :92-149; dsv4: deepseek_v4.py:59-60; flashinfer: qwen3_vl.py:130, moss_vl.py:21) or map
  sides the line named (minicpm.py:35-43). So that side is never fa3, on any GPU and model.
* The GPU given in GiB with a model graphfit restates: SGLang's default is evaluated on one
  GPU of every generation SGLang's probes tell apart (graphfit.planner.engines.
  sglang_attn_default.GPU_KINDS); when none gives fa3, no GPU name would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_draft_default import default_base_backend, gpu_kind
from graphfit.planner.engines.sglang_attn_default import GPU_KINDS

# one GPU graphfit knows for each generation (graphfit.inputs.gpus, sglang_draft_default)
KIND_GPUS = {"turing": "T4", "ampere": "A100", "ada": "L40S", "hopper": "H100",
             "sm100": "B200", "sm120": "RTX5090", "rocm": "MI300X"}
NEEDS = "UNO needs FA3 (speculative_hook.py:606-611)"
PIN = "--attention-backend fa3"
__all__ = ["KIND_GPUS", "never_fa3"]


def _fp8_e5m2(values: Mapping[str, Any]) -> bool:
    return str(values.get("kv_cache_dtype") or "").strip().lower() == "fp8_e5m2"


def never_fa3(values: Mapping[str, Any], gpu_given: object) -> str | None:
    """SGLang's reason a side left to its default is never FA3 whatever graphfit lacks (module
    docstring), as one error line; None when the missing input could decide it."""
    if _fp8_e5m2(values):
        return (f"--speculative-algorithm: {NEEDS}; with --kv-cache-dtype fp8_e5m2 a side left "
                f"to SGLang is never fa3 on any GPU or model (overrides.py:1262-1270)")
    if gpu_kind(gpu_given) is not None:
        return None
    found: set[str] = set()
    for kind in GPU_KINDS:
        backend, _ = default_base_backend(values, KIND_GPUS[kind], PIN)
        if backend.name is None or backend.name == "fa3":
            return None  # an input still missing (the model), or FA3 on some GPU
        found.add(backend.name)
    return (f"--speculative-algorithm: {NEEDS}; SGLang's default for this line and model is "
            f"{'/'.join(sorted(found))} on every GPU, never fa3: name {PIN}")[:200]
