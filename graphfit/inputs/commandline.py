"""A serving command line pasted as is: `vllm serve MODEL ...`, `python -m sglang.launch_server
...`, `trtllm-serve MODEL ...` -> Settings, read with the engine's own rules.

`read(words)` takes the words after graphfit's `--` (or one quoted string), drops what the
shell would (leading `VAR=value` assignments -- kept as the engine's environment --, `nohup`,
`env`, `uv run`, and anything after a pipe, `&&`, `;` or a redirection), recognises the engine
and entry point, and runs that engine version's parser (graphfit.inputs.vllm_cli,
sglang_cli, trtllm_cli: the engine's spellings, from the flag-table snapshots). Each parsed
value whose key graphfit models goes through the engine's FILE_KEYS handler -- the one place
an engine key becomes EngineConfig fields -- and every other flag is listed once, as typed,
in a single note. A malformed value of a modelled key, or anything the engine's parser
refuses, is a ConfigError (one `error:` line).

The model the line serves is read from its config.json when it is a local path
(graphfit.inputs.model_config); engine defaults the line leaves open (vLLM's max_num_seqs) are
weak settings, so any explicit value wins.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from graphfit.inputs import (
    mamba_state,
    model_config,
    renamed,
    sglang_context_length,
    sglang_dspark_env,
    sglang_dsv4,
    sglang_post_capture,
    sglang_quant_config_file,
    sglang_vit,
    shell,
    target_overrides,
    trtllm_a2a,
    trtllm_features,
    trtllm_slots,
)
from graphfit.inputs.flagtable import LineReader, Parsed, Refused
from graphfit.inputs.programs import Programs
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt, fitted, listed
from graphfit.planner.engines.table import part, plugin

_SHELL_STOP = frozenset({"|", "||", "&&", ";", "&", "2>&1", "1>&2"})
_LAUNCHERS = frozenset({"nohup", "exec", "time", "env", "sudo"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class PastedLine:
    """What graphfit read from one pasted serving command."""

    engine: Engine
    label: str                      # "vLLM 0.33.0 (vllm serve)"
    entry: str                      # serve, api_server, launch_server, trtllm-serve
    values: Mapping[str, Any]       # what the engine's parser read, by its key (dest)
    spellings: tuple[tuple[str, str], ...]  # (key, spelling typed), in order
    model: str | None
    environ: Mapping[str, str]      # VAR=value prefixes of the line
    settings: tuple[Setting, ...]
    notes: tuple[str, ...]


def shell_words(words: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """(environment assignments, the command's words) as a shell would run the line.

    A line pasted as one string is split as bash splits it (graphfit.inputs.shell: `#` in a
    word is no comment, a bare newline ends the command), in linear time; either way at most
    MAX_PASTE_WORDS words are read."""
    if words and any(c.isspace() for c in words[0]):  # pasted as one quoted string
        words = [*shell.split(words[0]), *shell.check_count(list(words[1:]))]
    out: list[str] = []
    for word in shell.check_count(list(words)):
        if word in _SHELL_STOP or word.startswith((">", "1>", "2>", "<")):
            break
        out.append(word)
    environ: dict[str, str] = {}
    i = 0
    while i < len(out) and (_ASSIGNMENT.match(out[i]) or out[i] in _LAUNCHERS):
        if _ASSIGNMENT.match(out[i]):
            name, _, value = out[i].partition("=")
            environ[name] = value
        i += 1
    out = out[i:]
    if out[:2] == ["uv", "run"]:
        out = out[2:]
    return environ, out


def identify(words: Sequence[str]) -> tuple[Engine, str, list[str]]:
    """(engine, entry point, argv as the engine's parser gets it): each registered engine's
    `programs` part (graphfit.inputs.programs) is asked in turn."""
    if not words:
        raise ConfigError(f"pasted command: empty (expected one of: {known()})")
    for engine, programs in _programs():
        found = programs(words)
        if found is not None:
            return engine, found[0], found[1]
    shown = excerpt(" ".join(words[:3]), 32)
    raise ConfigError(f"pasted command: {shown} is not a serving command graphfit reads "
                      f"({known()})")


def _programs() -> list[tuple[Engine, Programs]]:
    """Each engine's `programs` part (its default release's; graphfit.planner.engines.table).
    Pasted lines are read for the built-in engines (PastedLine, the readers and the renamed
    flags are theirs), so theirs are asked."""
    out: list[tuple[Engine, Programs]] = []
    for engine in Engine:
        if plugin(engine).programs is not None:
            out.append((engine, cast(Programs, part(engine, "programs"))))
    return out


def known() -> str:
    """The serving commands graphfit reads, for messages."""
    return ", ".join(programs.forms for _, programs in _programs())


# each engine's reader module (its READER), imported when a line of that engine is pasted:
# the default release's `reader` in the plugin table (graphfit.planner.engines.table)
READER_MODULES = {engine: plugin(engine).reader.partition(":")[0]  # type: ignore[union-attr]
                  for engine in Engine}


def reader_of(engine: Engine, version: str | None = None) -> LineReader:
    """`engine`'s reader (of its default release unless `version` is given)."""
    reader: LineReader = cast(LineReader, part(engine, "reader", version))
    return reader


def readers() -> dict[Engine, LineReader]:
    """Each engine's reader."""
    return {engine: reader_of(engine) for engine in READER_MODULES}


def _release_accepting(engine: Engine, entry: str, argv: Sequence[str], refused: LineReader
                       ) -> tuple[str, LineReader, tuple[Parsed, str, list[str]]] | None:
    """The newest other release of `engine` whose own parser reads a line the default
    release's refuses (a flag or config key that release added), with what it read."""
    from graphfit.planner.engines.registry import default_version, versions

    default = default_version(engine.value)
    for version in reversed(versions(engine.value)):
        if version == default:
            continue
        try:
            reader = reader_of(engine, version)
        except ConfigError:
            continue
        if reader is refused:
            continue
        try:
            return version, reader, reader.parse(argv, entry)
        except Refused:
            continue
    return None


def _map(reader: LineReader, parsed: Parsed, label: str) -> tuple[list[Setting], list[str]]:
    """FILE_KEYS handlers for the modelled keys; one note listing the rest as typed."""
    settings: list[Setting] = [Setting("engine", reader.engine, label)]
    notes: list[str] = []
    ignored: list[str] = []
    for dest, value in parsed.values.items():
        spelled = parsed.spelled(dest) or [f"--{dest.replace('_', '-')}"]
        handler = reader.keys.get(dest)
        if len(spelled) > 1 and handler is not None:  # earlier values are lost
            notes.append(f"{spelled[-1]} is given {len(spelled)} times ({', '.join(spelled)}"
                         f"): the engine keeps only the last")
        if handler is not None:
            found, more = handler(spelled[-1], value, COMMAND_LINE)
            settings += found
            notes += more
        elif dest == "config" and reader.reads_config_flag:
            notes.append(f"{spelled[-1]}={value}: the engine reads a config file only from "
                         "`--config FILE` (two words); this one is ignored, as the engine "
                         "ignores it")
        elif dest not in reader.consumed:
            ignored += spelled
    if ignored:
        notes.insert(0, f"not modelled, ignored: {listed(dict.fromkeys(ignored), 24)}")
    return settings, notes


def read(words: Sequence[str], version: str | None = None) -> PastedLine:
    """Read a pasted serving command (see the module docstring). `version`: the release the
    user asked for (`--engine-version`, `engine_version` in a config file): the line is read
    with that release's own parser and flag table only, so a flag or key only another release
    has is that release's refusal, never a silent switch of release."""
    environ, command = shell_words(words)
    engine, entry, argv = identify(command)
    reader = reader_of(engine, version)
    label = reader.label(entry)
    release: str | None = None
    try:
        parsed, model, notes = reader.parse(argv, entry)
    except Refused as exc:
        other = None if version is not None else _release_accepting(engine, entry, argv,
                                                                        reader)
        if other is None:
            raise ConfigError(refusal(engine, label, argv, str(exc))) from None
        release, reader, (parsed, model, notes) = other
        notes = [f"{label} refuses this line ({excerpt(str(exc), 80)}); {reader.label(entry)}'s "
                 f"parser reads it: planned as a {release} line (--engine-version overrides)",
                 *notes]
        label = reader.label(entry)
    with target(engine, model, parsed.values):  # SGLang: the override args on the target
        notes = [*renamed.environment_notes(engine, environ), *notes]
        try:
            settings, more = _map(reader, parsed, label)
        except ConfigError as exc:  # SGLang's prefill-CP refusal before graphfit's own
            if engine is Engine.SGLANG:  # "not modelled" of a flag (issue 23 s60r)
                from graphfit.inputs.sglang_prefill_cp import refusal_first

                refusal_first(parsed.values, exc)
            raise
        if release is not None:
            settings.append(Setting("engine_version", release, label, COMMAND_LINE, weak=True))
        notes = [*notes, *more]
        with sglang_dspark_env.line_environment(environ):  # DSPARK's draft reads it
            settings, more = reader.finish(parsed.values, settings)
        notes += more
        if model:
            found, more = model_config.model_settings(model, "model",
                                                       sglang=engine is Engine.SGLANG)
            settings += found
            notes += more
            if engine is Engine.SGLANG:  # the memory reserve of a vision-language model
                sglang_context_length.check_flag(parsed.values.get("context_length"),
                                                 model_config.sglang_length(model), environ)
                notes += model_config.ask_length(model, parsed.values.get("context_length"))
                settings += model_config.vision_settings(model)
                settings += mamba_state.mamba_state_settings(model)
                settings += model_config.quant_settings(model)  # megamoe's NVFP4 rule
                notes += sglang_quant_config_file.check_model(  # weight_utils.py:288-394
                    parsed.values.get("quantization"), model, gpu_later=True,
                    line=parsed.values)  # s67q: the flags deciding DeepSeek's fusion
                settings += sglang_post_capture.hybrid_swa_settings(model)  # unified memory
                settings += sglang_dsv4.shape_settings(model)  # DeepSeek-V4's KV pools
            if engine is Engine.TRTLLM:  # T5-style relative attention: fixed encoder slots
                settings += trtllm_slots.fixed_slot_settings(model)
                notes += trtllm_slots.fixed_slot_notes(model)
                settings += trtllm_features.feature_spec_settings(model)  # Whisper: feature mode
                settings += trtllm_features.mm_input_settings(model)  # a vision tower's inputs
                settings += trtllm_a2a.token_settings(model)  # MoE all-to-all token bytes
        if engine is Engine.SGLANG:  # its vision-encoder graphs are planned apart (graphfit vit)
            notes += sglang_vit.environment_notes(environ, model)
        draft = reader.draft_model(parsed.values)
        if draft:
            method = next((s.value for s in reversed(settings) if s.field == "spec_method"),
                          None) if engine is Engine.VLLM else None
            found, more = model_config.draft_settings(
                draft, "draft model", method, sglang=engine is Engine.SGLANG)
            if engine is Engine.SGLANG and model and str(parsed.values.get(
                    "speculative_algorithm")).upper() != "NGRAM":  # at the target's length
                given = parsed.values.get("context_length") or model_config.sglang_length(model)
                with target(engine, draft, parsed.values):  # the draft's config gets them too
                    sglang_context_length.check_draft(  # (configs/model_config.py:962)
                        given, model_config.sglang_length(draft), environ)
                    notes += model_config.ask_draft_length(draft)  # unknown: not checked
            settings += found
            notes += more
    return PastedLine(engine, label, entry, dict(parsed.values), tuple(parsed.spellings),
                      model, environ, tuple(settings), tuple(notes))


def target(engine: Engine, model: str | None, values: Mapping[str, Any]
            ) -> contextlib.AbstractContextManager[None]:
    """SGLang applies `--json-model-override-args` to the target's config before any hook
    reads it (graphfit.inputs.target_overrides): so do the readers of this line."""
    if engine is not Engine.SGLANG:
        return contextlib.nullcontext()
    return target_overrides.applied(model_config.config_path(model) if model else None,
                                    values.get("json_model_override_args"))


def refusal(engine: Engine, label: str, argv: Sequence[str], reason: str) -> str:
    """The engine's refusal as one line: an old release's spelling gets its new one first
    (graphfit.inputs.renamed); the engine's own words, which echo the line, are cut so that
    the advice always fits MAX_ERROR_CHARS."""
    old = renamed.old_flag(engine, argv)
    head = f"{old.says()}; {label} refuses it" if old else f"{label} refuses this line"
    return fitted(f"{head}: ", reason)


def default_notes(line: PastedLine, origins: Mapping[str, str],
                  values: Mapping[str, Any]) -> list[str]:
    """One note for the engine defaults actually used (no explicit value won)."""
    reader = reader_of(line.engine)
    if reader.default_origin is None or reader.default_note is None:
        return []
    used = [name for name, origin in origins.items() if origin == reader.default_origin]
    return [reader.default_note(used, values)] if used else []
