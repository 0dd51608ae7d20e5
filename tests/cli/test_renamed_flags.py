"""Lines written for older releases: refused with the new spelling first (flags/renamed.json).

The engines' own parsers refuse the same old spellings and accept the new ones:
tests/oracle/test_line_defaults_oracle.py::test_renamed_table_matches_the_engines.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from graphfit.cli.errors import error_line
from graphfit.inputs import flagtable, renamed
from graphfit.planner.core.limits import MAX_ERROR_CHARS
from tests.helpers import run_cli

ENTRIES: list[dict[str, Any]] = json.loads(
    resources.files("graphfit.inputs").joinpath("flags/renamed.json").read_text())["entries"]
TABLES = {"vllm": ("vllm", "serve"), "sglang": ("sglang", "server")}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["old"])
def test_old_spelling_is_refused_with_the_new_one_first(entry: dict[str, Any]) -> None:
    code, _, err = run_cli(["plan", "--", entry["example"]])
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    if entry["kind"] == "environment":  # the engine does not refuse it: a note
        assert code == 0 and not errors, err
        assert any(line.startswith(f"note: {entry['old']}=") and entry["use"] in line
                   for line in err.splitlines())
        return
    assert code == 2 and len(errors) == 1, err
    advice = entry["new"] if entry["kind"] == "renamed" else entry["use"]
    assert errors[0].startswith(f"error: {'use ' if entry['kind'] == 'renamed' else ''}"
                                f"{advice}"), errors[0]
    assert len(errors[0]) <= MAX_ERROR_CHARS


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["kind"] == "renamed"],
                         ids=lambda e: e["old"])
def test_new_spelling_is_a_flag_of_the_current_table(entry: dict[str, Any]) -> None:
    engine, parser = TABLES[entry["engine"]]
    table = flagtable.load(engine)
    new = entry["new"].split()[0]
    assert new in table.options(parser), new


def test_advice_survives_a_huge_echoed_value() -> None:
    """The engine's words echo the line: they are cut, the advice never is."""
    huge = " ".join(["1"] * 4000)  # huge, yet within MAX_PASTE_WORDS (4,096)
    code, _, err = run_cli(["plan", "--", f"vllm serve m --cuda-graph-sizes {huge}"])
    line = err.strip().splitlines()[-1]
    assert code == 2 and line.startswith("error: use --cudagraph-capture-sizes: ")
    assert error_line(line.removeprefix("error: ")) == line  # not cut again in the middle
    assert len(line) <= MAX_ERROR_CHARS


def test_every_entry_cites_a_source() -> None:
    for entry in renamed.table():
        assert entry.source and entry.since
