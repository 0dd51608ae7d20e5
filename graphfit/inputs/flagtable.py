"""The engines' own argument parsers, rebuilt from data with the standard library's argparse.

`flags/vllm.json` and `flags/sglang.json` are snapshots of the parsers vLLM 0.33 and SGLang
0.5.23 build (every option spelling, nargs, choices, action and value type), written by
tests/oracle/flag_tables.py from the engines' real code and checked against it in CI. Both
engines parse with argparse, so an `argparse.ArgumentParser` with the same actions accepts
exactly what they accept: prefix abbreviations (`--max-num-seq`), ambiguity errors, `=` forms,
`nargs="+"` lists, choices, `--no-x` / `--disable-x` booleans.

Values are converted as the engine's own type callables do (CONVERTERS, keyed by the kind the
snapshot records); JSON sub-configs are checked for unknown keys where the engine's config
class refuses them. Every action records which spelling the user typed, so flags graphfit
does not model can be listed as the user wrote them.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from graphfit.inputs.keys import Handler
from graphfit.inputs.reading import parse_json
from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError

FLAGS = Path(__file__).resolve().parent / "flags"


class Refused(Exception):
    """The engine's parser refuses the line (its message, argparse's wording)."""


@dataclass(frozen=True)
class Table:
    """One engine version's snapshot: parsers by name, JSON sub-config classes, extras."""

    engine: str
    version: str
    data: Mapping[str, Any]

    def actions(self, parser: str) -> list[dict[str, Any]]:
        spec = self.data["parsers"][parser]
        if "actions_of" in spec:
            spec = self.data["parsers"][spec["actions_of"]]
        return list(spec["actions"])

    def prog(self, parser: str) -> str:
        return str(self.data["parsers"][parser]["prog"])

    def options(self, parser: str) -> frozenset[str]:
        """Every registered option string of a parser (hidden spellings included)."""
        return frozenset(o for a in self.actions(parser) for o in a.get("options", ()))


@cache
def load(engine: str) -> Table:
    """The snapshot `flags/<engine>.json` ("vllm", "sglang", or a release's own such as
    "vllm-0.34.0"), read once per process."""
    data = json.loads((FLAGS / f"{engine}.json").read_text())
    return Table(data["engine"], data["version"], data)


# ------------------------------------------------------------------------------------------
# Value types: what each engine's type callables accept (facts: vllm utils/argparse_utils.py
# human_readable_int*, engine/arg_utils.py optional_type / union_dict_and_str /
# parse_dataclass; sglang srt/utils/common.py human_readable_int / nullable_str,
# srt/model_executor/cuda_graph_config.py parse_cuda_graph_*_arg).

_VLLM_SUFFIX = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_VLLM_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_VLLM_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SGLANG_SUFFIX = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SGLANG_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_SGLANG_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def vllm_human_int(text: str) -> int:
    """'16K' = 16384, '32k' = 32000, '1.5k' = 1500; decimals with K/M/G/T are refused."""
    value = text.strip()
    match = _VLLM_SUFFIX.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in _VLLM_DECIMAL:
            return int(float(number) * _VLLM_DECIMAL[suffix])
        if "." in number:
            raise argparse.ArgumentTypeError(
                f"Decimals are not allowed with binary suffixes like {suffix}")
        return int(number) * _VLLM_BINARY[suffix]
    return int(value)


def vllm_human_int_or_auto(text: str) -> int:
    """`auto` or -1: the model's own maximum (vLLM marks it -1)."""
    value = text.strip()
    if value == "-1" or value.lower() == "auto":
        return -1
    return vllm_human_int(value)


def sglang_human_int(text: str) -> int:
    """SI suffixes (1k, 1M; decimals allowed) and IEC ones (1Ki; integers only), case-sensitive."""
    from decimal import Decimal

    value = text.strip()
    match = _SGLANG_SUFFIX.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in _SGLANG_IEC:
            if "." in number:
                raise argparse.ArgumentTypeError(  # SGLang's words (utils/common.py:3413-3417)
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. "
                    f"Use an integer IEC value such as '{int(Decimal(number))}{suffix}', "
                    f"or an SI value such as '{number}{suffix[0]}'.")
            return int(number) * _SGLANG_IEC[suffix]
        return int(Decimal(number) * _SGLANG_SI[suffix])
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(  # SGLang's words (utils/common.py:3424-3429)
            f"Invalid integer value: '{value}'. Use a plain integer, SI suffixes (1k, 1M), "
            "or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive.") from None


_JSON_NUMBER_SUFFIX = re.compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")
_JSON_STRING = re.compile(r'("(?:[^"\\]|\\.)*")')


