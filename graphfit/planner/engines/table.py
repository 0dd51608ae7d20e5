"""The engine plugin table: every part of one (engine, version), named as lazy strings.

An engine is more than its planner model: graphfit also reads its serving command lines
(a reader and the flag table its parser was built from), writes a ladder back in its syntax
(paste-back), generates its configs for property tests (hypothesis strategies and the
speculative methods they draw) and replays its known bugs (corpus cases); it recognises the
engine's serving commands (programs) and reads the engine's environment variables. Each
part lives in the layer that owns it (inputs, testing, tests) and is named here by a string,
so this table -- at the bottom of the layers -- imports none of them: the layer that needs a
part loads it (`part(...)`), and import-linter's contracts hold.

Targets: "pkg.module:attr" for an object (model, reader, paste-back, strategies, programs,
environment, methods);
"pkg:relative/path" for data inside a package (a flag table file; a corpus glob).
`None`: the engine has no such part (a described engine has no command line to paste).
"""

from __future__ import annotations

import importlib
import importlib.resources
from dataclasses import dataclass, replace
from pathlib import Path

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines import registry

__all__ = [
    "DATA_PARTS", "OBJECT_PARTS", "PARTS", "EnginePlugin", "corpus_files", "data_path", "part",
    "plugin", "plugins", "register_plugin",
]

PARTS = ("model", "reader", "flags", "pasteback", "strategies", "corpus", "programs",
         "environment", "methods")
OBJECT_PARTS = ("model", "reader", "pasteback", "strategies", "programs", "environment",
                "methods")  # "module:attr"
DATA_PARTS = ("flags", "corpus")  # "package:path" (corpus: a glob)


@dataclass(frozen=True)
class EnginePlugin:
    """Where each part of one engine release lives (see the module docstring)."""

    engine: str
    version: str
    model: str
    reader: str | None = None
    flags: str | None = None
    pasteback: str | None = None
    strategies: str | None = None
    corpus: str | None = None
    # which pasted commands are this engine's (graphfit.inputs.programs.Programs)
    programs: str | None = None
    # the engine's environment variables graphfit reads: environ -> [Setting]
    # (graphfit.inputs.environment)
    environment: str | None = None
    # the speculative methods its strategies generate (a tuple of method names)
    methods: str | None = None

    def __post_init__(self) -> None:
        for name in PARTS:
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str) or value.count(":") != 1 or \
                    not all(value.partition(":")[::2]):
                raise ConfigError(f"engine plugin {self.engine} {self.version}: {name} must "
                                  f"be 'package.module:name', got {excerpt(value)}")


_PLUGINS: dict[tuple[str, str], EnginePlugin] = {}


def register_plugin(plugin: EnginePlugin, *, default: bool = False) -> None:
    """Add (or replace) an engine release's parts; its model goes to the registry too."""
    if not isinstance(plugin, EnginePlugin):
        raise ConfigError(f"register_plugin: expected an EnginePlugin, got {excerpt(plugin)}")
    registry.register(plugin.engine, plugin.version, plugin.model, default=default)
    found = registry.release(plugin.engine, plugin.version)
    _PLUGINS[(found.engine, found.version)] = plugin


def set_parts(plugin: EnginePlugin) -> None:
    """The parts of a release already in the registry (a model registered as an object,
    e.g. a described engine); the registry is left as it is."""
    found = registry.release(plugin.engine, plugin.version)
    _PLUGINS[(found.engine, found.version)] = plugin


def plugin(engine: object, version: str | None = None) -> EnginePlugin:
    """The parts of (engine, version) (None: its default release); a release registered
    with a model only has no other part."""
    found = registry.release(str(getattr(engine, "value", engine)), version)
    return _PLUGINS.get((found.engine, found.version),
                        EnginePlugin(found.engine, found.version, found.target))


def plugins() -> tuple[EnginePlugin, ...]:
    """Every registered release's parts, engine by engine, oldest release first."""
    return tuple(plugin(engine, version) for engine in registry.engines()
                 for version in registry.versions(engine))


def part(engine: object, name: str, version: str | None = None) -> object:
    """The loaded object of an object part (OBJECT_PARTS: "model", "reader", "pasteback",
    "strategies", "programs", "environment", "methods"); ConfigError when the engine has
    none."""
    if name not in OBJECT_PARTS:
        raise ConfigError(f"engine part: {excerpt(name)} is not one of {', '.join(OBJECT_PARTS)}")
    entry = plugin(engine, version)
    target = getattr(entry, name)
    if target is None:
        raise ConfigError(f"{entry.engine} {entry.version}: graphfit has no {name} for it")
    if name == "model":
        return registry.engine_model(entry.engine, entry.version)
    return registry.load_target(target)


def data_path(target: str) -> Path:
    """The file or directory a "package:relative/path" names (the glob's directory for a
    corpus); ConfigError when the package cannot be found."""
    package, _, relative = target.partition(":")
    try:
        root = importlib.resources.files(package)
    except (ImportError, TypeError) as exc:
        raise ConfigError(f"engine plugin: no package {excerpt(package)} ({exc})") from None
    return Path(str(root)).joinpath(relative)


def corpus_files(engine: object, version: str | None = None) -> tuple[Path, ...]:
    """The engine's corpus case files (sorted; empty when it names no corpus)."""
    target = plugin(engine, version).corpus
    if target is None:
        return ()
    pattern = data_path(target)
    return tuple(sorted(pattern.parent.glob(pattern.name)))


def _builtin(engine: str, version: str, model: str, short: str) -> EnginePlugin:
    return EnginePlugin(engine, version, model,
                        reader=f"graphfit.inputs.{short}_cli:READER",
                        flags=f"graphfit.inputs:flags/{short}.json",
                        pasteback=f"graphfit.inputs.pasteback:{short.upper()}_PASTEBACK",
                        strategies=f"graphfit.testing:{short}_configs",
                        corpus=f"tests:corpus/{short}-*",
                        programs=f"graphfit.inputs.programs:{short.upper()}_PROGRAMS",
                        environment=f"graphfit.inputs.environment:{short.upper()}_ENVIRONMENT",
                        methods=f"graphfit.testing:{short.upper()}_METHODS")


def _vllm_release(version: str, attr: str) -> EnginePlugin:
    """A vLLM release besides 0.33.0: its model, its own flag table (snapshotted from its
    parser by tests/oracle/flag_tables.py) and the line reader built on that table; the
    paste-back syntax, strategies and corpus are 0.33's."""
    base = _builtin("vllm", version, f"graphfit.planner.engines.vllm:{attr}", "vllm")
    suffix = attr.removeprefix("VLLM")
    return replace(base, flags=f"graphfit.inputs:flags/vllm-{version}.json",
                   reader=f"graphfit.inputs.vllm_cli:READER{suffix}")


for _entry in (_builtin("vllm", "0.33.0", "graphfit.planner.engines.vllm:VLLM", "vllm"),
               _vllm_release("0.32.0", "VLLM_0_32"), _vllm_release("0.34.0", "VLLM_0_34"),
               _builtin("sglang", "0.5.23", "graphfit.planner.engines.sglang:SGLANG", "sglang"),
               _builtin("trtllm", "main@c0edad93", "graphfit.planner.engines.trtllm:TRTLLM",
                        "trtllm")):
    _PLUGINS[(_entry.engine, _entry.version)] = _entry
