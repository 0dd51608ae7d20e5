"""The one input-reading layer: every file and every structured value graphfit reads.

Config files (`--config`, `--extra_llm_api_options`, the engines' own `--config` YAML), JSON
flag values (speculative / compilation / cuda-graph configs, pasted ones too), model
config.json, plan files, traces, memory profiles, corpus cases and numbers typed as text all
come through here, so they all get the same guarantees:

- files: regular files only (no /dev/zero, FIFOs or directories), read up to a size limit
  (at most limit + 1 bytes are ever read), UTF-8 text with a clear error otherwise (UTF-16,
  binary);
- JSON: duplicate keys, NaN and Infinity refused; nesting and integer digits bounded; every
  integer within graphfit's range and every float finite;
- YAML: safe-loaded, anchors and aliases refused (no alias bombs), duplicate keys refused,
  nesting bounded, integers in range and floats finite;
- numbers as text: integers are ASCII digits only (no "²", "1.5", "1,,2", "1_000"), floats
  are finite; both within the limits of `graphfit.planner.core.limits`.

Every problem is a ConfigError naming where the value came from, one line, with the user's
value cut to a short excerpt.
"""

from __future__ import annotations

import codecs
import contextlib
import contextvars
import copy
import json
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_FLOAT,
    MAX_INT,
    MAX_INT_DIGITS,
    MAX_YAML_BYTES,
)

MIB = 1024 * 1024


def shown_path(path: str | Path) -> str:
    """How a file is named in messages: its path, or its name when the path is long."""
    text = str(path)
    if not text.isprintable():
        return excerpt(text)
    if len(text) > 60:
        text = Path(text).name
    return text if len(text) <= 60 else excerpt(text)


def _where(origin: str, message: str) -> str:
    return f"{origin}: {message}" if origin else message


# -- files -----------------------------------------------------------------------------------

def read_bytes(path: str | Path, what: str = "file", *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (never reads more than limit+1)."""
    name = f"{what} {shown_path(path)}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ConfigError(f"{name}: a dangling symbolic link (its target does not "
                              "exist)") from None
        raise ConfigError(f"{name}: No such file") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{name}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{name}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{name}: not a regular file (a device, pipe or socket); "
                          "give a file")
    too_big = ConfigError(f"{name}: larger than {_size(limit)}, the most graphfit reads "
                          "for it")
    if info.st_size > limit:
        raise too_big
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{name}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise too_big
    return data


def _size(n: int) -> str:
    return f"{n // MIB} MiB" if n >= MIB else f"{n // 1024} KiB"


_UTF16 = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def decode(data: bytes, origin: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is dropped); UTF-16/32 and binary are named."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith(_UTF16):
        raise ConfigError(_where(origin, "is UTF-16/UTF-32 text; save it as UTF-8"))
    if b"\x00" in data:
        head = data[:4096]
        even, odd, half = head[0::2].count(0), head[1::2].count(0), len(head) // 2
        if len(head) >= 8 and max(even, odd) >= 0.4 * half and min(even, odd) <= 0.05 * half:
            raise ConfigError(_where(origin, "looks like UTF-16 text (NUL bytes between "
                                     "characters); save it as UTF-8"))
        raise ConfigError(_where(origin, "is a binary file (NUL bytes), not UTF-8 text"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(_where(origin, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} "
                                 f"at offset {exc.start}); save it as UTF-8")) from None


def read_text(path: str | Path, what: str = "file", *, limit: int = MAX_FILE_BYTES) -> str:
    """A regular file's UTF-8 text, at most `limit` bytes."""
    return decode(read_bytes(path, what, limit=limit), f"{what} {shown_path(path)}")


# -- JSON ------------------------------------------------------------------------------------

def parse_json(text: str, origin: str = "") -> Any:
    """Strict JSON: no duplicate keys, NaN or Infinity; nesting, integers and floats bounded."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise ConfigError(_where(origin, f"duplicate key {excerpt(key)}"))
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise ConfigError(_where(origin, f"{name} is not a number graphfit accepts "
                                 "(NaN and Infinity are refused)"))

    def integer(digits: str) -> int:
        if len(digits) < MAX_INT_DIGITS:  # the common case: within +-MAX_INT by its length
            return int(digits)
        return check_int(origin, _bounded_int(origin, digits), minimum=-MAX_INT)

    def real(digits: str) -> float:
        return check_float(origin, float(digits), minimum=-MAX_FLOAT)

    if not isinstance(text, str):
        raise ConfigError(_where(origin, f"expected JSON text, got {type(text).__name__}"))
    if len(text) > MAX_FILE_BYTES:  # a flag's value or a pasted one: as large as a file
        raise ConfigError(_where(origin, f"JSON text larger than {_size(MAX_FILE_BYTES)}, "
                                 "the most graphfit reads"))
    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                          parse_int=integer, parse_float=real)
    except json.JSONDecodeError as exc:
        raise ConfigError(_where(origin, f"malformed JSON ({exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno})")) from None
    except RecursionError:
        raise ConfigError(_where(origin, f"nested deeper than {MAX_DEPTH} levels")) from None
    check_depth(origin, data)
    return data


def check_depth(origin: str, data: Any) -> None:
    """ConfigError when lists/mappings nest deeper than MAX_DEPTH (iterative: no recursion)."""
    if not isinstance(data, (dict, list)):
        return
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(_where(origin, f"nested deeper than {MAX_DEPTH} levels"))
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))


def load_json(path: str | Path, what: str = "file", *, limit: int = MAX_FILE_BYTES) -> Any:
    """A JSON file, read and parsed strictly; inside `one_read_per_file`, parsed once per
    file version and handed out as a fresh copy each time."""
    reads = _READS.get()
    key = None if reads is None else _version(path, limit)
    if key is None or reads is None:
        return parse_json(read_text(path, what, limit=limit), f"{what} {shown_path(path)}")
    if key not in reads:  # a file graphfit refuses raises here, every time: never stored
        reads[key] = parse_json(read_text(path, what, limit=limit),
                                f"{what} {shown_path(path)}")
    return copy.deepcopy(reads[key])


# One command's JSON reads: the readers of a line each load the model's config.json again
# (about 50 times for one pasted SGLang line), each reader keeping its own error text. Scoped
# to one command, never process-wide, and keyed on the file's identity, size and times, so a
# file that changes between or during commands is read again.
_READS: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = contextvars.ContextVar(
    "graphfit_json_reads", default=None)


@contextlib.contextmanager
def one_read_per_file() -> Iterator[None]:
    """Within: `load_json` parses each file version once (nested scopes share the outer one);
    every caller still gets its own copy, so a reader that edits its dict edits only its own."""
    token = _READS.set({}) if _READS.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _READS.reset(token)


def _version(path: str | Path, limit: int) -> tuple[Any, ...] | None:
    """A regular file's identity and version (None otherwise: read as usual, and refused)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (os.fspath(path), limit, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
            info.st_ctime_ns)


