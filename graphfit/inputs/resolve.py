"""All inputs to one config: config file < command line (flags, JSON configs, environment).

`resolve` takes the command line's Settings (built by graphfit.cli.options from the flags),
adds the config file's and the environment's, settles the engine first (an SGLang-only flag
implies SGLang, a ladder policy its engine) and merges the rest (see `settings.merge`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from graphfit.inputs.environment import implied_release_note
from graphfit.inputs.settings import Resolved, Setting, merge
from graphfit.planner.core.enums import Engine, LadderPolicy
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.registry import policy_engine
from graphfit.planner.engines.table import part, plugin


def _implied_engines(settings: Iterable[Setting]) -> list[Setting]:
    out = []
    for s in settings:
        if s.field != "ladder":
            continue
        try:
            policy = LadderPolicy(str(getattr(s.value, "value", s.value)).strip().lower())
        except ValueError:
            continue  # EngineConfig reports the bad policy, naming the field
        owner = policy_engine(policy)
        if owner is not None:
            out.append(Setting("engine", owner, s.origin, s.layer))
    return out


def _engine_of(settings: list[Setting]) -> str:
    """The chosen engine's name (a bad one is EngineConfig's to reject, naming the field)."""
    chosen = merge([s for s in settings if s.field == "engine"]).values.get("engine")
    if chosen is None:
        return Engine.VLLM.value
    return str(getattr(chosen, "value", chosen)).strip().lower()


def _line_keys(line: list[Setting]) -> Mapping[str, Any] | None:
    """The file keys of the engine the command line itself names (`--engine sglang`, a
    pasted SGLang line): the line's engine wins over the file's, so a file read for it holds
    SGLang's `attention_backend`, as one naming `engine: sglang` does (graphfit.inputs.
    config_file.SGLANG_FILE_KEYS; issue 23 s45m). None otherwise: the file's keys as before."""
    from graphfit.inputs.config_file import SGLANG_FILE_KEYS

    named = line + _implied_engines(line)
    if not any(s.field == "engine" for s in named):
        return None
    return SGLANG_FILE_KEYS if _engine_of(named) == Engine.SGLANG.value else None


def resolve(command_line: Iterable[Setting], *, config_file: Path | None = None,
            environ: Mapping[str, str] | None = None,
            notes: Iterable[str] = ()) -> Resolved:
    """Merge every source into field values; `Resolved.config()` validates them."""
    settings: list[Setting] = []
    all_notes = list(notes)
    line = list(command_line)
    if config_file is not None:  # the file readers (every engine's keys) only when needed
        from graphfit.inputs.config_file import ENGINE_ONLY_KEYS, file_settings

        found, more = file_settings(config_file, _line_keys(line))
        # once the engine is known, the keys only it reads among those another engine
        # spells alike (TensorRT-LLM's tensor_parallel_size, which vLLM files ignore)
        own = ENGINE_ONLY_KEYS.get(_engine_of(found + line + _implied_engines(found + line)))
        if own:
            found, more = file_settings(config_file, own)
        settings += found
        all_notes += more
    settings += line
    settings += _implied_engines(settings)
    if environ:
        engine = _engine_of(settings)
        # the chosen engine's variables apply; another engine's that are set are noted
        for name in dict.fromkeys([engine, *(e.value for e in Engine)]):
            env = _environment(name, environ)
            if env and name == engine:
                if engine == Engine.VLLM.value:  # the release VLLM_USE_V2_MODEL_RUNNER implies
                    note = implied_release_note(env, settings)
                    if note is not None:
                        all_notes.append(note)
                settings += env
            elif env:
                all_notes.append(f"{env[0].origin}: ignored for engine {engine}")
    if _engine_of(settings) == Engine.TRTLLM.value:  # a named GPU as its SM version (s64g)
        from graphfit.inputs.trtllm_gpu import sm_settings

        settings = sm_settings(settings)
    if _engine_of(settings) == Engine.SGLANG.value:  # the memory hook's graphs, before
        from graphfit.inputs.sglang import AFTER_ALL  # torch_native turns them off
        from graphfit.inputs.sglang_hook_graphs import hook_graphs

        settings += hook_graphs(settings, AFTER_ALL)
    if config_file is not None and _engine_of(settings) == Engine.SGLANG.value:
        from graphfit.inputs.config_file import sglang_length_check

        all_notes += sglang_length_check(config_file, settings, environ or {})
    return merge(settings, all_notes)


def _environment(engine: str, environ: Mapping[str, str]) -> list[Setting]:
    """What `engine`'s environment reader (its `environment` part in the plugin table)
    finds; none for an engine without one (or unknown: EngineConfig names a bad engine)."""
    try:
        if plugin(engine).environment is None:
            return []
        reader = cast(Callable[[Mapping[str, str]], list[Setting]],
                      part(engine, "environment"))
    except ConfigError:
        return []
    return reader(environ)
