"""What the page-major KV layout that `--enable-unified-memory` implies reads beside the
attention backends (`handle_page_major_kv_layout`, arg_groups/kv_cache_hook.py:770-862, run
at pipeline.py:336), from a pasted SGLang 0.5.23 line and the model's config.json (issue 23
s42u; the checks are graphfit.planner.engines.sglang_unified_switches.page_major):

* the linear-attention kernels: SGLang reads `--linear-attn-decode-backend` else
  `--linear-attn-backend` (:846) and the same for prefill (:847) as
  `handle_linear_attn_backend` left them (attention_hook.py:281-330, pipeline.py:253, long
  before). That hook, for a decode backend the line leaves unset, picks flashinfer on an SM100
  GPU when `--mamba-ssm-dtype bfloat16` is given and the base is not helion (:289-307; a Kimi
  hybrid takes triton there first, kimi_k3_hook.py:58-78: allowed as well), and turns an
  inherited flashkda into triton (:316-330). An explicit `--linear-attn-decode-backend
  flashkda` is refused there for any line (:318-323). Where the GPU is not named the SM100
  default is unknown: the decode kernel is left unchecked (None);
* `--mamba-backend` (triton by default, fields/exec_.py:483-489), checked as given (:858-862);
* `asymmetric_kv`: whether K and V rows differ in width (`has_asymmetric_kv`,
  configs/model_config.py:1263-1271), from the text config's `head_dim` (else hidden_size /
  num_attention_heads), `v_head_dim` (None or 0: head_dim), `swa_head_dim` (None: head_dim)
  and `swa_v_head_dim` (None: swa_head_dim) (:1341-1365); DeepSeek-V4 sets v_head_dim to
  head_dim (:1418-1428) and GLM-4 MoE's NextN both pairs equal (:1429-1441). An MLA model
  checks its own list first (kv_cache_hook.py:805-813), so its value does not matter.

Why: the page-major gate refuses a unified-memory line whose linear-attention, mamba or
(for unequal K / V rows) attention kernels cannot address the strided per-layer views;
graphfit planned such lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import FILE, Resolved, Setting
from graphfit.planner.core.errors import ConfigError

HOOK = "attention_hook.py"
# ModelConfig's branches that rewrite v_head_dim for an MHA class (configs/model_config.py)
V_EQUALS_HEAD = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                           "DeepseekV4ForCausalLMDSpark"})
ALL_EQUAL = frozenset({"Glm4MoeForCausalLMNextN"})


def _name(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def line(values: Mapping[str, Any]) -> None:
    """`handle_linear_attn_backend`'s refusal of an explicit flashkda decode backend, on any
    line (attention_hook.py:318-323)."""
    if _name(values, "linear_attn_decode_backend") == "flashkda":
        raise ConfigError(f"--linear-attn-decode-backend flashkda is not supported: FlashKDA "
                          f"is prefill-only; use --linear-attn-prefill-backend flashkda "
                          f"(SGLang refuses, {HOOK}:318-323)")


def decode_backend(values: Mapping[str, Any], sm100: bool | None) -> str | None:
    """The linear-attention decode backend SGLang resolves (module docstring); None where the
    unnamed GPU decides it."""
    base = _name(values, "linear_attn_backend") or "triton"
    named = _name(values, "linear_attn_decode_backend")
    if named is not None:
        return named
    if _name(values, "mamba_ssm_dtype") == "bfloat16" and base != "helion":
        if sm100 is None:
            return None
        if sm100:
            return "flashinfer"
    return "triton" if base == "flashkda" else base


def settle(values: Mapping[str, Any], resolved: Resolved, sm100: bool | None) -> Resolved:
    """SglangOptions.unified_linear for a unified-memory line (module docstring)."""
    if not values.get("enable_unified_memory"):
        return resolved
    base = _name(values, "linear_attn_backend") or "triton"
    prefill = _name(values, "linear_attn_prefill_backend") or base
    found = (decode_backend(values, sm100), prefill, _name(values, "mamba_backend") or "triton")
    said = ("the linear-attention decode / prefill and mamba backends "
            f"{found} (attention_hook.py:281-330, kv_cache_hook.py:846-847, 858)")
    return replace(resolved,
                   values=MappingProxyType({**resolved.values, "unified_linear": found}),
                   origins=MappingProxyType({**resolved.origins, "unified_linear": said}))


def asymmetric_kv(data: Mapping[str, Any]) -> bool | None:
    """SGLang's `has_asymmetric_kv` over a config.json (module docstring); None where the
    head width cannot be told (no head_dim, hidden_size or num_attention_heads)."""
    names = data.get("architectures")
    classes = {c for c in names if isinstance(c, str)} if isinstance(names, list) else set()
    if classes & ALL_EQUAL:
        return False
    text = data.get("text_config")
    text = text if isinstance(text, dict) else data
    head = text.get("head_dim")
    if head is None:
        hidden, heads = text.get("hidden_size"), text.get("num_attention_heads")
        if not isinstance(hidden, int) or not isinstance(heads, int) or heads <= 0:
            return None
        head = hidden // heads
    value = text.get("v_head_dim")
    v_head = head if value is None or value == 0 or classes & V_EQUALS_HEAD else value
    swa = text.get("swa_head_dim")
    swa = head if swa is None else swa
    swa_v = text.get("swa_v_head_dim")
    swa_v = swa if swa_v is None else swa_v
    return bool(head != v_head or swa != swa_v)


def model_settings(path: str, data: Mapping[str, Any]) -> list[Setting]:
    """SglangOptions.asymmetric_kv from a local config.json (weak, like the other model
    facts); nothing where it cannot be told."""
    found = asymmetric_kv(data)
    if found is None:
        return []
    return [Setting("asymmetric_kv", found, f"{path}: head_dim / v_head_dim (K / V rows)",
                    FILE, weak=True)]


__all__ = ["asymmetric_kv", "decode_backend", "line", "model_settings", "settle"]
