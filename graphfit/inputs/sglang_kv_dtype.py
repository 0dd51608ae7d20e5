"""SGLang 0.5.23's `--kv-cache-dtype` as a setting (issue 23, s48k), for a pasted line, an
SGLang config file and a live ServerArgs.

The flag is a string with argparse choices (arg_groups/fields/model.py:197-221, default
auto). graphfit reads it where a rule it restates turns on it: DeepSeek-V4's resolution makes
auto fp8_e4m3 on CUDA and refuses any value other than fp8_e4m3 / bfloat16
(`_deepseek_v4_kv_cache_dtype`, arg_groups/overrides.py:892-913), V4.1's default
`--dsv4-attn-backend` on SM100 is flashmla_mega only over an fp8_e4m3 cache
(deepseek_v4_hook.py:44-60), and trtllm asserts fp8_e4m3 (:108-111)
(graphfit.planner.engines.sglang_dsv4_default). A value outside the choices is argparse's
refusal, in its words. The draft and attention-backend rules that already read the flag
read it from the line itself, as before.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_options import KV_CACHE_DTYPES

FIELD = "kv_cache_dtype"


def kv_cache_dtype(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--kv-cache-dtype NAME`: SglangOptions.kv_cache_dtype as given (auto kept: the
    planner resolves it per model, as SGLang's resolution does)."""
    if value is None:
        return [Setting("engine", Engine.SGLANG, origin, layer)], []
    name = value.strip() if isinstance(value, str) else value
    if name not in KV_CACHE_DTYPES:  # argparse's choices, case-sensitive as argparse is
        raise ConfigError(f"{origin}: invalid choice: {excerpt(value)} (choose from "
                          f"{', '.join(KV_CACHE_DTYPES)})")
    return [Setting(FIELD, name, origin, layer), Setting("engine", Engine.SGLANG, origin,
                                                          layer)], []


__all__ = ["FIELD", "kv_cache_dtype"]
