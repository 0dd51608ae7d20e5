"""All inputs to one config: config file < command line (flags, JSON configs, environment).

`resolve` takes the command line's Settings (built by graphfit.cli.options from the flags),
adds the config file's and the environment's, settles the engine first (an SGLang-only flag
implies SGLang, a ladder policy its engine) and merges the rest (see `settings.merge`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from graphfit.inputs.environment import environment, implied_release_note
from graphfit.inputs.settings import Resolved, Setting, merge
from graphfit.planner.core.enums import Engine, LadderPolicy
from graphfit.planner.engines.registry import policy_engine


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


def resolve(command_line: Iterable[Setting], *, config_file: Path | None = None,
            environ: Mapping[str, str] | None = None,
            notes: Iterable[str] = ()) -> Resolved:
    """Merge every source into field values; `Resolved.config()` validates them."""
    settings: list[Setting] = []
    all_notes = list(notes)
    if config_file is not None:  # the file readers (every engine's keys) only when needed
        from graphfit.inputs.config_file import file_settings

        found, more = file_settings(config_file)
        settings += found
        all_notes += more
    settings += list(command_line)
    settings += _implied_engines(settings)
    env = environment(environ or {})
    if env:
        engine = _engine_of(settings)
        if engine == Engine.VLLM.value:  # the variables read are vLLM's (inputs.environment)
            note = implied_release_note(env, settings)
            if note is not None:
                all_notes.append(note)
            settings += env
        else:
            all_notes.append(f"{env[0].origin}: ignored for engine {engine}")
    return merge(settings, all_notes)
