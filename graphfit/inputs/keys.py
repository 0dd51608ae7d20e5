"""Key handlers: how one config-file key or flag value becomes Settings (and notes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine

Handler = Callable[[str, Any, int], tuple[list[Setting], list[str]]]
Reader = Callable[[str, Any], Any]


def field_key(name: str, read: Reader, engine: Engine | None = None) -> Handler:
    """A key that sets one field (None from `read` sets nothing) and may imply an engine."""

    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        parsed = read(origin, value)
        out = [] if parsed is None else [Setting(name, parsed, origin, layer)]
        if engine is not None:
            out.append(Setting("engine", engine, origin, layer))
        return out, []

    return handle


def raw(origin: str, value: Any) -> Any:
    """Pass the value through; EngineConfig validates it and names the field."""
    return value
