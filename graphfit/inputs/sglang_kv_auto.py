"""The KV cache dtype SGLang 0.5.23's attention hook sees where the model resolved the line's
(issue 23 s67p).

Why: the hook's KV checks (trtllm_mla's and cutedsl_mla's lists, overrides.py:1214-1217,
1248-1256; FMHAv2's fp8_e4m3 prefill on SM120, attention_hook.py:207-221) read the dtype
after the model hook (pipeline.py:225) rewrote `--kv-cache-dtype`:

* Muse Spark's override makes `auto` fp8_e4m3 on every GPU (overrides.py:309-320);
* a DeepSeek DSA target on CUDA or ROCm (`_dsa_kv_cache_dtype_default`, overrides.py:490-547,
  run by the model hook's DeepSeek branch, model_hook.py:266-347) makes `auto` fp8_e4m3 on a
  GPU of capability 10 or more without learnable attention sinks, else bfloat16, and `bf16`
  bfloat16 (which trtllm_mla's list then refuses: it names bf16 only).

`dsa_asserts` restates that function's refusals of a DSA target's dtype (an fp8_e5m2 cache,
say), which the prefill-CP reading raises after the family's widths (graphfit.inputs.
sglang_prefill_cp). `on_line` (issue 23 s68p) does both for every pasted line, before
SGLang's checks of the backend set it resolves (graphfit.inputs.line_defaults.settle ->
sglang_draft_default.settle): a DSA or Muse Spark line without prefill CP meets the hook's
KV checks with the model's dtype too, and a DSA target's refused dtype is refused there.
DeepSeek-V4's own `auto` (overrides.py:892-910) meets no hook check
here: its model hook sets its backends first (graphfit.inputs.sglang_prefill_cp_platform.
attention_first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError

MUSE = "MuseSparkForConditionalGeneration"  # overrides.py:309-311
RULES = ("muse", "dsa", "dsa_sinks")
MAJOR_10 = frozenset({"sm100", "sm120"})  # graphfit.inputs.sglang_draft_default.gpu_kind


def rule(data: Mapping[str, Any] | None, arch: str | None) -> str | None:
    """Which of RULES resolves the target's KV dtype (module docstring), or None."""
    from graphfit.inputs.sglang_prefill_cp_dsa import layout
    from graphfit.inputs.sglang_prefill_cp_family import MODEL_HOOK

    if arch == MUSE:
        return "muse"
    if data is None or arch not in MODEL_HOOK or layout(data, arch) != "DSA":
        return None
    return "dsa_sinks" if data.get("learnable_sink") else "dsa"  # overrides.py:524-531


def resolved(kv: str | None, found: str | None, gpu: str) -> str | None:
    """`kv` (None: auto) as the attention hook sees it on GPU kind `gpu` under `found`."""
    if found == "muse":
        return "fp8_e4m3" if kv in (None, "auto") else kv
    if found in ("dsa", "dsa_sinks"):
        if kv in (None, "auto"):  # overrides.py:532-538
            return "fp8_e4m3" if gpu in MAJOR_10 and found == "dsa" else "bfloat16"
        return "bfloat16" if kv == "bf16" else kv  # :539-540
    return kv


def dsa_asserts(kv: str | None, found: str | None) -> None:
    """`_dsa_kv_cache_dtype_default`'s refusals of a DSA target's `--kv-cache-dtype` (None:
    auto), in its order, with its sentences: learnable sinks need a bfloat16 cache
    (overrides.py:524-531), and the resolved dtype must be bfloat16 or fp8_e4m3 (:541-544).
    Neither depends on the GPU (`auto` resolves to one of the two)."""
    if found not in ("dsa", "dsa_sinks"):
        return
    if found == "dsa_sinks" and kv not in (None, "auto", "bf16", "bfloat16"):
        raise ConfigError(f"Learnable DSA attention sinks require a bfloat16 KV cache; got "
                          f"kv_cache_dtype={kv}. (SGLang refuses, overrides.py:524-531)")
    if resolved(kv, found, "") not in ("bfloat16", "fp8_e4m3"):
        raise ConfigError("DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 "
                          "kv_cache_dtype (SGLang refuses, overrides.py:541-544)")


def on_line(line: Mapping[str, Any], gpu: str | None) -> Mapping[str, Any]:
    """A pasted line's values with `--kv-cache-dtype` as the model hook leaves it (`resolved`
    on GPU kind `gpu`), after `dsa_asserts`; unchanged for a model without a rule, and for a
    DSA target's `auto` where the GPU kind is not known (graphfit cannot tell its dtype)."""
    from graphfit.inputs.model_config import local_config

    model = line.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    archs = data.get("architectures") if data is not None else None
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    found = rule(data, arch)
    if found is None:
        return line
    given = line.get("kv_cache_dtype")
    kv = str(given).strip().lower() or None if given is not None else None
    dsa_asserts(kv, found)
    if gpu is None and found != "muse" and kv in (None, "auto"):
        return line
    return {**line, "kv_cache_dtype": resolved(kv, found, gpu or "")}


__all__ = ["MUSE", "RULES", "dsa_asserts", "on_line", "resolved", "rule"]
