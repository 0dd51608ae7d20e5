"""A pasted `--enable-prefill-cp` line's `--cp-strategy` handed to the planner (issue 23 s54g).

graphfit.inputs.sglang_prefill_cp settles whether graphfit plans the line (SGLang's refusals,
then graphfit's "not modelled" split); for a line it plans, the strategy becomes the
`prefill_cp_strategy` option, which the planner reads to tell whether SGLang captures CP's own
breakable prefill graphs (`supports_prefill_cp_bcg`, layers/cp/bcg/__init__.py:42-64;
graphfit.planner.engines.sglang_prefill_cp_bcg). A pasted line (issue 23 s54g) and
graphfit's own `--config` file (`file_settings`, `settle_file`; issue 23 s55g) do this; the
live check reads SGLang's resolved record (graphfit.inputs.sglang_live).

A config file's prefill attention backend is the one SGLang's `attention_backends_of` reads
(model_override_base.py:138-152): the file's `prefill_attention_backend`, else its
`attention_backend`, else SGLang's default for the named GPU and model, as on a pasted line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs import sglang_prefill_cp_platform
from graphfit.inputs.settings import FILE, Resolved, Setting
from graphfit.inputs.values import as_bool, normalize_key

FIELD = "prefill_cp_strategy"
BACKEND = "prefill_attention_backend"
HOOK = "prefill_cp_hook_backend"


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """The strategy of a prefill-CP line (nothing when prefill CP is off). It runs after
    sglang_prefill_cp.line, which refuses a line without a strategy (parallel_hook.py:
    151-154) and checks the strategy's spelling is one SGLang's parser takes."""
    strategy = values.get("cp_strategy")
    if values.get("enable_prefill_cp") is not True or strategy is None:
        return []
    return [Setting(FIELD, strategy, "--cp-strategy"), *_hook(values, "--")]


def _hook(values: Mapping[str, Any], prefix: str, layer: int | None = None) -> list[Setting]:
    """The prefill backend the flags (or a file's keys) name, which SGLang's CP-graph check
    sees before the memory hook (SglangOptions.prefill_cp_hook_backend; issue 23 s55g)."""
    for key in (BACKEND, "attention_backend"):
        named = values.get(key)
        if isinstance(named, str) and named.strip():
            origin = f"{prefix}{key.replace('_', '-') if prefix == '--' else key}"
            return [Setting(HOOK, named.strip().lower(), origin) if layer is None else
                    Setting(HOOK, named.strip().lower(), origin, layer)]
    return []


def file_settings(data: Mapping[Any, Any], name: str) -> list[Setting]:
    """`settings` for graphfit's own config file: its `cp_strategy` where its
    `enable_prefill_cp` is on (graphfit.inputs.sglang_prefill_cp.file has refused a file
    SGLang refuses, and one without a strategy, parallel_hook.py:151-154)."""
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    given, strategy = keys.get("enable_prefill_cp"), keys.get("cp_strategy")
    if given is None or strategy is None or not as_bool(f"{name}: enable_prefill_cp", given):
        return []
    return [Setting(FIELD, strategy, f"{name}: cp_strategy", FILE),
            *_hook(keys, f"{name}: ", FILE)]


def settle_file(data: Mapping[Any, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """`settle` for graphfit's own config file (module docstring): the file's named prefill
    backend first (`attention_backends_of`, model_override_base.py:138-152), else SGLang's
    default for the GPU (the file's own gpu_memory_gb when no flag gives one) and model."""
    values = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    gpu = gpu_given if gpu_given is not None else values.get("gpu_memory_gb")
    given = values.get("enable_prefill_cp")  # ROCm's refusal (s55g), the flag as the file has it
    if given is not None and as_bool("enable_prefill_cp", given):
        sglang_prefill_cp_platform.check({**values, "enable_prefill_cp": True}, gpu)
    named = values.get(BACKEND) or values.get("attention_backend")
    if isinstance(named, str) and named.strip() and _concerned(resolved):
        said = f"the config file's {BACKEND if values.get(BACKEND) else 'attention_backend'}"
        return replace(resolved, values=MappingProxyType({
            **resolved.values, BACKEND: named.strip().lower()}),
            origins=MappingProxyType({**resolved.origins, BACKEND: said}))
    return _settle(values, resolved, gpu)


def _concerned(resolved: Resolved) -> bool:
    """A prefill-CP plan naming no prefill backend yet whose attention CP width is its TP
    width: the only lines that may capture CP's graphs (bcg/__init__.py:47-52)."""
    values = resolved.values
    return values.get(FIELD) is not None and not values.get(BACKEND) and (
        values.get("attn_cp_size", 1) == values.get("tp_size", 1))


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A prefill-CP line naming no prefill attention backend: SGLang's default base backend
    for the GPU and model (graphfit.inputs.sglang_draft_default.default_target_backend), which
    `supports_prefill_cp_bcg` reads (`attention_backends_of`, model_override_base.py:138-152;
    layers/cp/bcg/__init__.py:53); unchanged where graphfit does not restate the default (the
    planner then refuses CP's graphs as not modelled). First SGLang's ROCm refusal
    (graphfit.inputs.sglang_prefill_cp_platform)."""
    sglang_prefill_cp_platform.check(line, gpu_given)  # ROCm's refusal (issue 23 s55g)
    return _settle(line, resolved, gpu_given)


def _settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """`settle` after the platform check."""
    from graphfit.inputs.sglang_draft_default import default_target_backend

    values = resolved.values
    if not _concerned(resolved):
        return resolved
    name = default_target_backend(line, gpu_given)
    if name is None:
        return resolved
    said = f"SGLang's default attention backend for this GPU and model: {name}"
    return replace(resolved, values=MappingProxyType({**values, BACKEND: name}),
                   origins=MappingProxyType({**resolved.origins, BACKEND: said}))
