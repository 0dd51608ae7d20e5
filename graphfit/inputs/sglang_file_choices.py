"""Choice-valued SGLang keys in a config file read as SGLang's (issue 23 s47l): a value
outside the flag's argparse choices.

SGLang merges its `--config` file into the argument list before parsing: a scalar becomes
`--{key} str(value)` (utils/server_args_config_parser.py:164-181, 208-210), so a value
outside a flag's `choices` is refused by argparse, with argparse's message, before any
server code runs. s46f checked `attention_backend` this way (graphfit.inputs.
sglang_file_choice) and s45r `dtype` (graphfit.inputs.sglang_file_dtype), each in SGLang's
order; this module checks every other key whose flag has
choices in graphfit's snapshot of SGLang's parser (flags/sglang.json, tests/oracle/
flag_tables.py: the per-phase backends, the MoE / EP / DCP backends, the mamba and linear
attention kernels, quantization, kv_cache_dtype, disaggregation, ...), through a parser of
that one action built as the pasted line's (graphfit.inputs.flagtable), case-sensitive and
unstripped as SGLang's. The snapshot holds each choice list in SGLang's order (issue 23
s55l), so the message is SGLang's, list included, bar `--sampling-backend`, whose choices
SGLang builds as a set (server_args.py:356-364): kept sorted, as that order varies.

Issue 23 s50l: the other values, as the merger writes them (`_convert_config_to_args`,
server_args_config_parser.py:164-181): a boolean on these flags (none is store_true) becomes
`--{key} true|false` (:174-175, 185-200), a dict `--{key} <json.dumps>` (:178-179), None
`--{key} None` (:180-181, 208-210), a list `--{key} item ...` and nothing when empty
(:176-177, 202-206). So argparse checks
a list's items against the choices: all of them for `--lora-target-modules` (nargs="*",
arg_groups/fields/lora.py:46-53), only the first for a one-value flag, whose other items are
left over and refused as "unrecognized arguments" once the whole line is parsed, after every
flag's choices (argparse's parse_args). `attention_backend` and `dtype` values other than a
string are checked here too, in file order, over their own modules' choice lists in SGLang's
order (a string stays with their own checks). A one-value flag's list
of one plain item, which SGLang reads as that item, is handed to the key's reader as the item;
an empty list, which SGLang drops, is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from graphfit.inputs import flagtable
from graphfit.inputs.sglang_file_choice import ATTENTION_BACKENDS
from graphfit.inputs.sglang_file_dtype import CHOICES as DTYPES
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, brief, fitted

PARSER = "server"
ONE = "one"  # the one-action parser's name in its table
OWN_ORDER = frozenset({"attention_backend", "dtype"})  # checked in SGLang's order (s46f, s45r)
# those two flags' choices in SGLang's order (arg_groups/choices.py:69-99, fields/model.py:173)
OWN_CHOICES = {"attention_backend": ("--attention-backend", ATTENTION_BACKENDS),
               "dtype": ("--dtype", DTYPES)}
MANY = "lora_target_modules"  # the one choice flag taking several values (nargs="*")


@cache
def choice_actions() -> Mapping[str, dict[str, Any]]:
    """The snapshot's store actions with choices, by dest."""
    return {spec["dest"]: spec for spec in flagtable.load("sglang").actions(PARSER)
            if spec.get("choices") and spec.get("action") == "store" and spec.get("nargs") is None
            and spec["dest"] not in OWN_ORDER}


@cache
def many_action() -> dict[str, Any]:
    """`--lora-target-modules`'s snapshot action (nargs="*", with choices)."""
    spec, = (spec for spec in flagtable.load("sglang").actions(PARSER) if spec["dest"] == MANY)
    return spec


@cache
def _parser(dest: str) -> flagtable.Parser:
    if dest in OWN_CHOICES:  # argparse over SGLang's order (its message lists them so)
        option, choices = OWN_CHOICES[dest]
        own = flagtable.Parser(prog=flagtable.load("sglang").prog(PARSER))
        own.add_argument(option, choices=choices)
        return own
    spec = many_action() if dest == MANY else choice_actions()[dest]
    table = flagtable.load("sglang")
    one = flagtable.Table(table.engine, table.version, {
        **table.data, "parsers": {ONE: {"prog": table.prog(PARSER),
                                        "actions": [spec]}}})
    parser = flagtable.Parser(prog=one.prog(ONE))
    flagtable.add_actions(parser, one, ONE)
    return parser


def merged(value: object) -> list[str]:
    """The values SGLang's merger writes after the flag (module docstring)."""
    if isinstance(value, bool):
        return [str(value).lower()]
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, dict):
        return [json.dumps(value)]
    return [value if isinstance(value, str) else str(value)]


def _option(dest: str) -> str:
    if dest in OWN_CHOICES:
        return OWN_CHOICES[dest][0]
    return str((many_action() if dest == MANY else choice_actions()[dest])["options"][0])


def _plain(item: object) -> bool:
    return isinstance(item, (str, int, float)) and not isinstance(item, bool)


def check(data: Mapping[Any, Any], name: str) -> dict[Any, Any]:
    """Refuse the first key whose value SGLang's parser refuses, then a one-value flag's
    left-over list items; return the data with one-item lists unwrapped and empty ones
    dropped on those flags (module docstring)."""
    keys = {*choice_actions(), *OWN_CHOICES, MANY}
    spelled = {_option(dest)[2:].replace("-", "_"): dest for dest in keys}  # any long spelling
    out = dict(data)
    extra: list[str] = []
    first = ""
    for key, value in data.items():
        dest = normalize_key(key) if isinstance(key, str) else ""
        dest = spelled.get(dest, dest)
        if dest not in keys or (dest in OWN_CHOICES and isinstance(value, str)):
            continue  # a string of attention_backend / dtype: their own checks (s46f, s45r)
        values = merged(value)
        if not values:  # an empty list: SGLang writes nothing
            out.pop(key)
            continue
        if dest != MANY:
            values, more = values[:1], values[1:]
            extra += more
            first = first or (key if more else "")
            if isinstance(value, list) and len(value) == 1 and _plain(value[0]):
                out[key] = value[0]
        try:
            flagtable.parse(_parser(dest), [_option(dest), *values])
        except flagtable.Refused as exc:
            head = f"{brief(name)}: {brief(key)}: SGLang 0.5.23 refuses it: "
            raise ConfigError(fitted(head, str(exc))) from None
    if extra:  # argparse's parse_args, after every flag was read
        head = f"{brief(name)}: {brief(first)}: SGLang 0.5.23 refuses it: "
        raise ConfigError(fitted(head, "unrecognized arguments: " + " ".join(extra)))
    return out


__all__ = ["check", "choice_actions", "many_action", "merged"]
