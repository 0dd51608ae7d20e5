"""Bad input becomes one clear line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from graphfit.planner.core.errors import GraphfitError

EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2


def fail(message: str) -> typer.Exit:
    """Print `error: message` to stderr and return the Exit to raise."""
    one_line = " ".join(message.split())  # a value holding a newline must not split it
    print(f"error: {one_line}", file=sys.stderr)
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
