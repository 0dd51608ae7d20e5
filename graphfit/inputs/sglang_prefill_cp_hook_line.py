"""What SGLang 0.5.23's attention hook reads off a prefill-CP line, and the base backend
SGLang's default writes before it (issue 23 s66p / s67p; moved here from
graphfit.inputs.sglang_prefill_cp_platform in s68p, which re-exports these names, so that
graphfit.inputs.sglang_prefill_cp_hook_set can read them without an import cycle).

`HookLine` is the line as SGLang's first pass leaves it (`renamed`: the old backend names,
serving_hook.py:303-330), with the keys SGLang's default backend and the model overrides read
(`DEFAULT_READS`); `default_base` is that default (overrides.py:1126-1140).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.sglang_kv_auto import rule as kv_rule
from graphfit.planner.core.errors import ConfigError


@dataclass(frozen=True)
class HookLine:
    """What the attention hook's refusals read off a prefill-CP line (`attention_first`):
    the base backend after `_attention_backend_default` (overrides.py:1127-1131: a prefill
    backend equal to the decode one becomes the base; None where SGLang's default fills it),
    the split flags and the KV cache dtype (None: auto). `reads`: the line's keys SGLang's
    default backend reads (`DEFAULT_READS`; issue 23 s67p), which fills the base where it is
    None (`default_base`)."""

    base: str | None = None
    prefill: str | None = None
    decode: str | None = None
    kv_cache_dtype: str | None = None
    reads: tuple[tuple[str, Any], ...] = ()
    # the model's rule for the KV dtype the hook sees (graphfit.inputs.sglang_kv_auto; s67p)
    kv_rule: str | None = None

    def __post_init__(self) -> None:
        from graphfit.inputs.sglang_kv_auto import RULES

        if self.kv_rule is not None and self.kv_rule not in RULES:
            raise ConfigError(f"HookLine.kv_rule: {self.kv_rule!r} is not one of {RULES}")
        for key, _ in self.reads:
            if key not in DEFAULT_READS:
                raise ConfigError(f"HookLine.reads: {key!r} is not one of DEFAULT_READS")


# what the model overrides and the nvfp4 hook read beyond that (graphfit.inputs.
# sglang_draft_default.override_inputs; graphfit.inputs.sglang_prefill_cp_hook_set, s68p)
OVERRIDE_READS = ("dcp_size", "prefill_kv_cache_dequant_dtype", "speculative_attention_mode",
                  "speculative_draft_attention_backend", "quantization", "moe_a2a_backend",
                  "moe_runner_backend", "enable_unified_memory", "disaggregation_mode",
                  "enable_hierarchical_cache", "enable_lmcache",
                  "speculative_ngram_max_bfs_breadth")
# what graphfit.inputs.sglang_draft_default.default_target_backend reads off a line: the
# model, the three backend flags (whether all are unset), the speculative keys, the page
# size, the KV dtype and deterministic inference (overrides.py:1092-1115)
DEFAULT_READS = ("model_path", "attention_backend", "prefill_attention_backend",
                 "decode_attention_backend", "speculative_algorithm", "speculative_eagle_topk",
                 "page_size", "kv_cache_dtype", "enable_deterministic_inference",
                 "rl_on_policy_target", *OVERRIDE_READS)


# `_handle_deprecated_args` (serving_hook.py:303-330, SGLang's first pass, pipeline.py:128):
# the old backend names
ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
TOKENSPEED = "tokenspeed_mla"
PHASES = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")


def _named(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value.strip().lower() or None if isinstance(value, str) else None


def renamed(values: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """The line's base, prefill and decode backends after `_handle_deprecated_args`: the
    old names renamed, a cutedsl_mla prefill so renamed made trtllm_mla (:321-323)."""
    base, prefill, decode = (ALIASES.get(n, n) if n is not None else None
                             for n in (_named(values, key) for key in PHASES))
    if _named(values, PHASES[1]) == TOKENSPEED:
        prefill = "trtllm_mla"
    return base, prefill, decode


def hook_line(values: Mapping[str, Any]) -> HookLine:
    """The line's `HookLine` (its flags as SGLang's first pass leaves them, `renamed`:
    tokenspeed_mla as the base or decode backend also sets an fp8_e4m3 KV cache, :324-330),
    with what SGLang's default backend reads off it (`DEFAULT_READS`, `default_base`)."""
    base, prefill, decode = renamed(values)
    if prefill is not None and prefill == decode:
        base = prefill
    kv = _named(values, "kv_cache_dtype")
    if TOKENSPEED in (_named(values, PHASES[0]), _named(values, PHASES[2])):
        kv = "fp8_e4m3"
    reads = tuple((key, values[key]) for key in DEFAULT_READS if values.get(key) is not None)
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    found = data.get("architectures") if data is not None else None
    arch = found[0] if isinstance(found, list) and found and isinstance(found[0], str) else None
    return HookLine(base, prefill, decode, kv, reads, kv_rule(data, arch))


def default_base(hook: HookLine, gpu_given: object) -> str | None:
    """The base backend the attention hook checks: the line's, else the one SGLang's default
    writes before the checks (`_attention_backend_default`, overrides.py:1126-1140, run at
    attention_hook.py:120; issue 23 s67p), with the model override's pick before it: e.g.
    DeepSeek-V3's trtllm_mla on SM100 for a line naming no backend
    (model_overrides/deepseek_v2.py:178-187), which meets the MLA KV dtype check
    (overrides.py:1214-1217) with an fp8_e5m2 KV cache. The default fills an unset base
    beside split flags too (the generic pick there, flashinfer for that model on SM100,
    model_override_base.py:335-340). None where graphfit.inputs.sglang_draft_default.
    default_target_backend does not restate it: no local config.json, or an architecture
    whose override graphfit restates on its own (sglang_arch_overrides.RESTATED; their
    picks are not checked here)."""
    from graphfit.inputs.sglang_draft_default import default_target_backend

    if hook.base is not None or not hook.reads:
        return hook.base
    return default_target_backend(dict(hook.reads), gpu_given)


__all__ = ["ALIASES", "DEFAULT_READS", "OVERRIDE_READS", "PHASES", "TOKENSPEED", "HookLine",
           "default_base", "hook_line", "renamed"]
