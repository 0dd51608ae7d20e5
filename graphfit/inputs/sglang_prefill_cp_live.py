"""A live SGLang 0.5.23 ServerArgs record with `--enable-prefill-cp`: what the planner needs
to plan CP's own breakable prefill graphs as it does for the pasted line (issue 23 s55g,
after s54g's graphfit.inputs.sglang_prefill_cp_bcg).

SGLang keeps the record's fields as the flags gave them and declares each resolution step's
answer into `_resolved_overrides` (`declare_resolution`, arg_groups/overrides.py:110-131);
`resolved_view` lays those declarations over the fields, the last writer winning
(model_override_base.py:125-135, 76-86). `supports_prefill_cp_bcg` reads the prefill
attention backend off that view (`attention_backends_of(resolved)`: the split field, else the
base, model_override_base.py:138-152; layers/cp/bcg/__init__.py:53). A line naming no backend
has SGLang's default declared there (`_attention_backend_default`), so the live check reads
the backend SGLang picked on the GPU it runs on, with no restated default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_live_post_capture import field_value

STRATEGY, BACKEND = "prefill_cp_strategy", "prefill_attention_backend"
HOOK = "prefill_cp_hook_backend"


def declared(server_args: Any) -> dict[str, Any]:
    """`_declaration_overlay` (model_override_base.py:125-130): every resolution step's
    declared fields merged in order (none for a mapping or an unresolved record)."""
    if isinstance(server_args, Mapping):
        return {}
    overlay: dict[str, Any] = {}
    for entry in getattr(server_args, "_resolved_overrides", None) or ():
        found = entry[1] if isinstance(entry, (tuple, list)) and len(entry) == 2 else None
        if isinstance(found, Mapping):
            overlay.update(found)
    return overlay


def resolved_value(server_args: Any, key: str) -> Any:
    """The field as `resolved_view` reads it: the declared value, else the field."""
    overlay = declared(server_args)
    return overlay[key] if key in overlay else field_value(server_args, key)


def settings(server_args: Any) -> dict[str, Any]:
    """EngineConfig fields of a prefill-CP record (empty when prefill CP is off): its
    `cp_strategy` and the resolved prefill attention backend (graphfit.inputs.
    sglang_prefill_cp.line has refused a record without a strategy)."""
    strategy = field_value(server_args, "cp_strategy")
    if field_value(server_args, "enable_prefill_cp") is not True or strategy is None:
        return {}
    out: dict[str, Any] = {STRATEGY: str(getattr(strategy, "value", strategy))}
    prefill = resolved_value(server_args, BACKEND) or resolved_value(server_args,
                                                                     "attention_backend")
    if isinstance(prefill, str) and prefill.strip():
        out[BACKEND] = prefill.strip().lower()
    # the backend the flags named (the record's fields): what SGLang's CP-graph check saw
    # before the memory hook (SglangOptions.prefill_cp_hook_backend)
    flags = field_value(server_args, BACKEND) or field_value(server_args, "attention_backend")
    if isinstance(flags, str) and flags.strip():
        out[HOOK] = flags.strip().lower()
    return out


__all__ = ["declared", "resolved_value", "settings"]
