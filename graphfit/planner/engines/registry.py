"""The (engine, version) registry: the one place that picks an engine model.

Every modelled release is registered by name as `register(engine, version, "pkg.module:ATTR")`
-- a string, so importing the registry imports no model: a model's module is imported the
first time that (engine, version) is asked for, and planning for vLLM never imports the
SGLang and TensorRT-LLM models (the CLI's start-up). A new release is one more `register`
line (and its module); no other release's module changes.

There is no default branch: an engine or version that is not registered is a ConfigError
listing the known ones. An engine's default version is the one marked `default=True`, else
its newest release.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from graphfit.planner.core.enums import Engine, LadderPolicy
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.base import EngineModel

__all__ = [
    "MODELS", "RUNTIME_TARGET", "Release", "add_model", "add_models", "default_version",
    "engine_model", "engines", "load_target", "policy_engine", "register", "release",
    "release_key", "runtime_models", "versions",
]

# the policies no engine owns: answered without importing any model
_ANY_ENGINE = (LadderPolicy.AUTO, LadderPolicy.EXPLICIT)
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
# the target of a model registered as an object (never imported: it is loaded already)
RUNTIME_TARGET = "graphfit.planner.engines.registry:RUNTIME_TARGET"
_NUMBERS = re.compile(r"^v?(\d+(?:\.\d+)*)(.*)$")


@dataclass(frozen=True)
class Release:
    """One registered (engine, version): where its model lives ("pkg.module:ATTR")."""

    engine: str
    version: str
    target: str
    default: bool = False
    order: int = 0  # registration order: ties and non-numeric versions keep it


_RELEASES: dict[str, dict[str, Release]] = {}
_LOADED: dict[tuple[str, str], EngineModel] = {}


def _name(engine: object) -> str:
    """An engine's registry key: `Engine.VLLM` and "vllm" (any case, spaces around) alike."""
    text = engine.value if isinstance(engine, Engine) else engine
    if not isinstance(text, str):
        raise ConfigError(f"engine: expected an engine name, got {excerpt(engine)}")
    return text.strip().lower()


def release_key(release: Release) -> tuple[int, tuple[int, ...], str, int]:
    """Sort key "by release": numeric versions by their numbers (0.9 < 0.10; a suffix such
    as rc1 sorts before the bare release), others (a branch@commit) in registration order
    after them."""
    found = _NUMBERS.match(release.version)
    if found is None:
        return (1, (), "", release.order)
    numbers = tuple(int(part) for part in found.group(1).split("."))
    suffix = found.group(2)
    return (0, numbers, suffix if suffix else "\uffff", release.order)


def register(engine: str, version: str, target: str, *, default: bool = False) -> None:
    """Register the model of one engine release; `target` is "pkg.module:ATTR" naming an
    EngineModel object (imported on first use). Registering the same (engine, version)
    again replaces it (a plugin may override a built-in release)."""
    name = _name(engine)
    if not name or not isinstance(version, str) or not version.strip():
        raise ConfigError(f"register: engine and version must be non-empty, got "
                          f"{excerpt(engine)} {excerpt(version)}")
    if not isinstance(target, str) or not _TARGET.match(target):
        raise ConfigError(f"register: target must be 'pkg.module:ATTR', got {excerpt(target)}")
    version = version.strip()
    releases = _RELEASES.setdefault(name, {})
    if default:
        for other, release in list(releases.items()):
            if release.default:
                releases[other] = Release(name, other, release.target, False, release.order)
    order = releases[version].order if version in releases else sum(map(len, _RELEASES.values()))
    releases[version] = Release(name, version, target, default, order)
    _LOADED.pop((name, version), None)


def add_model(model: EngineModel, *, default: bool = False) -> None:
    """Register a model object built at run time (a described engine read from a file)
    under its own engine name and release; it replaces a release of the same name."""
    name, version = _name(getattr(model, "engine", None)), getattr(model, "release", None)
    if not isinstance(version, str):
        raise ConfigError(f"register: {excerpt(model)} is not an engine model (no release)")
    register(name, version, RUNTIME_TARGET, default=default)
    _LOADED[(name, version.strip())] = model


def runtime_models() -> tuple[EngineModel, ...]:
    """The models registered as objects (`add_model`), e.g. for a worker process."""
    return tuple(_LOADED[(name, version)] for name, releases in _RELEASES.items()
                 for version, found in releases.items()
                 if found.target == RUNTIME_TARGET and (name, version) in _LOADED)


def add_models(models: tuple[EngineModel, ...]) -> None:
    """`add_model` each of `models` (a worker's initializer)."""
    for model in models:
        add_model(model)


def engines() -> tuple[str, ...]:
    """Every registered engine's name (third-party ones included), in registration order."""
    _load_plugins()
    return tuple(_RELEASES)


