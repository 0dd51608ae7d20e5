"""Plain command-line values without pydantic: typer 0.2x converts every parameter, even one
not given, through a pydantic TypeAdapter, and importing pydantic and building ~40 adapters
costs more than the rest of `graphfit plan` together.

`plain_values(params)` gives each parameter of a click command built by typer a converter
that answers the unambiguous cases itself: a value not given, a flag, a string for a `str`
option, ASCII digits for an `int`, plain decimals for a `float`, strings for a repeatable
`str` option, and a `Path` (typer's own path checks then run on it, as they would after
pydantic made it). Anything else (`+5`, ` 12 `, `1_000`, `1e3`) goes to typer's own
conversion, built on first use, so results and error messages stay typer's
(tests/cli/test_startup.py compares the two). A typer without per-parameter converters
(before 0.2x, no pydantic) is left as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

_SLOW = object()
_MAX_DIGITS = 18  # int() and pydantic agree on plain digits; keep far from int()'s limits


class PlainValue:
    """The converter typer asks for (`coerce(value, param=, ctx=)`); the plain cases here,
    everything else through typer's own converter for this parameter."""

    __slots__ = ("convert", "multi", "param")

    def __init__(self, param: Any, convert: Any) -> None:
        self.param = param
        self.convert = convert
        self.multi = bool(param.multiple or param.nargs == -1)

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if self.multi else None
        if not (self.multi and isinstance(value, str)):  # typer's own error for that case
            result = self.convert(value, param, ctx)
            if result is not _SLOW:
                return result
        return typers_own(self.param).coerce(value, param=param, ctx=ctx)


def typers_own(param: Any) -> Any:
    """Typer's converter for `param` (built now, kept for the next value)."""
    param._runtime_param = None
    own = param.get_runtime_param()
    return own


def _str(value: Any, *_: Any) -> Any:
    return value if type(value) is str else _SLOW


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _int(value: Any, *_: Any) -> Any:
    if type(value) is int:
        return value
    if type(value) is str and len(value) <= _MAX_DIGITS and _digits(
            value[1:] if value[:1] == "-" else value):
        return int(value)
    return _SLOW


def _float(value: Any, *_: Any) -> Any:
    if type(value) is float:
        return value
    if type(value) is str and len(value) <= _MAX_DIGITS:
        whole, dot, fraction = (value[1:] if value[:1] == "-" else value).partition(".")
        if _digits(whole) and (not dot or _digits(fraction)):
            return float(value)
    return _SLOW


def _bool(value: Any, *_: Any) -> Any:
    return value if type(value) is bool else _SLOW


def _strs(value: Any, *_: Any) -> Any:
    if isinstance(value, (list, tuple)) and all(type(v) is str for v in value):
        return list(value)
    return _SLOW


def _path(value: Any, param: Any, ctx: Any) -> Any:
    """`Path` options: typer has pydantic make the Path, then checks it (exists, dir_okay,
    resolve_path...) in coerce_cli_path; the Path is made here and typer's checks run. Only
    for a path that prints as typed (its messages quote it), and any ValueError (a NUL byte)
    goes the slow way, where pydantic words it."""
    info = param.type_descriptor.parameter_info
    if info.path_type not in (None, Path) or not isinstance(value, (str, Path)):
        return _SLOW
    path = Path(value)
    if str(path) != str(value):
        return _SLOW
    try:
        from typer._param_types import coerce_cli_path

        return coerce_cli_path(path, info, path_type=Path, param=param, ctx=ctx)
    except (ImportError, ValueError):  # another typer: its own way; pydantic's wording
        return _SLOW


def _converter(annotation: Any) -> Any:
    if annotation is str:
        return _str
    if annotation is int:
        return _int
    if annotation is float:
        return _float
    if annotation is bool:
        return _bool
    if annotation is Path:
        return _path
    if annotation == list[str]:
        return _strs
    return None


def _parsed(parser: Any, annotation: Any) -> Any:
    """An option with its own `parser` (graphfit's bounded integers and numbers): typer would
    still build its pydantic-backed converter around it; the parser is called here instead,
    on the text typed, and a default already of the option's type is kept as it is."""
    def convert(value: Any, *_: Any) -> Any:
        if type(value) is str:
            return parser(value)
        if isinstance(annotation, type) and type(value) is annotation:
            return value
        return _SLOW
    return convert


def plain_values(params: Iterable[Any]) -> None:
    """Give each of a typer-built command's parameters (`command.get_params(ctx)`: with its
    help option) a PlainValue, unless it has a converter or its type is not a plain one."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", False) is not None:
            continue
        info = descriptor.parameter_info
        if descriptor.file_annotation is not None or any(
                getattr(info, name, None) is not None for name in ("click_type", "min", "max")):
            continue
        parser = getattr(info, "parser", None)
        convert = (_converter(descriptor.annotation) if parser is None
                   else _parsed(parser, descriptor.annotation))
        if convert is not None:
            param._runtime_param = PlainValue(param, convert)
