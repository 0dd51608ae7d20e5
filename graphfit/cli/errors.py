"""Bad input becomes one clear line on stderr and exit code 2, never a traceback.

Every `error:` line is built by `error_line`: one line (newlines and control characters in a
user's value are escaped), at most MAX_ERROR_CHARS characters (a long message keeps its start
and its end, where the hint is), so no input can flood the terminal or forge more lines.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from graphfit.planner.core.errors import GraphfitError
from graphfit.planner.core.limits import MAX_ERROR_CHARS

EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2


def printable(text: str) -> str:
    """`text` with control characters (newlines, ANSI escapes) written as escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def error_line(message: str) -> str:
    """`error: message` as one printable line of at most MAX_ERROR_CHARS characters."""
    one_line = printable(" ".join(str(message).split())) or "bad input"
    line = f"error: {one_line}"
    if len(line) > MAX_ERROR_CHARS:
        keep = MAX_ERROR_CHARS - 5
        line = f"{line[:keep - 60]} ... {line[-60:]}"
    return line


def fail(message: str) -> typer.Exit:
    """Print `error: message` to stderr and return the Exit to raise."""
    print(error_line(message), file=sys.stderr)
    return typer.Exit(EXIT_BAD_INPUT)


@contextmanager
def handled() -> Iterator[None]:
    """Turn graphfit's own errors (and bad files) into `error: ...` + exit 2."""
    try:
        yield
    except GraphfitError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{exc.filename or 'file'}: {exc.strerror or exc}") from None
