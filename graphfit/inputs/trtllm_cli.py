"""`trtllm-serve MODEL [options]` as TensorRT-LLM's click command reads it.

The options are data (flags/trtllm.json, from commands/serve.py): exact names (click does no
prefix matching), `--opt value` or `--opt=value`, flags without a value, numbers and choices
checked; the first bare word is the model, a second one is an error. `--extra_llm_api_options
FILE` (or `--config FILE`) names the YAML of LLM API options; that serve.py merges it over its
flags (`update_llm_args_with_extra_dict(llm_args, yaml)`), so on a key both set the YAML wins
(graphfit.inputs.commandline applies it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from graphfit.inputs.flagtable import FLAGS, Parsed, Refused


@cache
def table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FLAGS / "trtllm.json").read_text())
    return data


def parse(argv: Sequence[str]) -> tuple[Parsed, str, list[str]]:
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
