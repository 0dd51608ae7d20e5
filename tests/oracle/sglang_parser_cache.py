"""Speed only: SGLang's `sglang serve` parser built once per process, not once per line.

`prepare_server_args` builds a new `argparse.ArgumentParser` and fills it with
`ServerArgs.add_cli_args` on every call (sglang/srt/server_args.py:679-680): ~530 arguments,
about half of resolving one line on CPU. The oracle resolves thousands of lines per process,
so `install` wraps `ServerArgs.add_cli_args`: the first call for a given key runs SGLang's own
`add_cli_args` on a template parser; every call hands the caller's parser an independent copy
of that template (its own actions, groups and option tables; mutable defaults copied, as
`_field_default`'s `default_factory()` gives each build its own list, arg_groups/arg_utils.py:
285-292). SGLang's `prepare_server_args` then runs unchanged: the `--config` merger, parse,
logging, `from_cli_args`.

The key holds everything the parser's construction reads that can change inside a process:

* the caller's parser settings (`prog`, `add_help`, ...); a parser that already holds
  arguments is filled by SGLang's own `add_cli_args`, uncached;
* the `ServerArgs` class itself;
* `envs.SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE` (server_args.py:357-358: adds `token_oracle`
  to `--sampling-backend`'s choices) and `SAMPLING_BACKEND_CHOICES`, copied at server_args.py:
  356 and grown by `register_sampling_backend` (layers/sampler.py:755-759);
* the reasoning and tool-call parser names (server_args.py:70-87: the registries' own lists
  once their modules are imported, else the static name lists) and the KV canary modes
  (server_args.py:90-95, 388-392);
* nothing else: the fields' annotations and their `Arg` metadata are evaluated once, when
  the class is made (`collect_input_fields`, server_args.py:546 -> arg_groups/fields/
  __init__.py:18-52), so `get_type_hints` (arg_utils.py:311) hands every build the same
  objects. A choices list named directly (`choices=LINEAR_ATTN_KERNEL_BACKEND_CHOICES`,
  fields/exec_.py:560) is the module's own list in every build, cached or not, and argparse
  reads `action.choices` when it parses, so a plugin hook extending it (`add_*_choices`,
  arg_groups/choices.py:215-283) reaches both alike (each copy keeps the template's list);
  one written as an expression (`... + ["nv_cutedsl"]`, :567) was copied at import and
  follows neither. Field defaults are the class's own (`msgspec.structs.fields`).

tests/oracle/test_sglang_parser_cache.py checks a cached parse against a fresh one (SGLang's
own `add_cli_args` on a new parser) over fixed and drawn lines, refusals included.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any

# the caller's ArgumentParser settings that shape what add_cli_args builds and how it parses
_SETTINGS = ("prog", "usage", "description", "epilog", "formatter_class", "prefix_chars",
             "fromfile_prefix_chars", "argument_default", "conflict_handler", "add_help",
             "allow_abbrev", "exit_on_error")

_state: dict[str, Any] = {"original": None, "on": True}
_templates: dict[Any, argparse.ArgumentParser] = {}


def install(server_args: Any) -> None:
    """Wrap `server_args.ServerArgs.add_cli_args` (once per process)."""
    cls = server_args.ServerArgs
    if _state["original"] is not None:
        return
    original = cls.add_cli_args
    _state["original"] = original

    def add_cli_args(parser: argparse.ArgumentParser) -> None:
        if not _state["on"] or not _pristine(parser):
            original(parser)
            return
        settings = tuple(getattr(parser, name, None) for name in _SETTINGS)
        key = (settings, *inputs(server_args))
        template = _templates.get(key)
        if template is None:
            template = argparse.ArgumentParser(**dict(zip(_SETTINGS, settings, strict=True)))
            original(template)
            _templates[key] = template
        parser.__dict__.update(_copy(template).__dict__)

    cls.add_cli_args = staticmethod(add_cli_args)


def fresh(parser: argparse.ArgumentParser) -> None:
    """SGLang's own `ServerArgs.add_cli_args`, never cached (what the cache is checked on)."""
    original: Callable[[argparse.ArgumentParser], None] = _state["original"]
    original(parser)


@contextlib.contextmanager
def uncached() -> Iterator[None]:
    """Every parser built fresh by SGLang for the duration (the check and the measure)."""
    before = _state["on"]
    _state["on"] = False
    try:
        yield
    finally:
        _state["on"] = before


def built() -> int:
    """How many template parsers this process built (one per distinct key)."""
    return len(_templates)


def _pristine(parser: argparse.ArgumentParser) -> bool:
    """A parser as `argparse.ArgumentParser(...)` returns it: at most its own -h."""
    actions = parser._actions
    return (type(parser) is argparse.ArgumentParser and not parser._defaults
            and not parser._mutually_exclusive_groups and len(parser._action_groups) == 2
            and all(isinstance(a, argparse._HelpAction) for a in actions)
            and len(actions) == (1 if parser.add_help else 0))


def inputs(server_args: Any) -> tuple[Any, ...]:
    """What a build reads that may change in a process (the module docstring cites each)."""
    return (
        server_args.ServerArgs,
        bool(server_args.envs.SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE.get()),
        tuple(sorted(map(str, server_args.SAMPLING_BACKEND_CHOICES))),
        tuple(server_args._reasoning_parser_choices()),
        tuple(server_args._tool_call_parser_choices()),
        tuple(m.name for m in server_args._real_kv_hash_modes()),
    )


def _copy(template: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """An independent parser equal to `template`: each action copied (a mutable default
    too), the groups and option tables rebuilt around the copies."""
    memo: dict[int, Any] = {}
    for action in template._actions:
        twin = copy.copy(action)
        if isinstance(action.default, (list, dict, set, bytearray)):
            twin.default = copy.deepcopy(action.default)
        memo[id(action)] = twin
    return copy.deepcopy(template, memo)
