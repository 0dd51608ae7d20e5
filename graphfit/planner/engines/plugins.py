"""Third-party engines: the `graphfit.engines` entry-point group.

A distribution that models an engine declares, in its pyproject.toml,

    [project.entry-points."graphfit.engines"]
    myengine = "myengine_graphfit.register:register"

The entry point names a callable taking no arguments that calls
`graphfit.planner.engines.registry.register(...)` (and, for the rest of the engine's parts,
`graphfit.planner.engines.table.register_plugin(...)`) with "module:attr" strings, so reading the
group imports only that small module, never a model. The group is read once, the first time
the registry is asked for an engine or release it does not have built in (or for a listing).
A plugin that fails to load is not fatal for the other engines: asking for its engine (the
entry point's name) is a ConfigError that says why.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable

__all__ = ["FAILED", "GROUP", "load_entry_points"]

GROUP = "graphfit.engines"

# entry-point name -> why it did not load (reported when that engine is asked for)
FAILED: dict[str, str] = {}


def _entry_points() -> tuple[importlib.metadata.EntryPoint, ...]:
    return tuple(importlib.metadata.entry_points(group=GROUP))


def load_entry_points() -> tuple[str, ...]:
    """Run every `graphfit.engines` entry point's registration; the names that loaded."""
    loaded = []
    for point in _entry_points():
        try:
            hook: Callable[[], object] = point.load()
            if not callable(hook):
                raise TypeError(f"{point.value} is not callable")
            hook()
        except Exception as exc:  # a broken plugin must not break the other engines
            FAILED[point.name.strip().lower()] = f"{type(exc).__name__}: {exc}"[:120]
            continue
        loaded.append(point.name)
    return tuple(loaded)