def expand_json_numbers(text: str) -> str:
    """vLLM expands bare human-readable numbers in its config JSON ({"x": 80m}), never inside
    strings."""
    parts = _JSON_STRING.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = _JSON_NUMBER_SUFFIX.sub(lambda m: str(vllm_human_int(m.group())), parts[i])
    return "".join(parts)


def _json(text: str) -> Any:
    """Strict JSON (graphfit.inputs.reading): the engines' json.loads would also take NaN,
    duplicate keys (last wins) and any depth; graphfit refuses them, never guesses."""
    try:
        return parse_json(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _sglang_refuses(text: str, orjson: bool = False) -> str | None:
    """The JSON reader's error when SGLang's reader refuses `text` as not JSON (None when it
    reads it): json.loads (argparse's type for most JSON flags, `--cuda-graph-config`'s
    parse, model_executor/cuda_graph_config.py:252-255) or, with `orjson`, orjson.loads
    (json_list_type, utils/common.py:4818-4824), which also refuses NaN / Infinity, a number
    that overflows a double and a lone surrogate. A text so deep that json.loads recurses
    out crashes SGLang's reader; graphfit's strict reader refuses it in its own words."""
    def constant(name: str) -> Any:
        raise json.JSONDecodeError(f"{name} is not JSON", text, 0)

    try:
        data = json.loads(text, parse_constant=constant if orjson else None)
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit
        return str(exc)
    except RecursionError:
        return None
    if orjson and not _orjson_reads(data):
        return "not JSON orjson reads"
    return None


def _orjson_reads(data: Any) -> bool:
    """No infinite float and no lone surrogate anywhere in a json.loads result (iterative)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and item in (float("inf"), float("-inf")):
            return False
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _sglang_json(text: str) -> Any:
    """SGLang's `type=json.loads` flags: a text json.loads refuses gets argparse's words for
    it ("invalid loads value: 'x'", this callable is named `loads`: issue 23 s55l); a text
    it reads but graphfit's strict reader refuses (NaN, a duplicate key) keeps graphfit's
    words, which refuse on purpose."""
    try:
        return parse_json(text)
    except ConfigError as exc:
        if _sglang_refuses(text) is not None:
            raise ValueError(text) from None
        raise argparse.ArgumentTypeError(str(exc)) from None


_sglang_json.__name__ = "loads"


def _sglang_json_list(text: str) -> Any:
    """SGLang's json_list_type (utils/common.py:4818-4824): orjson's refusal in its words."""
    try:
        return parse_json(text)
    except ConfigError as exc:
        if _sglang_refuses(text, orjson=True) is not None:
            raise argparse.ArgumentTypeError(
                f"Invalid JSON list: {text}. Please provide a valid JSON list.") from None
        raise argparse.ArgumentTypeError(str(exc)) from None


def _dict_or_str(text: str) -> Any:
    if not re.match(r"(?s)^\s*{.*}\s*$", text):
        return text
    return None if text in ("", "None") else _json(text)


def _device_ids(text: str) -> list[int | str]:
    parts = (p.strip() for p in text.split(","))
    return [int(p) if p.isdigit() else p for p in parts]


def _vllm_lora(text: str) -> Any:
    if text in ("", "None"):
        return None
    if "=" in text and "," not in text:
        return text
    value = _json(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"Invalid JSON format for --lora-modules: {text}")
    return value


def _cuda_graph_backend(text: str) -> str:
    if text == "tc_piecewise":
        raise argparse.ArgumentTypeError(
            "tc_piecewise was removed; select breakable, full, or disabled")
    return text


@dataclass(frozen=True)
class _Converters:
    """Kind -> callable for one table (config kinds need the table's class data)."""

    table: Table

    def get(self, kind: str) -> Callable[[str], Any] | None:
        if kind.startswith("optional:"):
            inner = self.get(kind.removeprefix("optional:"))

            def optional(text: str) -> Any:
                if text in ("", "None"):
                    return None
                return inner(text) if inner is not None else text

            optional.__name__ = kind.removeprefix("optional:")
            return optional
        if kind.startswith("config:"):
            return self._config(kind.removeprefix("config:"))
        if kind == "sglang_cuda_graph_config":
            return self._sglang_cuda_graph_config
        if kind == "json" and self.table.engine == "sglang":
            return _sglang_json
        simple: dict[str, Callable[[str], Any] | None] = {
            "str": None, "int": int, "float": float, "json": _json,
            "dict_or_str": _dict_or_str, "vllm_human_int": vllm_human_int,
            "vllm_human_int_or_auto": vllm_human_int_or_auto,
            "sglang_human_int": sglang_human_int,
            "none_is_empty": lambda s: "" if s.lower() == "none" else s,
            "nullable_str": lambda s: None if not s or s == "None" else s,
            "lower_underscore": lambda s: s.lower().replace("-", "_"),
            "device_ids": _device_ids, "vllm_lora": _vllm_lora,
            "sglang_cuda_graph_backend": _cuda_graph_backend,
            "sglang_json_list": _sglang_json_list,
        }
        if kind not in simple:  # pragma: no cover - the snapshot test keeps kinds known
            raise KeyError(f"flag table: unknown value kind {kind!r}")
        return simple[kind]

    def _config(self, name: str) -> Callable[[str], Any]:
        spec = self.table.data["configs"][name]
        known = frozenset(spec["fields"])
        forbid = spec["extra"] == "forbid"

        def config(text: str) -> Any:
            value = _json(expand_json_numbers(text))
            if not isinstance(value, dict):
                raise argparse.ArgumentTypeError(
                    f"{name}: expected a JSON object, got {type(value).__name__}")
            unknown = [k for k in value if k not in known]
            if forbid and unknown:
                raise argparse.ArgumentTypeError(
                    f"{name}: unknown key {unknown[0]!r} (extra inputs are not permitted)")
            return value

        config.__name__ = name
        return config

    def _sglang_cuda_graph_config(self, text: str) -> Any:
        """SGLang's parse_cuda_graph_config_arg in its words (model_executor/
        cuda_graph_config.py:246-283: the phases and each phase's keys are tuples, named
        as Python prints them, in the snapshot's order, which is theirs)."""
        phases: Mapping[str, Sequence[str]] = self.table.data["cuda_graph_config_phases"]
        try:
            value = parse_json(text)
        except ConfigError as exc:
            refused = _sglang_refuses(text)
            raise argparse.ArgumentTypeError(
                f"--cuda-graph-config must be JSON: {refused}" if refused is not None
                else str(exc)) from None
        if not isinstance(value, dict):
            raise argparse.ArgumentTypeError(
                f"--cuda-graph-config must be a JSON object, got {type(value).__name__}")
        for phase, settings in value.items():
            if str(phase) not in phases:
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config: unknown phase '{phase}', expected one of "
                    f"{tuple(phases)}")
            if not isinstance(settings, dict):
                raise argparse.ArgumentTypeError(
                    f"--cuda-graph-config['{phase}'] must be a JSON object, got "
                    f"{type(settings).__name__}")
            if "backend" in settings:
                _cuda_graph_backend(settings["backend"])
            for key in settings:
                if key not in phases[str(phase)]:
                    raise argparse.ArgumentTypeError(
                        f"--cuda-graph-config['{phase}']: unknown key '{key}', expected one "
                        f"of {tuple(phases[str(phase)])}")
        return value


# ------------------------------------------------------------------------------------------
# Actions: each stores like argparse's own and records the spelling the user typed.

SPELLINGS = "_graphfit_spellings"


def _record(namespace: argparse.Namespace, dest: str, spelling: str | None) -> None:
    seen: list[tuple[str, str]] = getattr(namespace, SPELLINGS, None) or []
    seen.append((dest, spelling or dest))
    setattr(namespace, SPELLINGS, seen)


class _Store(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _record(namespace, self.dest, option_string)
        setattr(namespace, self.dest, values)


class _Checked(_Store):
    """A store whose engine action also checks the values as argparse meets the flag (before
    any later flag is read, before unrecognized or missing arguments are reported): `check`
    raises `Refused` with the engine's own words (SGLang's LoRAPathAction, issue 23 s68l)."""

    def __init__(self, option_strings: Sequence[str], dest: str,
                 check: Callable[[Any], None], **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.check = check

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        self.check(values)
        super().__call__(parser, namespace, values, option_string)


class _Append(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _record(namespace, self.dest, option_string)
        items = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, [*items, values])


class _Const(argparse.Action):
    """store_true / store_false / store_const (SGLang's deprecated flags take a value)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _record(namespace, self.dest, option_string)
        setattr(namespace, self.dest, self.const)


class _Bool(argparse.Action):
    """`--x` / `--no-x` (vLLM also pairs `--enable-x` with `--disable-x`): no value."""

    def __init__(self, option_strings: Sequence[str], dest: str,
                 negatives: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)
        self.negatives = frozenset(negatives)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _record(namespace, self.dest, option_string)
        setattr(namespace, self.dest, option_string not in self.negatives)


class _Stop(argparse.Action):
    """--help / --version: the engine prints and exits; there is no server to plan."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        raise Refused(f"{option_string} asks {parser.prog} for its help, not for a server")


class Parser(argparse.ArgumentParser):
    """argparse that raises `Refused` instead of printing usage and exiting (its help action
    comes from the snapshot)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("add_help", False)
        self._checking: argparse.HelpFormatter | None = None
        super().__init__(*args, **kwargs)

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse makes a new formatter for every add_argument, only to check the metavar
        against nargs (and asks the terminal's size each time): while add_actions builds
        the parser one formatter does every check (`_format_args` keeps no state), half the
        build's time; help and usage still get a fresh one."""
        return self._checking or super()._get_formatter()

    def error(self, message: str) -> Any:
        raise Refused(message)

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise Refused((message or f"exit {status}").strip())


def add_actions(parser: argparse.ArgumentParser, table: Table, name: str,
                checks: Mapping[str, Callable[[Any], None]] | None = None) -> None:
    """Add the snapshot's actions of parser `name` to `parser` (defaults suppressed: the
    namespace holds only what the line gives); `checks`: by dest, what the engine's own
    action of a store flag checks as argparse meets it (`_Checked`)."""
    checks = checks or {}
    if isinstance(parser, Parser) and parser._checking is None:
        parser._checking = parser._get_formatter()
        try:
            add_actions(parser, table, name, checks)
        finally:
            parser._checking = None
        return
    kinds = _Converters(table)
    for spec in table.actions(name):
        kind = spec.get("action")
        if spec.get("positional"):
            positional: dict[str, Any] = {"nargs": spec["nargs"], "default": argparse.SUPPRESS,
                                          "action": _Store}
            convert = kinds.get(spec["type"])
            if convert is not None:
                positional["type"] = convert
            parser.add_argument(spec["dest"], **positional)
            continue
        options = spec["options"]
        common: dict[str, Any] = {"dest": spec["dest"], "default": argparse.SUPPRESS}
        if spec.get("required"):
            common["required"] = True
        if kind in ("help", "version"):
            parser.add_argument(*options, action=_Stop, nargs=0, dest=argparse.SUPPRESS,
                                default=argparse.SUPPRESS)
        elif kind == "bool":
            parser.add_argument(*options, action=_Bool, negatives=spec["negatives"], **common)
        elif kind in ("store_true", "store_false"):
            parser.add_argument(*options, action=_Const, nargs=0,
                                const=kind == "store_true", **common)
        elif kind in ("store", "append", "store_const"):
            extra: dict[str, Any] = {"nargs": spec["nargs"]}
            convert = kinds.get(spec["type"])
            if convert is not None:
                extra["type"] = convert
            if "choices" in spec:
                extra["choices"] = spec["choices"]
            if kind == "store_const":
                action: type[argparse.Action] = _Const
                extra["const"] = spec.get("const")
                if extra["nargs"] == 0:
                    extra.pop("type", None)
            elif kind == "store" and spec["dest"] in checks:
                action = _Checked
                extra["check"] = checks[spec["dest"]]
            else:
                action = _Append if kind == "append" else _Store
            parser.add_argument(*options, action=action, **common, **extra)
        else:  # pragma: no cover - the snapshot test keeps action kinds known
            raise KeyError(f"flag table: unknown action {kind!r}")


@dataclass
class Parsed:
    """What an engine's parser read: given values by dest, and the spellings typed."""

    values: dict[str, Any]
    spellings: list[tuple[str, str]] = field(default_factory=list)

    def spelled(self, dest: str) -> list[str]:
        return [s for d, s in self.spellings if d == dest]


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> Parsed:
    """Run `parser`; `Refused` carries the engine's (argparse's) message."""
    namespace = parser.parse_args(list(argv))
    values = dict(vars(namespace))
    spellings = values.pop(SPELLINGS, [])
    return Parsed(values, list(spellings))


@dataclass(frozen=True)
class LineReader:
    """What graphfit.inputs.commandline needs from one engine's command-line reader
    (vllm_cli.READER, sglang_cli.READER, trtllm_cli.READER).

    `parse(argv, entry)` -> (what the engine's parser read, the model, notes); `keys` the
    engine's FILE_KEYS (the one place an engine key becomes EngineConfig fields); `consumed`
    keys the reader handles itself (never listed as not modelled); `finish(values, settings)`
    the engine's own rules after the keys are mapped (defaults the line leaves open, overrides
    such as vLLM's --enforce-eager); `draft_model(values)` the draft model a line names;
    `default_note(used, values)` says which engine defaults were used.
    """

    engine: Engine
    parse: Callable[[Sequence[str], str], tuple[Parsed, str, list[str]]]
    keys: Mapping[str, Handler]
    consumed: frozenset[str]
    label: Callable[[str], str]
    finish: Callable[[Mapping[str, Any], list[Setting]], tuple[list[Setting], list[str]]]
    draft_model: Callable[[Mapping[str, Any]], str | None]
    default_origin: str | None = None
    default_note: Callable[[list[str], Mapping[str, Any]], str] | None = None
    reads_config_flag: bool = True  # `--config FILE` is the engine's own config file
