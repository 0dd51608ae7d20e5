"""`graphfit compare LEFT RIGHT`: each side read from text, strictly.

A side is a ladder policy (`vllm-legacy`, `sglang-spec`...), a list of capture sizes
(`1,2,4,8` or `[1,2,4,8]`: an explicit ladder) or field overrides
(`ladder=vllm;max_cudagraph_capture_size=64`). Values of overrides are `none`/`null`,
`true`/`false`, integers (ASCII digits), lists of integers or plain words; EngineConfig then
validates every field, naming it. The planner applies the changes
(graphfit.planner.analysis.compare.apply_variant).
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.reading import is_int_text, parse_int
from graphfit.inputs.values import as_sizes, normalize_key
from graphfit.planner.analysis.compare import apply_variant
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import LadderPolicy
from graphfit.planner.core.errors import ConfigError, brief, excerpt
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.engines.registry import policy_engine


def _value(origin: str, text: str) -> Any:
    value = text.strip()
    if value.lower() in ("none", "null"):
        return None
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    if is_int_text(value):
        return parse_int(origin, value, minimum=-MAX_INT)
    if value.startswith("[") or "," in value:
        return as_sizes(origin, value)
    return value


def read_variant(spec: str) -> dict[str, Any]:
    """The field changes one side of `compare` asks for."""
    text = spec.strip()
    shown = brief(text)
    if not text:
        raise ConfigError("compare: an empty variant")
    if "=" in text:
        changes: dict[str, Any] = {}
        for part in (p for p in text.split(";") if p.strip()):
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise ConfigError(f"compare: {shown}: {excerpt(part)} is not key=value")
            name = normalize_key(key)
            if name in changes:
                raise ConfigError(f"compare: {shown}: {brief(name)} is given twice")
            changes[name] = _value(f"compare: {brief(name)}", value)
        return changes
    if text[0].isdigit() or text.startswith("["):
        return {"ladder": LadderPolicy.EXPLICIT,
                "cudagraph_capture_sizes": as_sizes(f"compare: {shown}", text)}
    try:
        policy = LadderPolicy(text.lower())
    except ValueError:
        choices = ", ".join(p.value for p in LadderPolicy if p is not LadderPolicy.AUTO)
        raise ConfigError(f"compare: {shown} is not a ladder policy ({choices}), a size "
                          "list or key=value overrides") from None
    owner = policy_engine(policy)  # another engine's policy switches the engine
    return {"ladder": policy} if owner is None else {"ladder": policy, "engine": owner}


def variant(base: EngineConfig, spec: str) -> tuple[EngineConfig, list[str]]:
    """One side of a comparison: `base` changed as `spec` says (see the module docstring)."""
    return apply_variant(base, read_variant(spec), brief(spec.strip()))
