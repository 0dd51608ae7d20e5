"""graphfit.cli.tables: a table printed a section at a time is the table printed row by row.

The invariant: for every plan table (ladder, padding, buffers, explain) of generated configs,
at every console width, a literal table prints exactly the lines rich prints for a plain
Table holding the same rows; it only chooses the faster layout where that cannot differ.
"""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from graphfit import EngineConfig, plan
from graphfit.cli.render import buffers_table, explain_table, ladder_table, padding_table
from graphfit.cli.tables import add_row, cell, literal_table
from tests.strategies import plan_or_reject, vllm_configs


def _printed(table: Any, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), highlight=False, emoji=False,
                      color_system="truecolor", force_terminal=True)  # styles printed too
    console.print(table)
    out = console.file.getvalue()
    assert isinstance(out, str)
    return out


def _row_by_row(table: Table) -> Table:
    """A plain rich Table with the same title, columns and rows."""
    plain = Table(title=table.title, title_justify=table.title_justify)
    for column in table.columns:
        plain.add_column(column.header, justify=column.justify, overflow=column.overflow)
    cells = [list(column.cells) for column in table.columns]
    for index, row in enumerate(table.rows):
        plain.add_row(*(column[index] for column in cells), end_section=row.end_section)
    return plain


def _same(table: Table, width: int) -> None:
    assert _printed(table, width) == _printed(_row_by_row(table), width), width


WIDTHS = st.integers(min_value=30, max_value=240)


@settings(max_examples=40, deadline=None)
@given(config=vllm_configs(max_seqs=80), width=WIDTHS)
def test_plan_tables_print_as_rich_prints_them_row_by_row(config: EngineConfig,
                                                          width: int) -> None:
    result = plan_or_reject(config)
    for table in (ladder_table(result), padding_table(result), buffers_table(result, width)):
        _same(table, width)


@settings(max_examples=20, deadline=None)
@given(num_tokens=st.integers(1, 300), width=WIDTHS)
def test_explain_table_prints_as_row_by_row(num_tokens: int, width: int) -> None:
    result = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                               runner="v1", engine_version="0.33.0", ladder="vllm-legacy"))
    _same(explain_table(result, num_tokens, uniform_decode=False, num_reqs=None), width)


def test_styled_cells_keep_their_colour_in_either_layout() -> None:
    result = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                               runner="v1", engine_version="0.33.0", ladder="vllm-legacy"))
    table: Any = explain_table(result, 132, uniform_decode=True, num_reqs=None)
    fits = table.natural_width()
    assert fits is not None
    for width in (fits, fits - 1):  # sections stacked; then row by row
        _same(table, width)
        assert "\x1b[32myes\x1b[0m" in _printed(table, width)  # green, its padding plain


CELLS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(CELLS, min_size=3, max_size=3), min_size=1, max_size=6),
       section=st.integers(0, 6), justify=st.sampled_from(["left", "right", "center"]),
       width=st.integers(10, 120))
def test_any_literal_table_prints_as_row_by_row(rows: list[list[str]], section: int,
                                                justify: str, width: int) -> None:
    table = literal_table("t [bold]x[/bold]")
    table.add_column("a")
    table.add_column("b [red]", justify=justify)  # type: ignore[arg-type]
    table.add_column("c", overflow="fold")
    for index, row in enumerate(rows):
        add_row(table, row[0], cell(row[1], "green"), row[2], end_section=index == section)
    _same(table, width)


@settings(max_examples=30, deadline=None)
@given(config=vllm_configs(max_seqs=80), width=st.integers(min_value=80, max_value=260))
def test_buffer_names_are_never_cut(config: EngineConfig, width: int) -> None:
    """At any width the buffer table shows every column when they all fit, else switches to
    the compact table before a buffer name would be cut (`target.in…` at 120-150 columns)."""
    p = plan_or_reject(config)
    table = buffers_table(p, width)
    out = _printed(table, width)
    longest = max(len(b.key) for comp in p.components.values() for b in comp.buffers)
    if longest + 40 <= width:  # the compact table's other columns fit beside the names
        for comp in p.components.values():
            for b in comp.buffers:
                assert f" {b.key} " in out, (b.key, width)
        assert "…" not in out
    full = "pad fill" in out
    assert full == (buffers_table(p, None).natural_width() <= width)  # type: ignore[attr-defined]


def test_plan_switches_to_the_compact_buffer_table_where_names_would_be_cut(
        monkeypatch: Any) -> None:
    from tests.helpers import run_cli

    seed = ["plan", "--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"]
    for width, full in ((125, False), (150, False), (200, True)):
        monkeypatch.setenv("COLUMNS", str(width))
        code, out, _ = run_cli(seed)
        assert code == 0 and "…" not in out, width
        assert "target.query_start_loc" in out and ("pad fill" in out) == full, width
        # one quantity per cell: the worst padding and where it happens are two columns
        assert "worst pad (tokens)" in out and "at batch (tokens)" in out and " at " not in \
            out.split("Padding")[1].split("Persistent")[0].split("┩")[1]


def test_report_help_keeps_the_extra_name() -> None:
    """`graphfit[report]` in the --svg/--png help is not eaten as rich markup."""
    from tests.helpers import run_cli

    code, out, _ = run_cli(["plan", "--help"])
    assert code == 0 and out.count("graphfit[report]") == 2, out