# -- YAML ------------------------------------------------------------------------------------

def _yaml() -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml ships with graphfit[yaml]
        raise ConfigError("reading YAML needs PyYAML (pip install pyyaml); or use a .json "
                          "file") from None
    return yaml


_LOADERS: dict[str, Any] = {}


def _strict_loader() -> Any:
    """A safe loader that refuses duplicate keys, out-of-range integers and non-finite
    floats (built once; PyYAML's C parser when it has one)."""
    if "strict" in _LOADERS:
        return _LOADERS["strict"]
    yaml = _yaml()
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    constructor = yaml.constructor

    class StrictLoader(base):  # type: ignore[misc,valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                self.flatten_mapping(node)
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # unhashable: the base constructor names it
                    continue
                if duplicate:
                    raise constructor.ConstructorError(
                        None, None, f"duplicate key {excerpt(key)}", key_node.start_mark)
                seen.add(key)
            return constructor.BaseConstructor.construct_mapping(self, node, deep=deep)

        def construct_yaml_int(self, node: Any) -> Any:
            text = str(self.construct_scalar(node))
            if len(text.replace("_", "").lstrip("+-0")) > MAX_INT_DIGITS + 4:
                raise constructor.ConstructorError(
                    None, None, f"integer {excerpt(text)} is out of range", node.start_mark)
            value = constructor.SafeConstructor.construct_yaml_int(self, node)
            if abs(value) > MAX_INT:
                raise constructor.ConstructorError(
                    None, None, f"integer {excerpt(text)} is out of range", node.start_mark)
            return value

        def construct_yaml_float(self, node: Any) -> Any:
            value = constructor.SafeConstructor.construct_yaml_float(self, node)
            if not math.isfinite(value) or abs(value) > MAX_FLOAT:
                raise constructor.ConstructorError(
                    None, None, f"{excerpt(self.construct_scalar(node))} is not a finite "
                    f"number up to {MAX_FLOAT:g}", node.start_mark)
            return value

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", StrictLoader.construct_yaml_float)
    _LOADERS["strict"] = StrictLoader
    _LOADERS["events"] = base
    return StrictLoader


