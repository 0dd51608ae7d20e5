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

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs import sglang as sglang_args
from graphfit.inputs import trtllm as trtllm_args
from graphfit.inputs import vllm as vllm_args
from graphfit.inputs.flagtable import Parsed, Refused
from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError

_SHELL_STOP = frozenset({"|", "||", "&&", ";", "&", "2>&1", "1>&2"})
_LAUNCHERS = frozenset({"nohup", "exec", "time", "env", "sudo"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
VLLM_MODULES = {"vllm.entrypoints.openai.api_server": "api_server",
                "vllm.entrypoints.launchers.api_server.entry": "api_server"}
KNOWN = ("vllm serve MODEL ..., python -m vllm.entrypoints.openai.api_server ..., "
         "python -m sglang.launch_server ..., sglang serve ..., trtllm-serve MODEL ...")

# Engine defaults a line leaves open, as weak settings (any explicit value wins). vLLM 0.33
# `vllm serve` on an 80 GB Hopper-class GPU (engine/arg_utils.py:2983-2996: >= 70 GiB and not
# an A100; 256 / 2048 on smaller GPUs), doubled by --performance-mode throughput (3171-3176).
VLLM_SERVE_DEFAULTS = {"max_num_seqs": 1024, "max_num_batched_tokens": 8192}
VLLM_DEFAULT_ORIGIN = "vLLM 0.33's default for `vllm serve` on an 80 GB GPU"
VLLM_SMALL_GPU_DEFAULTS = {"max_num_seqs": 256, "max_num_batched_tokens": 2048}
# TensorRT-LLM's LlmArgs defaults (max_batch_size 2048, max_num_tokens 8192).
TRTLLM_DEFAULT_ORIGIN = "TensorRT-LLM's default"


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
    config_file: Path | None = None  # TensorRT-LLM's --extra_llm_api_options YAML

    @property
    def defaults(self) -> frozenset[str]:
        """Origins of the engine defaults this line relies on (weak settings)."""
        return frozenset(s.origin for s in self.settings
                         if s.weak and s.origin in (VLLM_DEFAULT_ORIGIN, TRTLLM_DEFAULT_ORIGIN))


def shell_words(words: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """(environment assignments, the command's words) as a shell would run the line."""
    if words and any(c.isspace() for c in words[0]):  # pasted as one quoted string
        text = words[0].replace("\\\r\n", " ").replace("\\\n", " ")
        try:
            words = [*shlex.split(text, comments=True), *words[1:]]
        except ValueError as exc:
            raise ConfigError(f"pasted command: {exc}") from None
    out: list[str] = []
    for word in words:
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
    """(engine, entry point, argv as the engine's parser gets it)."""
    if not words:
        raise ConfigError(f"pasted command: empty (expected one of: {KNOWN})")
    prog = Path(words[0]).name
    rest = list(words[1:])
    if prog.startswith("python") and rest[:1] == ["-m"] and len(rest) > 1:
        module, argv = rest[1], rest[2:]
        if module in VLLM_MODULES:
            return Engine.VLLM, VLLM_MODULES[module], argv
        if module == "vllm.entrypoints.cli.main" and argv[:1] == ["serve"]:
            return Engine.VLLM, "serve", argv
        if module == "sglang.launch_server":
            return Engine.SGLANG, "launch_server", argv
        if module == "sglang.cli.main" and argv[:1] == ["serve"]:
            return Engine.SGLANG, "serve", argv[1:]
    if prog == "vllm" and rest[:1] == ["serve"]:
        return Engine.VLLM, "serve", rest
    if prog == "sglang" and rest[:1] == ["serve"]:
        return Engine.SGLANG, "serve", rest[1:]
    if prog == "trtllm-serve":
        return Engine.TRTLLM, "trtllm-serve", rest
    shown = " ".join(words[:3])
    raise ConfigError(f"pasted command: {shown!r} is not a serving command graphfit reads "
                      f"(expected one of: {KNOWN})")


def _label(engine: Engine, entry: str) -> str:
    from graphfit.inputs import flagtable, trtllm_cli

    if engine is Engine.TRTLLM:
        return str(trtllm_cli.table()["version"])
    table = flagtable.load(engine.value)
    name = {"vllm": "vLLM", "sglang": "SGLang"}[engine.value]
    shown = {"serve": f"{engine.value} serve", "api_server": "api_server",
             "launch_server": "sglang.launch_server"}[entry]
    return f"{name} {table.version} ({shown})"


def _file_keys(engine: Engine) -> Mapping[str, Handler]:
    return {Engine.VLLM: vllm_args.FILE_KEYS, Engine.SGLANG: sglang_args.FILE_KEYS,
            Engine.TRTLLM: trtllm_args.FILE_KEYS}[engine]


# keys the readers consume themselves (never "not modelled")
_CONSUMED = {Engine.VLLM: frozenset({"model", "model_tag"}),
             Engine.SGLANG: frozenset({"model_path"}),
             Engine.TRTLLM: frozenset({"extra_llm_api_options"})}


def _map(engine: Engine, parsed: Parsed, label: str) -> tuple[list[Setting], list[str]]:
    """FILE_KEYS handlers for the modelled keys; one note listing the rest as typed."""
    keys = _file_keys(engine)
    settings: list[Setting] = [Setting("engine", engine, label)]
    notes: list[str] = []
    ignored: list[str] = []
    for dest, value in parsed.values.items():
        spelled = parsed.spelled(dest) or [f"--{dest.replace('_', '-')}"]
        handler = keys.get(dest)
        if len(spelled) > 1 and handler is not None:  # earlier values are lost
            notes.append(f"{spelled[-1]} is given {len(spelled)} times ({', '.join(spelled)}"
                         f"): the engine keeps only the last")
        if handler is not None:
            found, more = handler(spelled[-1], value, COMMAND_LINE)
            settings += found
            notes += more
        elif dest == "config" and engine is not Engine.TRTLLM:
            notes.append(f"{spelled[-1]}={value}: the engine reads a config file only from "
                         "`--config FILE` (two words); this one is ignored, as the engine "
                         "ignores it")
        elif dest not in _CONSUMED[engine]:
            ignored += spelled
    if ignored:
        notes.insert(0, f"not modelled, ignored: {', '.join(dict.fromkeys(ignored))}")
    return settings, notes


def _vllm_defaults(values: Mapping[str, Any]) -> list[Setting]:
    factor = 2 if str(values.get("performance_mode", "")).lower() == "throughput" else 1
    return [Setting(name, value * factor, VLLM_DEFAULT_ORIGIN, COMMAND_LINE, weak=True)
            for name, value in VLLM_SERVE_DEFAULTS.items() if values.get(name) is None]


def _trtllm_defaults() -> list[Setting]:
    from graphfit.inputs import trtllm_cli

    fields = {"max_batch_size": "max_num_seqs", "max_num_tokens": "max_num_batched_tokens"}
    return [Setting(fields[k], v, TRTLLM_DEFAULT_ORIGIN, COMMAND_LINE, weak=True)
            for k, v in trtllm_cli.table()["defaults"].items()]


def _yaml_over_flags(settings: list[Setting], path: Path) -> tuple[list[Setting], list[str]]:
    """trtllm-serve merges its YAML over its flags: the YAML's settings join the line and,
    on a field both set, replace the flag's (a note says so)."""
    from graphfit.inputs.config_file import file_settings

    found, notes = file_settings(path)
    from_yaml = [Setting(s.field, s.value, s.origin, COMMAND_LINE, s.weak) for s in found]
    fields = {s.field for s in from_yaml if s.field != "engine"}
    overridden = sorted({s.origin for s in settings if s.field in fields and not s.weak})
    if overridden:
        notes.append(f"{path.name} overrides {', '.join(overridden)} (trtllm-serve merges "
                     "the YAML over its flags)")
    kept = [s for s in settings if s.field not in fields or s.field == "engine"]
    return kept + from_yaml, notes


def _draft_model(engine: Engine, values: Mapping[str, Any]) -> str | None:
    if engine is Engine.VLLM:
        spec = values.get("speculative_config")
        model = spec.get("model") if isinstance(spec, dict) else None
        return model if isinstance(model, str) else None
    if engine is Engine.SGLANG:
        model = values.get("speculative_draft_model_path")
        return model if isinstance(model, str) else None
    return None


def read(words: Sequence[str]) -> PastedLine:
    """Read a pasted serving command (see the module docstring)."""
    environ, command = shell_words(words)
    engine, entry, argv = identify(command)
    label = _label(engine, entry)
    try:
        if engine is Engine.VLLM:
            from graphfit.inputs import vllm_cli

            parsed, model, notes = vllm_cli.parse(argv, entry)
        elif engine is Engine.SGLANG:
            from graphfit.inputs import sglang_cli

            parsed, model, notes = sglang_cli.parse(argv, entry)
        else:
            from graphfit.inputs import trtllm_cli

            parsed, model, notes = trtllm_cli.parse(argv)
    except Refused as exc:
        raise ConfigError(f"{label} refuses this line: {exc}") from None
    settings, more = _map(engine, parsed, label)
    notes = [*notes, *more]
    if engine is Engine.VLLM:
        from graphfit.inputs import vllm_cli

        settings, more = vllm_cli.eager_overrides(parsed.values, settings)
        notes += more
        settings += _vllm_defaults(parsed.values)
    elif engine is Engine.TRTLLM:
        settings += _trtllm_defaults()
    config_file = None
    if engine is Engine.TRTLLM and parsed.values.get("extra_llm_api_options"):
        config_file = Path(str(parsed.values["extra_llm_api_options"]))
        settings, more = _yaml_over_flags(settings, config_file)
        notes += more
    if model:
        found, more = model_config.model_settings(model, "model")
        settings += found
        notes += more
    draft = _draft_model(engine, parsed.values)
    if draft:
        found, more = model_config.draft_settings(draft, "draft model")
        settings += found
        notes += more
    return PastedLine(engine, label, entry, dict(parsed.values), tuple(parsed.spellings),
                      model, environ, tuple(settings), tuple(notes), config_file)


def default_notes(line: PastedLine, origins: Mapping[str, str],
                  values: Mapping[str, Any]) -> list[str]:
    """One note for the engine defaults actually used (no explicit value won)."""
    used = [name for name, origin in origins.items() if origin in line.defaults]
    if not used:
        return []
    shown = ", ".join(f"{name}={values[name]}" for name in used)
    origin = origins[used[0]]
    if origin == VLLM_DEFAULT_ORIGIN:
        smaller = ", ".join(f"{n} {VLLM_SMALL_GPU_DEFAULTS[n]}" for n in used)
        return [f"{shown}: not on the line, so {origin} is used ({smaller} on A100s and "
                "GPUs under 70 GiB); put it on the line to be sure"]
    return [f"{shown}: not on the line, so {origin} is used"]
