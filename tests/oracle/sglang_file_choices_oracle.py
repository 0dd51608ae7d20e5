"""SGLang 0.5.23's choice-valued flags and the two sides of a config-file key outside
them (issue 23 s47l), shared by tests/oracle/test_sglang_file_choices_oracle.py and
tests/oracle/measure_sglang_file_choices.py (which also runs main's graphfit, so nothing
here imports graphfit.inputs.sglang_file_choices)."""

from __future__ import annotations

import argparse
import json
import random
from functools import cache
from typing import Any

from tests.oracle import sglang_draft_shape as ds
from tests.oracle import sglang_oracle as so

OWN_ORDER = frozenset({"attention_backend", "dtype"})  # s46f's and s45r's checks, SGLang's order


@cache
def sglang_actions() -> dict[str, argparse.Action]:
    """SGLang's own store actions with choices, by dest (attention_backend: s46f's)."""
    from tests.oracle import sglang_args_oracle as sa

    sa.bootstrap()
    with sa.sglang_env():
        from sglang.srt.server_args import ServerArgs

        parser = argparse.ArgumentParser(prog="sglang serve", exit_on_error=False)
        ServerArgs.add_cli_args(parser)
    _PARSER.append(parser)
    return {a.dest: a for a in parser._actions
            if a.choices is not None and a.option_strings and a.nargs is None
            and type(a).__name__ in ("_StoreAction", "DeprecatedAliasStoreAction")
            and a.dest not in OWN_ORDER}


_PARSER: list[argparse.ArgumentParser] = []


def sglang_refuses(dest: str, text: str) -> bool:
    action = sglang_actions()[dest]
    try:
        _PARSER[0].parse_args(["--model-path", "m", action.option_strings[0], text])
    except argparse.ArgumentError:
        return True
    return False


_file = ds.named_file  # a --config file named by its content


def sglang_says(dest: str, value: object) -> str | None:
    yaml = _file(".yaml", f"{dest.replace('_', '-')}: {json.dumps(value)}\n")
    got = so.resolve(("--config", yaml))
    return got.text if isinstance(got, so.Rejected) and got.kind == "argparse" else None


def graphfit_says(dest: str, value: object) -> str:
    return graphfit_file_says({dest: value})


def graphfit_file_says(data: dict[str, object]) -> str:
    """`graphfit plan --config` on an `engine: sglang` file of `data` (the last error line,
    else the exit status)."""
    from tests.helpers import run_cli

    body = json.dumps({"engine": "sglang", **data})  # the file order: SGLang reads it so
    code, _out, text = run_cli(["plan", "--gpu-memory-gb", "80", "--config",
                               _file(".json", body), "--", "python", "-m",
                               "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir)])
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("error:")]
    return lines[-1] if code == 2 and lines else f"exit {code}"


class _Refused(Exception):
    """SGLang's parser's error (parse_args calls `error` for left-over arguments)."""


@cache
def sglang_merger_parser() -> tuple[Any, argparse.ArgumentParser]:
    """SGLang's own `--config` merger and a parser as `prepare_server_args` builds it
    (server_args.py:679-696), whose `error` raises instead of exiting (issue 23 s50l)."""
    from tests.oracle import sglang_args_oracle as sa

    sa.bootstrap()
    with sa.sglang_env():
        from sglang.srt.server_args import ServerArgs
        from sglang.srt.utils.server_args_config_parser import ConfigArgumentMerger

        parser = argparse.ArgumentParser(prog="sglang serve", exit_on_error=False)
        ServerArgs.add_cli_args(parser)

        def error(message: str) -> None:
            raise _Refused(message)

        parser.error = error  # type: ignore[method-assign]
        return ConfigArgumentMerger(parser), parser


def sglang_file_verdict(data: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """SGLang's word on a `--config` mapping (its merger's argv, then its parser): the
    error's text (None when it parses) and the parsed values by dest."""
    merger, parser = sglang_merger_parser()
    argv = merger._convert_config_to_args(data)
    try:
        parsed = vars(parser.parse_args(["--model-path", "m", *argv]))
    except (argparse.ArgumentError, _Refused) as exc:
        return str(exc), {}
    return None, parsed


def _every_choice_action() -> dict[str, argparse.Action]:
    sglang_actions()
    return {a.dest: a for a in _PARSER[0]._actions if a.choices is not None and a.option_strings}


def sglang_own() -> dict[str, argparse.Action]:
    """The choice actions graphfit checks beyond `sglang_actions`: attention_backend and dtype
    (s46f's, s45r's order) and `--lora-target-modules` (nargs="*")."""
    every = _every_choice_action()
    return {d: every[d] for d in (*OWN_ORDER, "lora_target_modules")}


def sglang_action_dest(key: str) -> str:
    """The dest of the choice action spelled `key` (dashes, its option's spelling)."""
    every = _every_choice_action()
    return next(d for d, a in every.items() if a.option_strings[0] == f"--{key}")


def sglang_default(dest: str) -> object:
    return _every_choice_action()[dest].default


# issue 23 s50l: drawn config-file mappings of choice keys
def _value(choices: list[str], rng: random.Random) -> object:
    inside, outside = rng.choice(choices), rng.choice(["x", "FP8", "auto ", "7", ""])
    kind = rng.randrange(9)
    if kind < 2:
        return rng.choice([inside, outside])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return {"a": rng.choice([1, inside])}
    items: list[object] = [rng.choice([inside, inside, outside, 1, True, [inside]])
                           for _ in range(rng.randrange(4))]
    return items


def file_draws(count: int, seed: int) -> list[dict[str, object]]:
    """Mappings of 1-3 choice keys (SGLang's spelling, dashes) with drawn values; a string of
    attention_backend / dtype is redrawn (their own checks read it, with their own oracles:
    test_sglang_file_attention_choice_oracle.py, test_sglang_file_dtype_oracle.py)."""
    rng = random.Random(seed)
    actions = {**sglang_actions(), **{d: a for d, a in sglang_own().items()}}
    names = sorted(actions)
    draws = []
    for _ in range(count):
        data: dict[str, object] = {}
        for dest in rng.sample(names, rng.randint(1, 3)):
            value = _value(sorted(map(str, actions[dest].choices)), rng)
            while dest in ("attention_backend", "dtype") and isinstance(value, str):
                value = _value(sorted(map(str, actions[dest].choices)), rng)
            data[actions[dest].option_strings[0][2:]] = value
        draws.append(data)
    return draws
