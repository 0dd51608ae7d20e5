"""One console, one `--json` flag and one JSON writer for every command."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def console(*, stderr: bool = False) -> Console:
    """The console tables are printed on (wide enough for the buffer table; no colours when
    piped, rich's own rule)."""
    return Console(highlight=False, stderr=stderr, width=max(Console().width, 150))


def emit_json(document: object) -> None:
    """Write a JSON document to stdout (numbers as numbers, one trailing newline)."""
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
