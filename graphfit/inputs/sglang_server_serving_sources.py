"""`check_server_args`' serving flags (graphfit.inputs.sglang_server_serving, issue 23 s68b)
read from graphfit's own config file and from a live ServerArgs (issue 23 s68h), so both
refuse what a pasted line with the same flags refuses.

s68b read these flags from the pasted line alone. SGLang reads them wherever they come from:
`check_server_args` (arg_groups/validation_hook.py:165-169, 273-378) looks at the record's
fields, whether argparse filled them from a line or a `--config` YAML
(utils/server_args_config_parser.py:164-181, 208-210: the merger turns each key into flags)
or a Python caller built the ServerArgs itself (`sglang.Engine(**kwargs)`, entrypoints/
engine.py:278-297, whose check runs at :1165). Resolution leaves these fields as given: none
of them is written by a hook before the check.

* Config file (`file`): the file's serving keys become the flags SGLang's merger writes and
  go through the same actions of graphfit's snapshot of SGLang's parser (graphfit.inputs.
  flagtable), so a value argparse refuses is refused with argparse's words, and the typed
  values meet the pasted line's rules. Read only where a key other than `port` (which vLLM's
  files spell alike) is given, or where the file is known to be SGLang's (`engine: sglang`, or
  beside a pasted SGLang line): there `port` alone is SGLang's too, so `port: null` meets
  argparse's `invalid int value: 'None'` (the merger writes `str(None)`, :180-181,
  214-215; issue 23 s70g).
* Live ServerArgs (`live`): the record's fields as they are (a ServerArgs SGLang already
  checked never holds a refused combination, so nothing is added for it). A Python caller's
  wrongly typed field (a string for a number) stops SGLang's check with a TypeError
  (`cfg.tokenizer_worker_num > 0`, :273); the rules make SGLang's own comparisons, so the
  same TypeError's words are the refusal, at its slot (issue 23 s69j). An explicit None
  is such a value (`None > 0`), told apart from an unset pasted flag, which arrives as None
  too, by the record holding the field (issue 23 s69v).

`--pp-size` from either source reaches the planner's pipeline check as on a pasted line, so
`--min-free-slots-delay` under PP is refused from both (:165-169). The keys read here are left
out of the file's "not modelled, ignored" note (`read`; `port`, `schedule_policy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from graphfit.inputs import flagtable, sglang_server_serving
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_file_choices import merged
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, brief, fitted

PARSER = "server"
SERVING = "serving"  # the parser of the serving actions alone, in its own table
FIELD = "server_flag_refusals"
# every flag the serving rules read (graphfit.inputs.sglang_server_serving)
KEYS = ("min_free_slots_delay", "tokenizer_worker_num", "detokenizer_worker_num",
        "mm_processor_worker_num", "mm_io_worker_num", "prompt_tokens_buckets",
        "generation_tokens_buckets", "enable_priority_scheduling", "schedule_policy",
        "retraction_policy", "schedule_conservativeness",
        "tokenizer_metrics_custom_labels_header", "tokenizer_metrics_allowed_custom_labels",
        "export_metrics_to_file", "export_metrics_to_file_dir", "smg_grpc_mode", "grpc_mode",
        "port", "grpc_port", "gc_threshold", "kv_canary_sweep_interval", "kv_canary")
SHARED = frozenset({"port"})  # spelled alike by vLLM's files: not enough to read a file


@cache
def _actions() -> dict[str, dict[str, Any]]:
    """The snapshot's actions of KEYS, by dest."""
    return {spec["dest"]: spec for spec in flagtable.load("sglang").actions(PARSER)
            if spec["dest"] in KEYS}


@cache
def _parser() -> flagtable.Parser:
    table = flagtable.load("sglang")
    own = flagtable.Table(table.engine, table.version, {
        **table.data, "parsers": {SERVING: {"prog": table.prog(PARSER),
                                            "actions": list(_actions().values())}}})
    parser = flagtable.Parser(prog=own.prog(SERVING))
    flagtable.add_actions(parser, own, SERVING)
    return parser


def _argv(keys: Mapping[str, Any]) -> list[str]:
    """The flags SGLang's merger writes for the file's serving keys (:164-181): a boolean on
    a store_true flag is the flag or nothing, an empty list nothing, the rest as
    sglang_file_choices.merged writes them."""
    out: list[str] = []
    for key in KEYS:
        if key not in keys:
            continue
        spec, value = _actions()[key], keys[key]
        option = str(spec["options"][0])
        if isinstance(value, bool) and spec.get("action") == "store_true":
            out += [option] if value else []
            continue
        items = merged(value)
        out += [option, *items] if items else []
    return out


def _setting(values: Mapping[str, Any], origin: str) -> list[Setting]:
    found = sglang_server_serving.refusals(values)
    return [Setting(FIELD, found, origin, FILE)] if found else []


def read(data: Mapping[Any, Any], *, sglang: bool = False) -> frozenset[str]:
    """The file's keys (normalized) these rules read: none where only SHARED ones are given,
    unless the file is known to be SGLang's (`sglang`: then `port` alone is SGLang's `--port`,
    issue 23 s70g). A config file's "not modelled, ignored" note leaves them out (`port`,
    `schedule_policy` are in sglang.IGNORED; issue 23 s69j)."""
    given = {normalize_key(k) for k in data if isinstance(k, str)} & set(KEYS)
    return frozenset(given) if given - SHARED or sglang else frozenset()


def file(data: Mapping[Any, Any], name: str, *, sglang: bool = False) -> list[Setting]:
    """The `server_flag_refusals` of graphfit's config file (none where no slot refuses);
    ConfigError with argparse's words where SGLang's parser refuses a serving key's value.
    `sglang`: the file is known to be SGLang's (`read`)."""
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    if not read(data, sglang=sglang):
        return []
    try:
        parsed = flagtable.parse(_parser(), _argv(keys))
    except flagtable.Refused as exc:
        raise ConfigError(fitted(f"{brief(name)}: SGLang 0.5.23 refuses it: ",
                                 str(exc))) from None
    return _setting(parsed.values, f"{brief(name)}: serving keys")


def _holds(server_args: Any, key: str) -> bool:
    """Whether the record has the field at all (a ServerArgs has every one; a mapping or a
    stand-in object may lack some)."""
    if isinstance(server_args, Mapping):
        return key in server_args
    return hasattr(server_args, key)


def live(server_args: Any) -> dict[str, Any]:
    """`server_flag_refusals` of a live ServerArgs' fields (empty where no slot refuses)."""
    from graphfit.inputs.sglang_live_post_capture import field_value

    # the fields as the record holds them, an explicit None included (SGLang's check compares
    # it: `None > 0` raises its TypeError); a field the record lacks takes the default (s69v)
    values = {key: field_value(server_args, key) for key in KEYS if _holds(server_args, key)}
    found = sglang_server_serving.refusals(values, as_given=True)
    return {FIELD: found} if found else {}


__all__ = ["KEYS", "file", "live", "read"]
