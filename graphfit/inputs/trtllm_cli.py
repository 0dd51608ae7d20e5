"""`trtllm-serve MODEL [options]` as TensorRT-LLM's click command reads it.

The options are data (flags/trtllm.json, from the `serve` command's click options,
tensorrt_llm/commands/serve.py@00209af149:388-591): exact names (click does no prefix
matching), `--opt value` or `--opt=value`, flags without a value, numbers and choices checked;
the first bare word is the model, a second one is an error. `--extra_llm_api_options FILE` (or
`--config FILE`) names the YAML of LLM API options; that serve.py merges it over its flags
(`update_llm_args_with_extra_dict(llm_args, yaml)`,
tensorrt_llm/commands/serve.py@00209af149:650), so on a key both set the YAML wins
(graphfit.inputs.commandline applies it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from graphfit.inputs import trtllm as trtllm_args
from graphfit.inputs.flagtable import FLAGS, LineReader, Parsed, Refused
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.enums import Engine


@cache
def table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FLAGS / "trtllm.json").read_text())
    return data


def parse(argv: Sequence[str], entry: str = "trtllm-serve") -> tuple[Parsed, str, list[str]]:
    """(the options given by llm_args key, the model, notes) for the argv after trtllm-serve."""
    options = table()["options"]
    values: dict[str, Any] = {}
    spellings: list[tuple[str, str]] = []
    model: str | None = None
    items = list(argv)
    if items[:1] == ["serve"]:  # `trtllm-serve serve MODEL ...` (the click group's command)
        items = items[1:]
    i = 0
    while i < len(items):
        token = items[i]
        if not token.startswith("-"):
            if model is not None:
                raise Refused(f"Got unexpected extra argument ({token})")
            model, i = token, i + 1
            continue
        name, eq, inline = token.partition("=")
        spec = options.get(name)
        if spec is None:
            raise Refused(f"No such option: {name}")
        if spec["value"] == "help":
            raise Refused(f"{name} asks trtllm-serve for its help, not for a server")
        if spec["value"] is None:
            if eq:
                raise Refused(f"Option '{name}' does not take a value.")
            value: Any = True
        elif eq:
            value = inline
        elif i + 1 < len(items):
            i += 1
            value = items[i]
        else:
            raise Refused(f"Option '{name}' requires an argument.")
        kind = {"int": int, "float": float}.get(spec["value"])
        if kind is not None:
            try:
                value = kind(value)
            except ValueError:
                raise Refused(f"Invalid value for '{name}': {value!r} is not a valid "
                              f"{'integer' if kind is int else 'float'}.") from None
        if "choices" in spec and value not in spec["choices"]:
            raise Refused(f"Invalid value for '{name}': {value!r} is not one of "
                          f"{', '.join(spec['choices'])}.")
        values[spec["key"]] = value
        spellings.append((spec["key"], name))
        i += 1
    if model is None:
        raise Refused("Missing argument 'MODEL'.")
    return Parsed(values, spellings), model, []


DEFAULT_ORIGIN = "TensorRT-LLM's default"  # LlmArgs: max_batch_size 2048, max_num_tokens 8192
_DEFAULT_FIELDS = {"max_batch_size": "max_num_seqs", "max_num_tokens": "max_num_batched_tokens"}


def yaml_over_flags(settings: list[Setting], path: Path) -> tuple[list[Setting], list[str]]:
    """serve.py merges the YAML over its flags: the YAML's settings join the line and, on a
    field both set, replace the flag's (a note says so)."""
    from graphfit.inputs.config_file import file_settings

    found, notes = file_settings(path, trtllm_args.TRTLLM_ONLY_KEYS)
    from_yaml = [Setting(s.field, s.value, s.origin, COMMAND_LINE, s.weak) for s in found]
    fields = {s.field for s in from_yaml if s.field != "engine"}
    overridden = sorted({s.origin for s in settings if s.field in fields and not s.weak})
    if overridden:
        notes.append(f"{path.name} overrides {', '.join(overridden)} (trtllm-serve merges "
                     "the YAML over its flags)")
    kept = [s for s in settings if s.field not in fields or s.field == "engine"]
    return kept + from_yaml, notes


def finish(values: Mapping[str, Any], settings: list[Setting]
           ) -> tuple[list[Setting], list[str]]:
    """LlmArgs defaults for what the line leaves open, then the YAML over the flags."""
    settings = settings + [Setting(_DEFAULT_FIELDS[k], v, DEFAULT_ORIGIN, COMMAND_LINE,
                                   weak=True)
                           for k, v in table()["defaults"].items()]
    if not values.get("extra_llm_api_options"):
        return settings, []
    return yaml_over_flags(settings, Path(str(values["extra_llm_api_options"])))


def default_note(used: list[str], values: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{name}={values[name]}" for name in used)
    return f"{shown}: not on the line, so {DEFAULT_ORIGIN} is used"


def label(entry: str) -> str:
    return str(table()["version"])


READER = LineReader(Engine.TRTLLM, parse, trtllm_args.LINE_KEYS,
                    frozenset({"extra_llm_api_options"}), label, finish, lambda values: None,
                    DEFAULT_ORIGIN, default_note, reads_config_flag=False)
