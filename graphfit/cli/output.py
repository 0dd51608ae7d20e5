"""One console, one `--json` flag, one `--format` and one JSON writer for every command.

Tables fit the terminal (rich adapts them; `render` drops secondary columns when narrow);
piped output is 180 columns wide unless COLUMNS says otherwise, and has no colours (rich's own
rule). `--format markdown` prints every table as a Markdown table and every line as plain
text, for pasting into an issue or a pull request.

Text from the user (file names, labels, values echoed in notes and errors) goes through
`user()` before rich renders it, and emoji codes are never replaced, so a `[bold]` or
`:smile:` the user typed is printed as typed.
rich is imported by `console()`, when something is printed as text: `--json` never pays for it.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
FORMATS = ("table", "markdown")
FORMAT: ContextVar[str] = ContextVar("graphfit_format", default="table")
PIPED_WIDTH = 180  # the widest plan table (V2 DFlash buffers, 155) keeps every name whole


def _width(stderr: bool) -> int:
    from rich.console import Console

    probe = Console(stderr=stderr)
    if probe.is_terminal:
        return probe.width
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH


def _plain(value: Any) -> str:
    from rich.text import Text

    if isinstance(value, Text):
        return value.plain
    if isinstance(value, str):
        return Text.from_markup(value, emoji=False).plain
    return str(value)


def table_markdown(table: Table) -> str:
    """A rich Table as a Markdown table (title in bold above, caption below)."""
    lines: list[str] = []
    if table.title:
        lines += [f"**{_plain(table.title)}**", ""]
    headers = [_plain(c.header) or " " for c in table.columns]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---:" if c.justify == "right" else "---"
                                for c in table.columns) + "|")
    cells = [list(c.cells) for c in table.columns]
    for row in zip(*cells):
        lines.append("| " + " | ".join(_plain(v).replace("|", "\\|").replace("\n", " ")
                                       for v in row) + " |")
    if table.caption:
        lines += ["", _plain(table.caption)]
    return "\n".join(lines) + "\n"


@functools.cache
def markdown_console_class() -> type[Console]:
    """MarkdownConsole: a rich Console that prints tables as Markdown and text without markup
    or wrapping (a class made on first use, so that importing this module needs no rich)."""
    from rich.console import Console
    from rich.table import Table

    class MarkdownConsole(Console):
        def print(self, *objects: Any, **kwargs: Any) -> None:
            stream = sys.stderr if self.stderr else sys.stdout
            for obj in objects:
                if isinstance(obj, Table):
                    stream.write("\n" + table_markdown(obj) + "\n")
                else:
                    stream.write(_plain(obj) + "\n")

    return MarkdownConsole


def console(*, stderr: bool = False) -> Console:
    """The console tables are printed on (`--format markdown`: a MarkdownConsole)."""
    from rich.console import Console

    if FORMAT.get() == "markdown":  # all columns
        return markdown_console_class()(highlight=False, stderr=stderr, width=1000, emoji=False)
    return Console(highlight=False, emoji=False, stderr=stderr, width=_width(stderr))


def user(text: object) -> str:
    """A user's string made safe for rich: its `[...]` markup escaped, printed as typed."""
    from rich.markup import escape

    return escape(str(text))


def emit_json(document: object) -> None:
    """Write a JSON document to stdout (numbers as numbers, one trailing newline)."""
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