def _releases(engine: object, *, everything: bool = False) -> dict[str, Release]:
    """The engine's releases; plugins are read for a listing or when the engine is not
    built in (so a plugin adds engines and releases but never changes what a plain
    `--engine vllm` means: a built-in engine's default is its built-in newest release)."""
    name = _name(engine)
    if everything or name not in _RELEASES:
        _load_plugins()
    releases = _RELEASES.get(name)
    if not releases:
        from graphfit.planner.engines.plugins import FAILED

        why = f" (its plugin failed to load: {FAILED[name]})" if name in FAILED else ""
        raise ConfigError(f"engine: {excerpt(name)} is not one of "
                          f"{', '.join(_RELEASES)}{why}")
    return releases


def versions(engine: str) -> tuple[str, ...]:
    """The engine's registered versions, oldest release first."""
    return _sorted(_releases(engine, everything=True))


def _sorted(releases: Mapping[str, Release]) -> tuple[str, ...]:
    return tuple(r.version for r in sorted(releases.values(), key=release_key))


def default_version(engine: str) -> str:
    """The version used when none is given: the one marked default, else the newest."""
    releases = _releases(engine)
    marked = [r.version for r in releases.values() if r.default]
    return marked[0] if marked else _sorted(releases)[-1]


def release(engine: str, version: str | None = None) -> Release:
    """The registered release (None: the engine's default); ConfigError listing the known."""
    releases = _releases(engine)
    if version is None:
        version = default_version(engine)
    if not isinstance(version, str):
        raise ConfigError(f"engine_version: expected a version string, got {excerpt(version)}")
    found = releases.get(version.strip())
    if found is None and not _PLUGINS_READ:
        releases = _releases(engine, everything=True)
        found = releases.get(version.strip())
    if found is None:
        raise ConfigError(f"engine_version: {excerpt(version)} is not a modelled "
                          f"{_name(engine)} release ({', '.join(versions(engine))})")
    return found


def load_target(target: str) -> object:
    """The object a "pkg.module:ATTR" string names (imported now)."""
    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"engine plugin: cannot load {excerpt(target)} ({exc})") from None


def engine_model(engine: str | Engine, version: str | None = None) -> EngineModel:
    """The model of `engine` at `version` (None: the engine's default version)."""
    found = release(_name(engine), version)
    key = (found.engine, found.version)
    cached = _LOADED.get(key)
    if cached is not None:
        return cached
    if found.target == RUNTIME_TARGET:  # pragma: no cover - add_model stores the model
        raise ConfigError(f"engine: {found.engine} {found.version} was registered as an object "
                          "that is gone")
    loaded = load_target(found.target)
    if not isinstance(getattr(loaded, "release", None), str):
        raise ConfigError(f"engine plugin: {found.target} is not an engine model (no release)")
    model: EngineModel = loaded  # type: ignore[assignment]
    _LOADED[key] = model
    return model


class _Models(Mapping[Engine, EngineModel]):
    """Every built-in engine's default model, each imported on first use."""

    def __getitem__(self, engine: Engine) -> EngineModel:
        if not isinstance(engine, Engine):
            raise KeyError(engine)
        return engine_model(engine)

    def __iter__(self) -> Iterator[Engine]:
        return iter(Engine)

    def __len__(self) -> int:
        return len(Engine)


MODELS: Mapping[Engine, EngineModel] = _Models()


def policy_engine(policy: LadderPolicy) -> Engine | None:
    """The engine a ladder policy belongs to (None for `explicit` and `auto`: any engine)."""
    if policy in _ANY_ENGINE:
        return None
    for engine, model in MODELS.items():
        if policy in model.policies:
            return engine
    return None


_PLUGINS_READ = False


def _load_plugins() -> None:
    """Third-party engines (the `graphfit.engines` entry-point group), read once, lazily."""
    global _PLUGINS_READ
    if _PLUGINS_READ:
        return
    _PLUGINS_READ = True
    from graphfit.planner.engines.plugins import load_entry_points

    load_entry_points()


# The modelled releases (a new release: one line here and its module).
# vLLM: one model per release (graphfit/planner/engines/vllm/releases/, each a delta of the
# previous one, proven against its own wheel: tests/oracle/test_vllm_release_oracle.py)
# 0.34.0, the newest, is the default (no release is marked: a newer registered release
# becomes the default); tests and examples that show 0.33 behaviour (the V1 runner, merged
# capture sizes, the seed bug) name their release
register("vllm", "0.32.0", "graphfit.planner.engines.vllm:VLLM_0_32")
register("vllm", "0.33.0", "graphfit.planner.engines.vllm:VLLM")
register("vllm", "0.34.0", "graphfit.planner.engines.vllm:VLLM_0_34")
register("sglang", "0.5.23", "graphfit.planner.engines.sglang:SGLANG")
# TensorRT-LLM has no wheel release modelled: its model follows the main branch at the
# commits tests/oracle/trtllm_reference.py pins (its version names the commit of
# tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:138-884, `CUDAGraphRunner`)
register("trtllm", "main@c0edad93", "graphfit.planner.engines.trtllm:TRTLLM")
