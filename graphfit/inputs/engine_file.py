"""`--engine-file FILE`: an engine description (TOML, YAML or JSON) read strictly.

The file is never trusted: it is read with graphfit's bounded readers (size, depth, numbers;
graphfit.inputs.reading), every key is known (a typo is an error naming the close match),
every value is validated by the description's dataclasses
(graphfit.planner.engines.described), and formulas are parsed, never evaluated as Python.
TOML needs Python 3.11's tomllib (or the `tomli` package on 3.10); YAML needs pyyaml
(graphfit[yaml]). The layout mirrors the dataclasses:

    name = "tiny-spec"
    version = "0.1.0"
    [[components]]
    name = "target"
    ladder = {keyed = "tokens", grid = {start = [1, 2, 4], step = 8}, max = "min(T, 64)"}
    dispatch = {mixed = "PIECEWISE", uniform = "FULL", padding = "next_size_up"}
    families = [{kind = "mixed"}, {kind = "uniform_decode"}]
    [[components.buffers]]
    name = "token_ids"
    ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import check_depth, load_data, read_text, shown_path
from graphfit.inputs.values import close_match
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.described import (
    BufferRule,
    ComponentRule,
    DescribedEngine,
    DispatchRule,
    EngineDescription,
    FamilyRule,
    Grid,
    LadderRule,
    register_description,
)

__all__ = ["MAX_ENGINE_FILE_BYTES", "description_from_data", "load_engine_file", "read_engine_file"]

MAX_ENGINE_FILE_BYTES = 256 * 1024  # descriptions are a few KiB
_MISSING = re.compile(r"(\w+)\.__init__\(\) missing \d+ required positional arguments?: (.*)")
_KINDS = {"BufferRule": "buffer", "FamilyRule": "family", "LadderRule": "ladder",
          "ComponentRule": "component", "Grid": "grid", "DispatchRule": "dispatch",
          "EngineDescription": "description"}

_KEYS: dict[str, tuple[str, ...]] = {
    "engine": ("name", "version", "summary", "components"),
    "component": ("name", "ladder", "dispatch", "families", "buffers", "speculative"),
    "ladder": ("keyed", "max", "sizes", "grid"),
    "grid": ("start", "step"),
    "dispatch": ("mixed", "uniform", "padding"),
    "family": ("kind", "max", "width"),
    "buffer": ("name", "dtype", "rows", "allocates", "trailing", "offset", "fill",
               "fill_value", "safe_fills", "init", "placement", "stages", "pinned",
               "slots"),
}


def _mapping(where: str, value: Any, kind: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a table/mapping, got {type(value).__name__}")
    known = _KEYS[kind]
    for key in value:
        if key not in known:
            hint = close_match(str(key), known)
            raise ConfigError(f"{where}: unknown key {excerpt(key)}"
                              f"{f' (did you mean {hint}?)' if hint else ''}; known: "
                              f"{', '.join(known)}")
    return dict(value)


def _list(where: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _component(where: str, data: Any) -> ComponentRule:
    raw = _mapping(where, data, "component")
    if "name" not in raw:
        raise ConfigError(f"{where}: a component is missing 'name'")
    name = raw["name"]
    here = f"{where} {excerpt(name)}"
    ladder = _mapping(f"{here}.ladder", raw.get("ladder", {}), "ladder")
    if "grid" in ladder:
        grid = _mapping(f"{here}.ladder.grid", ladder["grid"], "grid")
        ladder["grid"] = Grid(**{k: _tuple(v) for k, v in grid.items()})
    if "sizes" in ladder:
        ladder["sizes"] = _tuple(ladder["sizes"])
    families = [FamilyRule(**_mapping(f"{here}.families[{i}]", f, "family"))
                for i, f in enumerate(_list(f"{here}.families", raw.get("families", [])))]
    buffers = []
    for i, b in enumerate(_list(f"{here}.buffers", raw.get("buffers", []))):
        fields = _mapping(f"{here}.buffers[{i}]", b, "buffer")
        buffers.append(BufferRule(**{k: _tuple(v) for k, v in fields.items()}))
    dispatch = DispatchRule(**_mapping(f"{here}.dispatch", raw.get("dispatch", {}),
                                       "dispatch"))
    return ComponentRule(name, LadderRule(**ladder), tuple(families), tuple(buffers), dispatch,
                         raw.get("speculative", False))


def description_from_data(data: Any, origin: str = "engine") -> EngineDescription:
    """An EngineDescription from a parsed file (ConfigError naming the first problem)."""
    check_depth(origin, data)
    raw = _mapping(origin, data, "engine")
    for key in ("name", "version", "components"):
        if key not in raw:
            raise ConfigError(f"{origin}: missing {key!r}")
    try:
        components = [_component(f"{origin}: component", c)
                      for c in _list(f"{origin}.components", raw["components"])]
        return EngineDescription(raw["name"], raw["version"], tuple(components),
                                 raw.get("summary", ""))
    except TypeError as exc:  # a key missing (the dataclasses' required arguments)
        found = _MISSING.search(str(exc))
        if found is None:  # pragma: no cover - every other shape is checked by name
            raise ConfigError(f"{origin}: {excerpt(str(exc), 120)}") from None
        kind = _KINDS.get(found.group(1), found.group(1))
        raise ConfigError(f"{origin}: a {kind} is missing {found.group(2)}") from None


def _toml(path: Path, origin: str) -> Any:
    try:
        import tomllib as toml  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        try:
            import tomli as toml  # type: ignore[no-redef]
        except ImportError:
            raise ConfigError(f"{origin}: reading TOML needs Python 3.11 or the tomli "
                              "package (or give the description as YAML/JSON)") from None
    text = read_text(path, "engine file", limit=MAX_ENGINE_FILE_BYTES)
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not TOML ({str(exc)[:80]})") from None


def read_engine_file(path: str | Path) -> EngineDescription:
    """The description in `path` (.toml, .yaml/.yml or .json), validated."""
    origin = f"engine file {shown_path(path)}"
    path = Path(path)
    try:
        if path.stat().st_size > MAX_ENGINE_FILE_BYTES:
            raise ConfigError(f"{origin}: larger than {MAX_ENGINE_FILE_BYTES // 1024} KiB")
    except OSError as exc:
        raise ConfigError(f"{origin}: cannot read it ({exc.strerror or exc})") from None
    toml = path.suffix.lower() == ".toml"
    data = _toml(path, origin) if toml else load_data(path, "engine file")
    try:
        return description_from_data(data, origin)
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if message.startswith(origin) else f"{origin}: {message}"
                          ) from None


def load_engine_file(path: str | Path) -> DescribedEngine:
    """Read, validate and register the described engine (its name and version become an
    engine and engine_version every command accepts)."""
    return register_description(read_engine_file(path))
