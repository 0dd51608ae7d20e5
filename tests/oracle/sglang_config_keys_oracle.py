"""SGLang 0.5.23's `--config` YAML on a pasted line, key spelling first (issue 23 s51f): its
merger writes each key as it is spelled (`--{key}`, utils/server_args_config_parser.py:198-210),
so a key spelled with underscores is an unknown flag to argparse, while the store_true and
unsupported checks read the key with dashes made underscores (`:169-173, 195-196`). Drawn
mappings go through SGLang's own merger and parser and through graphfit's pasted-line reader
(graphfit.inputs.sglang_cli), shared by tests/oracle/test_sglang_config_keys_oracle.py and
tests/oracle/measure_sglang_config_keys.py (which also runs main's graphfit)."""

from __future__ import annotations

import argparse
import random
import re
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.oracle import sglang_file_choices_oracle as fc

SKIPPED = frozenset({"help", "config"})


@cache
def _actions() -> tuple[argparse.Action, ...]:
    _merger, parser = fc.sglang_merger_parser()
    return tuple(a for a in parser._actions if a.option_strings and a.dest not in SKIPPED)


def _write(data: object) -> str:
    folder = Path(tempfile.mkdtemp(prefix="s51f-"))
    path = folder / "serve.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def sglang_verdict(data: object) -> tuple[str | None, dict[str, Any]]:
    """SGLang's word on a `--config` file of `data` on `--model-path m --config FILE`
    (prepare_server_args, server_args.py:679-696: the merger, then parse_args): the error's
    text (the merger's ValueError, argparse's message, or an exception's class and text) and
    the parsed values by dest."""
    merger, parser = fc.sglang_merger_parser()
    try:
        argv = merger.merge_config_with_args(["--model-path", "m", "--config", _write(data)])
        parsed = vars(parser.parse_args(argv))
    except (ValueError, argparse.ArgumentError, fc._Refused) as exc:
        return str(exc), {}
    except Exception as exc:  # the merger's own crash (a key that is not a string)
        return f"{type(exc).__name__}: {exc}", {}
    return None, parsed


def graphfit_verdict(data: object) -> tuple[str | None, dict[str, Any]]:
    """graphfit's pasted-line reader on the same line: its refusal's text (None when it
    parses) and the values it read by dest."""
    from graphfit.inputs import sglang_cli
    from graphfit.inputs.flagtable import Refused
    from graphfit.planner.core.errors import ConfigError

    try:
        parsed, _model, _notes = sglang_cli.parse(
            ["--model-path", "m", "--config", _write(data)], "launch_server")
    except (Refused, ConfigError) as exc:
        return str(exc), {}
    return None, parsed.values


def _spelling(action: argparse.Action, rng: random.Random) -> str:
    longs = [o[2:] for o in action.option_strings if o.startswith("--")]
    option = rng.choice(longs)
    kind = rng.randrange(6)
    if kind == 0:
        return option.replace("-", "_")
    if kind == 1 and "-" in option:  # mixed: one dash made an underscore
        at = rng.choice([i for i, c in enumerate(option) if c == "-"])
        return option[:at] + "_" + option[at + 1:]
    if kind == 2:
        return action.dest
    if kind == 3 and len(option) > 4:  # an argparse prefix (abbreviation)
        return option[:rng.randrange(3, len(option))]
    return option


def _value(action: argparse.Action, rng: random.Random) -> object:
    kind = rng.randrange(10)
    if kind == 0:
        return rng.choice([True, False])
    if kind == 1:
        return rng.choice([None, "true", {"a": 1}, []])
    if isinstance(action, argparse._StoreTrueAction) or action.nargs == 0:
        return rng.choice([True, False, True])
    if action.choices is not None:
        pick = rng.choice([str(c) for c in action.choices])
        return [pick] if action.nargs in ("+", "*") else pick
    default = action.default
    if isinstance(default, (bool, int, float, str)) and default not in ("", None):
        return default
    if action.type is int:
        return rng.randrange(1, 64)
    if action.type is float:
        return rng.choice([0.5, 1.0])
    return [rng.choice(["a", "b"])] if action.nargs in ("+", "*") else "x"