def _yaml_problem(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "parse error"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    return f"{problem}{where}"


def parse_yaml(text: str, origin: str = "") -> Any:
    """Safe YAML with anchors/aliases, duplicate keys and deep nesting refused."""
    yaml = _yaml()
    loader = _strict_loader()
    events = _LOADERS["events"]
    depth = 0
    try:
        for event in yaml.parse(text, Loader=events):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = event.start_mark
                raise ConfigError(_where(origin, f"anchors and aliases (&name, *name) are "
                                         f"refused (line {mark.line + 1})"))
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise ConfigError(_where(origin, f"nested deeper than {MAX_DEPTH} levels"))
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise ConfigError(_where(origin, f"malformed YAML ({_yaml_problem(exc)})")) from None
    except RecursionError:  # pragma: no cover - the event pass bounds the depth first
        raise ConfigError(_where(origin, f"nested deeper than {MAX_DEPTH} levels")) from None


def load_yaml(path: str | Path, what: str = "file", *, limit: int = MAX_YAML_BYTES) -> Any:
    """A YAML file, read and safe-loaded strictly."""
    return parse_yaml(read_text(path, what, limit=limit), f"{what} {shown_path(path)}")


def load_data(path: str | Path, what: str = "file") -> Any:
    """A .json file as JSON, anything else (.yaml, .yml) as YAML."""
    if Path(path).suffix.lower() == ".json":
        return load_json(path, what)
    return load_yaml(path, what)


# -- numbers ---------------------------------------------------------------------------------

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _bounded_int(origin: str, digits: str) -> int:
    if len(digits.lstrip("+-").lstrip("0")) > MAX_INT_DIGITS:
        raise ConfigError(_where(origin, f"integer {excerpt(digits)} is out of range "
                                 f"(at most {MAX_INT})"))
    return int(digits)


def is_int_text(text: object) -> bool:
    """Whether `text` is an integer written with ASCII digits (and an optional sign)."""
    return isinstance(text, str) and _INT_TEXT.fullmatch(text.strip()) is not None


def parse_int(origin: str, text: str, *, minimum: int = 0, maximum: int = MAX_INT) -> int:
    """An integer written as text: ASCII digits 0-9 with an optional sign, in range."""
    if not is_int_text(text):
        raise ConfigError(_where(origin, f"expected an integer (digits 0-9), got "
                                 f"{excerpt(text)}"))
    return check_int(origin, _bounded_int(origin, text.strip()), minimum=minimum,
                     maximum=maximum)


def parse_float(origin: str, text: str, *, minimum: float = 0.0,
                maximum: float = MAX_FLOAT) -> float:
    """A finite decimal number written as text (no nan, inf or hex), in range."""
    stripped = text.strip() if isinstance(text, str) else ""
    if len(stripped) > 64 or not _FLOAT_TEXT.fullmatch(stripped):
        raise ConfigError(_where(origin, f"expected a number, got {excerpt(text)}"))
    return check_float(origin, float(stripped), minimum=minimum, maximum=maximum)


def check_int(origin: str, value: object, *, minimum: int = 0, maximum: int = MAX_INT) -> int:
    """An int (not a bool) in [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(_where(origin, f"expected an integer, got {excerpt(value)}"))
    if value < minimum:
        raise ConfigError(_where(origin, f"must be >= {minimum}, got {excerpt(value)}"))
    if value > maximum:
        raise ConfigError(_where(origin, f"must be <= {maximum}, got {excerpt(value)}"))
    return value


def check_float(origin: str, value: object, *, minimum: float = 0.0,
                maximum: float = MAX_FLOAT) -> float:
    """A finite int or float (not a bool) in [minimum, maximum], as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(_where(origin, f"expected a number, got {excerpt(value)}"))
    if isinstance(value, int) and abs(value) > MAX_INT:
        raise ConfigError(_where(origin, f"must be <= {maximum:g}, got {excerpt(value)}"))
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(_where(origin, f"must be a finite number, got {excerpt(value)}"))
    if number < minimum:
        raise ConfigError(_where(origin, f"must be >= {minimum:g}, got {excerpt(value)}"))
    if number > maximum:
        raise ConfigError(_where(origin, f"must be <= {maximum:g}, got {excerpt(value)}"))
    return number

