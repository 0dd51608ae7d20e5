"""Look up one of a component's buffers by name: the one rule a token-dispatched component
(graphfit.planner.plan.ComponentPlan) and a keyed one (graphfit.planner.keyed_plan.
KeyedComponentPlan) share. It lives here, below both, because plan.py imports keyed_plan.py
and keyed_plan.py may not import plan.py back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from graphfit.planner.core.errors import ConfigError


class Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=Named)


def find_buffer(component: str, buffers: Iterable[N], name: str) -> N:
    """The buffer of `component` called `name`; ConfigError listing the known names."""
    listed = tuple(buffers)
    for buf in listed:
        if buf.name == name:
            return buf
    known = ", ".join(b.name for b in listed)
    raise ConfigError(f"buffer: {component} has no buffer {name!r} (known: {known})")


__all__ = ["Named", "find_buffer"]
