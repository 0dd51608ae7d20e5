"""`SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR` as SGLang 0.5.23's attention hook
reads it (issue 23 s67p).

Why: the hook refuses the trtllm_mha prefill backend on SM120 (TensorRT-LLM's FMHAv2) with an
fp8_e4m3 KV cache OR with this variable above 0 ("TRTLLM FMHAv2 prefill on SM120 does not
support fp8_e4m3 KV cache or skip-softmax.", arg_groups/attention_hook.py:207-221); graphfit
assumed it unset. It is an EnvFloat with no default (environ.py:1265): `float(value)`, and a
value `float` cannot read warns and keeps the default None (environ.py:67-86, 200-205), which
the hook reads as 0.0. Only the pasted line's `VAR=value` prefix sets it: graphfit never reads
its own process environment for an engine (graphfit.inputs.sglang_dspark_env), so a config
file or a live check leaves it unset, as SGLang's default.
"""

from __future__ import annotations

from collections.abc import Mapping

ENV = "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR"  # environ.py:1265


def active(environ: Mapping[str, str]) -> bool:
    """Whether the hook's `(envs.<ENV>.get() or 0.0) > 0` holds for `environ`."""
    raw = environ.get(ENV)
    if raw is None:
        return False
    try:
        return float(raw) > 0
    except ValueError:
        return False  # SGLang warns and keeps the default (None: 0.0)


def line_active() -> bool:
    """`active` on the pasted line's environment being read (sglang_dspark_env.
    line_environment; none outside a pasted line's reading)."""
    from graphfit.inputs.sglang_dspark_env import line_environ

    return active(line_environ())


__all__ = ["ENV", "active", "line_active"]
