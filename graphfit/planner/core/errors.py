"""Error types shared by the planner, the runtime and the CLI.

They live in the planner (the torch-free core) so every layer can raise and catch them
without importing torch.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable

from graphfit.planner.core.limits import EXCERPT_CHARS, MAX_ERROR_CHARS, MAX_INT


class GraphfitError(Exception):
    """Base class: every error graphfit raises on purpose derives from it."""


class ConfigError(GraphfitError, ValueError):
    """An engine config (or a value derived from one) is invalid; the message names the field."""


class BatchError(GraphfitError, ValueError):
    """A batch query is malformed (e.g. a uniform-decode batch whose size is not q * num_reqs)."""


class CapacityError(GraphfitError, ValueError):
    """A batch needs more rows than a persistent buffer holds: raised instead of a short view."""

    def __init__(self, buffer: str, rows: int, capacity: int) -> None:
        self.buffer = buffer
        self.rows = rows
        self.capacity = capacity
        super().__init__(
            f"buffer {buffer!r} holds {capacity} rows but {rows} were requested "
            f"(a slice would silently return a short tensor)"
        )


def _repr(limit: int) -> reprlib.Repr:
    shown = reprlib.Repr()
    shown.maxlevel = 3
    shown.maxlist = shown.maxtuple = shown.maxset = shown.maxdict = 6
    shown.maxstring = shown.maxother = shown.maxlong = limit
    return shown


_SHOWN = _repr(EXCERPT_CHARS)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """`repr(value)` cut to about `limit` characters, for echoing user input in a message.

    A 100 KB flag value or a deeply nested list is shown as its start (reprlib's bounded
    repr: a few items, a few levels), so an error stays one short line and a huge value is
    never rendered in full.
    """
    shown = _SHOWN if limit == EXCERPT_CHARS else _repr(limit)
    try:
        text = shown.repr(value)
    except Exception:  # a user object whose repr fails still gets a message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def brief(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A user's name (a key, a flag, a file) as is when short and printable, else excerpted."""
    if isinstance(text, str) and len(text) <= limit and text.isprintable():
        return text
    return excerpt(text, limit)


def fitted(head: str, reason: str) -> str:
    """`head` then an engine's `reason`, the reason cut (ending "...") so that the `error: `
    line fits MAX_ERROR_CHARS. The head (what graphfit read, and where) is kept whole; the
    engine's words, which may echo a long value, give way, instead of error_line's middle cut
    taking the head's end."""
    room = MAX_ERROR_CHARS - len("error: ") - len(head)
    shown = reason if len(reason) <= room else f"{reason[:max(room - 3, 0)]}..."
    return f"{head}{shown}"


def listed(items: Iterable[object], limit: int = 8) -> str:
    """"a, b, c" for a few names; the first `limit` and "... and N more" for many."""
    names = list(items)
    shown = ", ".join(brief(str(n)) for n in names[:limit])
    return shown if len(names) <= limit else f"{shown} ... and {len(names) - limit:,} more"


def require_int(what: str, value: object, minimum: int = 0) -> int:
    """`value` when it is an int (not a bool) in [minimum, MAX_INT]; else a ConfigError. For
    the fields of the planner's records, checked at construction so that a wrong type is
    one line rather than a TypeError from a comparison further in."""
    if type(value) is not int or not minimum <= value <= MAX_INT:
        raise ConfigError(f"{what}: must be an integer in {minimum}..{MAX_INT}, got "
                          f"{excerpt(value)}")
    return value


def refusal(check: Callable[..., object], *args: object) -> ConfigError | None:
    """The ConfigError `check(*args)` raises, or None when it passes. For the modules that
    restate a class's refusals as a raising `check` and also answer "is this refused, and
    why" without raising (the quantization config classes' `problem`)."""
    try:
        check(*args)
    except ConfigError as exc:
        return exc
    return None
