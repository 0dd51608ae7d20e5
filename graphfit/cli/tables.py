"""Tables of literal single-line cells that rich lays out a section at a time.

rich spends tens of microseconds on every cell it lays out (measure, pad, wrap, crop), and
`graphfit plan` prints some 300 cells (issue 13: the CLI's start-up CPU time). A
`literal_table` holds its rows as any rich Table does (Markdown output and tests read them),
but when it fits its width at its natural size, nothing in it wraps or shrinks, and it is
printed as one row per section whose cells hold that section's lines: the same lines, laid
out in a cell per column and section (20 instead of 290 for the seed config's buffer
table). A table that does not fit (a narrow terminal) is laid out row by row, as rich
always does. rich is imported when a table is made, never by `--json`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text


def cell(value: str, style: str = "") -> Text:
    """A table cell as literal text: rich does not parse it as markup (time spent on every
    cell of every table), and a `[` in it prints as written. A style colours the text, not
    the spaces that pad it to its column (Text.styled)."""
    from rich.text import Text

    return Text.styled(value, style) if style else Text(value)


def add_row(table: Table, *values: str | Text, end_section: bool = False) -> None:
    """One row of literal cells (see `cell`); a Text keeps its own style."""
    table.add_row(*(cell(v) if isinstance(v, str) else v for v in values),
                  end_section=end_section)


def literal_table(title: str) -> Table:
    """A left-titled table with rich's default box and padding, for single-line `cell`s."""
    made: Table = _literal_table_class()(title=title, title_justify="left")
    return made


@functools.cache
def _literal_table_class() -> type[Table]:
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    def plain(value: Any) -> str | None:
        """A cell's text, or None when it is not one line of literal text whose style (if
        any) colours the text alone: a Text's own style would pad its line too, which a
        line of a multi-line cell cannot."""
        if isinstance(value, Text):
            return None if value.style else plain(value.plain)
        return value if isinstance(value, str) and "\n" not in value else None

    class LiteralTable(Table):
        def natural_width(self) -> int | None:
            """Columns at their widest cell plus padding (1 + 1) and rules (one per column
            and one more); None when a cell is not a single line of literal text."""
            total = len(self.columns) + 1
            for column in self.columns:
                texts = [plain(column.header), *(plain(c) for c in column.cells)]
                if any(t is None for t in texts):
                    return None
                total += 2 + max(cell_len(t) for t in texts if t is not None)
            return total

        def sections(self) -> list[list[int]]:
            """The row indexes of each section (a section ends at a row with end_section)."""
            found: list[list[int]] = [[]]
            for index, row in enumerate(self.rows):
                found[-1].append(index)
                if row.end_section and index < len(self.rows) - 1:
                    found.append([])
            return [s for s in found if s]

        def stacked(self) -> Table:
            """The same table with each section as one row of multi-line cells."""
            stacked = Table(title=self.title, title_justify=self.title_justify)
            for column in self.columns:
                stacked.add_column(column.header, justify=column.justify,
                                   overflow=column.overflow)
            cells = [[c if isinstance(c, Text) else Text(str(c)) for c in column.cells]
                     for column in self.columns]
            newline = Text("\n")
            for rows in self.sections():
                stacked.add_row(*(newline.join(column[i] for i in rows) for column in cells),
                                end_section=True)
            return stacked

        def __rich_console__(self, console: Any, options: Any) -> Any:
            width = self.natural_width()
            if (width is None or width > options.max_width or self.box is None
                    or not self.rows):
                return super().__rich_console__(console, options)
            return self.stacked().__rich_console__(console, options)

    return LiteralTable
