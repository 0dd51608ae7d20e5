"""`EngineOptions`: the base of the options object each engine model owns.

`EngineConfig` (graphfit.planner.config) holds what every engine shares -- the request pool,
the token budget, the model's length, the tokens one request carries in a speculative step,
capture sizes in the engine's unit, the model's facts -- and one options object holding what
only its engine reads (vLLM's runner and attention levels, SGLang's parallelism, TensorRT-LLM's
draft-length schedule). Each engine's package defines its options class
(graphfit.planner.engines.vllm.options, .sglang_options, .trtllm_options) and its model names
it (`EngineModel.options`); an engine without options (a described one, a plugin's that names
none) gets `NoOptions`.

Options are frozen dataclasses validated at construction; their fields may hold only JSON
values or string enums, so `to_dict` / `from_dict` round-trip them through plan documents.

The validators below are shared with `EngineConfig` so a value is refused with the same
message whichever form (a flat keyword or an options field) gave it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any, ClassVar, TypeVar

from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES, MAX_INT

E = TypeVar("E", bound=Enum)
Opt = TypeVar("Opt", bound="EngineOptions")


def coerce_enum(name: str, enum_type: type[E], value: object) -> E:
    """`value` as a member of `enum_type` (its value or its name, any case for the name)."""
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        for member in enum_type:
            if value == member.value or value.upper() == member.name:
                return member
    choices = ", ".join(m.value for m in enum_type)
    raise ConfigError(f"{name}: {excerpt(value)} is not one of {choices}")


def positive_int(name: str, value: object) -> int:
    """An integer in 1..MAX_INT (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}: expected an integer, got {excerpt(value)}")
    if value < 1:
        raise ConfigError(f"{name}: must be >= 1, got {value}")
    if value > MAX_INT:
        raise ConfigError(f"{name}: must be <= {MAX_INT}, got {excerpt(value)}")
    return value


def sizes(name: str, value: object) -> tuple[int, ...] | None:
    """A list of capture sizes: a sequence (list, tuple, range) of at most MAX_CAPTURE_SIZES
    integers; its length is checked before it is read, so range(1, 10**9) is refused at
    once."""
    if value is None:
        return None
    if (isinstance(value, (str, bytes, Mapping, set, frozenset))
            or not hasattr(value, "__iter__")):
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}")
    too_many = ConfigError(f"{name}: more than {MAX_CAPTURE_SIZES:,} sizes (graphfit plans at "
                           f"most {MAX_CAPTURE_SIZES:,} capture sizes)")
    try:  # a 0-d array has __len__ and __iter__ that raise TypeError
        if hasattr(value, "__len__") and len(value) > MAX_CAPTURE_SIZES:
            raise too_many
        items = list(itertools.islice(value, MAX_CAPTURE_SIZES + 1))
    except TypeError:
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}") \
            from None
    out = tuple(positive_int(name, v) for v in items)
    if len(out) > MAX_CAPTURE_SIZES:
        raise too_many
    if not out:
        raise ConfigError(f"{name}: the list is empty")
    return out  # order and duplicates are each engine's rule (vLLM sorts, with a warning)


def int_list(name: str, value: object) -> tuple[int, ...] | None:
    """A list of any integers, possibly empty, at most MAX_CAPTURE_SIZES of them: what an
    engine accepts and then filters itself (vLLM 0.34's split sizes drop values outside their
    range, TensorRT-LLM's token counts those outside (0, max_num_tokens]; `[]` captures
    none). None stays None; order and duplicates are the caller's rule."""
    if value is None:
        return None
    if (isinstance(value, (str, bytes, Mapping, set, frozenset))
            or not hasattr(value, "__iter__")):
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}")
    try:
        items = list(itertools.islice(value, MAX_CAPTURE_SIZES + 1))
    except TypeError:
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}") \
            from None
    if len(items) > MAX_CAPTURE_SIZES:
        raise ConfigError(f"{name}: more than {MAX_CAPTURE_SIZES:,} values")
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int) or abs(item) > MAX_INT:
            raise ConfigError(f"{name}: expected integers, got {excerpt(item)}")
    return tuple(items)


def true_false(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name}: expected true/false, got {excerpt(value)}")
    return value


@dataclass(frozen=True)
class EngineOptions:
    """What one engine alone reads, owned, validated and documented by its model's package.

    Class attributes: `engine` the engine's registry name ("vllm"), `label` how messages
    name it ("vLLM"), and `absent`: per field, the value `EngineConfig`'s compatibility
    attribute reports for a config of another engine (the field's default unless listed:
    vLLM's `runner` reads "v1" elsewhere, the one runner SGLang and TensorRT-LLM have). A
    flat keyword of another engine's options is accepted only at its default or that value.
    """

    engine: ClassVar[str] = ""
    label: ClassVar[str] = "no engine"
    absent: ClassVar[Mapping[str, object]] = {}

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option fields, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def default(cls, name: str) -> object:
        """The default of field `name` (every option has one: an options object is complete
        without any keyword)."""
        return next(f.default for f in fields(cls) if f.name == name)

    @classmethod
    def absent_value(cls, name: str) -> object:
        """What a config of another engine reports for field `name`."""
        return cls.absent.get(name, cls.default(name))

    def replace(self: Opt, **changes: Any) -> Opt:
        """A validated copy with some fields changed (an unknown field is a ConfigError)."""
        unknown = [key for key in changes if key not in self.names()]
        if unknown:
            raise ConfigError(f"options: {listed(map(repr, unknown))} not among "
                              f"{type(self).__name__}'s fields ({', '.join(self.names())})")
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (enums as their values, tuples as lists)."""
        out: dict[str, Any] = {}
        for name in self.names():
            value = getattr(self, name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls: type[Opt], data: object) -> Opt:
        """Build from what `to_dict` wrote; an unknown key is an error, not dropped."""
        if not isinstance(data, dict):
            raise ConfigError(f"options: expected an object, got {type(data).__name__}")
        unknown = [key for key in data if key not in cls.names()]
        if unknown:
            raise ConfigError(f"options: unknown key(s) {listed(map(repr, unknown))} for "
                              f"{cls.label} ({', '.join(cls.names()) or 'none'})")
        return cls(**data)


@dataclass(frozen=True)
class NoOptions(EngineOptions):
    """The options of an engine that reads none beyond the shared config (a described
    engine, a plugin whose model names no options class)."""
