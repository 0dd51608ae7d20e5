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
unstripped as SGLang's. The snapshot holds each choice list sorted, so the message lists
them in that order, which may differ from SGLang's; the refusal and its words up to the list
are SGLang's. A boolean or a list is not a scalar there (SGLang adds a bare flag or several
values): left to the key's own reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from graphfit.inputs import flagtable
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, brief, fitted

PARSER = "server"
ONE = "one"  # the one-action parser's name in its table
OWN_ORDER = frozenset({"attention_backend", "dtype"})  # checked in SGLang's order (s46f, s45r)


@cache
def choice_actions() -> Mapping[str, dict[str, Any]]:
    """The snapshot's store actions with choices, by dest."""
    return {spec["dest"]: spec for spec in flagtable.load("sglang").actions(PARSER)
            if spec.get("choices") and spec.get("action") == "store" and spec.get("nargs") is None
            and spec["dest"] not in OWN_ORDER}


@cache
def _parser(dest: str) -> flagtable.Parser:
    table = flagtable.load("sglang")
    one = flagtable.Table(table.engine, table.version, {
        **table.data, "parsers": {ONE: {"prog": table.prog(PARSER),
                                        "actions": [choice_actions()[dest]]}}})
    parser = flagtable.Parser(prog=one.prog(ONE))
    flagtable.add_actions(parser, one, ONE)
    return parser


def _scalar(value: object) -> str | None:
    """The argument SGLang's merger makes of a scalar (None for a bool, list or dict)."""
    if isinstance(value, (bool, list, dict)) or value is None:
        return None
    return value if isinstance(value, str) else str(value)


def check(data: Mapping[Any, Any], name: str) -> None:
    """Refuse the first key whose value SGLang's parser refuses (module docstring)."""
    actions = choice_actions()
    for key, value in data.items():
        dest = normalize_key(key) if isinstance(key, str) else ""
        text = _scalar(value)
        if dest not in actions or text is None:
            continue
        option = actions[dest]["options"][0]
        try:
            flagtable.parse(_parser(dest), [option, text])
        except flagtable.Refused as exc:
            head = f"{brief(name)}: {brief(key)}: SGLang 0.5.23 refuses it: "
            raise ConfigError(fitted(head, str(exc))) from None


__all__ = ["check", "choice_actions"]
