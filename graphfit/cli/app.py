"""The `graphfit` typer app and its entry point. Usage errors are one `error:` line, exit 2."""

from __future__ import annotations

import sys

import typer

from graphfit.cli import engines, planning, tuning
from graphfit.cli.errors import EXIT_BAD_INPUT

app = typer.Typer(
    name="graphfit", no_args_is_help=True, add_completion=False,
    pretty_exceptions_enable=False,
    help="Plan CUDA-graph capture ladders, padding and buffer capacities that never go short.")

for _group in (planning, engines, tuning):
    _group.register(app)

# typer may vendor click: take its exception base from typer rather than importing click
_CLICK_ERROR: type[Exception] = typer.BadParameter.__mro__[2]


def main(argv: list[str] | None = None) -> None:
    """Entry point: usage errors are one line and exit 2, like every other bad input."""
    try:
        code = app(args=argv, standalone_mode=False)
    except _CLICK_ERROR as exc:
        message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
        print(f"error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    except typer.Abort:
        sys.exit(EXIT_BAD_INPUT)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