def draws(count: int, seed: int) -> list[dict[Any, object]]:
    """Mappings of 1-3 keys of SGLang's flags in drawn spellings (dashes, underscores, one
    dash made an underscore, the dest, a prefix) with drawn values (booleans on store_true
    flags among them), now and then a key that is not a string."""
    rng = random.Random(seed)
    actions = _actions()
    out: list[dict[Any, object]] = []
    for _ in range(count):
        data: dict[Any, object] = {}
        for action in rng.sample(actions, rng.randint(1, 3)):
            data[_spelling(action, rng)] = _value(action, rng)
        if rng.randrange(25) == 0:
            data[rng.choice([7, True, 1.5])] = "x"
        out.append(data)
    return out


_ORDERED = ("ambiguous option: ", "invalid choice: ")
_ARGUMENT = re.compile(r"argument (?P<names>\S+): (?P<rest>.*)", re.DOTALL)


def _words(text: str) -> tuple[str, frozenset[str]]:
    head, _, rest = text.partition(" could match ")
    if not rest:
        head, _, rest = text.partition(" (choose from ")
    return head, frozenset(rest.rstrip(")").split(", "))


# flags whose choice order varies between runs (a set, server_args.py:356-364) or between
# processes (the parser registries, :70-87): the flag table keeps them sorted
# (flag_tables.action_record)
UNORDERED = ("argument --sampling-backend: ", "argument --reasoning-parser: ",
             "argument --tool-call-parser: ")


def agreement(theirs: str | None, ours: str | None) -> str:
    """How graphfit's refusal text compares with SGLang's: "same"; "set order" (the same
    choices of a flag SGLang builds from a set, UNORDERED, in another order); "order" (the
    same options, a flag's spellings or choices listed in another order, which graphfit's
    SGLang table keeps as SGLang's since issue 23 s55l); "json" (both refuse the same flag's
    value as not JSON, graphfit in its strict reader's words, as before s55l); else
    "differ". Only "same" and "set order" are agreement now."""
    if theirs == ours:
        return "same"
    if theirs is not None and ours is not None and theirs.startswith(UNORDERED) \
            and agreement(theirs.replace("argument ", "", 1), ours.replace("argument ", "", 1)) \
            == "order":
        return "set order"
    if theirs is None or ours is None:
        return "differ"
    named = _ARGUMENT.match(theirs), _ARGUMENT.match(ours)
    if named[0] and named[1] and named[0]["names"] != named[1]["names"] \
            and set(named[0]["names"].split("/")) == set(named[1]["names"].split("/")):
        # `argument --tp-size/--tensor-parallel-size:` names the flag's spellings in order
        inner = agreement(named[0]["rest"], named[1]["rest"])
        if inner == "differ" and _not_json(named[0]["rest"], named[1]["rest"]):
            return "json"
        return "order" if inner in ("same", "order") else inner
    if any(w in theirs for w in _ORDERED) and _words(theirs) == _words(ours):
        return "order"
    flag = theirs.split(": ", 1)[0]
    if flag.startswith("argument --") and ours.startswith(flag + ": ") \
            and _not_json(theirs, ours):
        return "json"
    return "differ"


def _not_json(theirs: str, ours: str) -> bool:
    """SGLang's JSON readers' words (argparse's for json.loads, `--cuda-graph-config`'s,
    `json_list_type`'s, utils/common.py:4818-4824) against graphfit's strict reader's."""
    return any(w in theirs for w in ("invalid loads value", "must be JSON",
                                     "Invalid JSON list")) and "malformed JSON" in ours


def values_agree(theirs: dict[str, Any], ours: dict[str, Any]) -> bool:
    """Every value graphfit read equals SGLang's parsed one (or its text)."""
    return all(k in theirs and (theirs[k] == v or str(theirs[k]) == str(v))
               for k, v in ours.items())


def compare(data: object) -> str:
    """One mapping's outcome: "accepted" (both parse it, the same values), a refusal's
    `agreement`, or "differ"."""
    theirs, their_values = sglang_verdict(data)
    ours, our_values = graphfit_verdict(data)
    if theirs is None and ours is None:
        return "accepted" if values_agree(their_values, our_values) else "differ"
    return agreement(theirs, ours)
