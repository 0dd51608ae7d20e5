"""The Public API page names exactly what the public modules export (docs stay true)."""

from __future__ import annotations

import re
from pathlib import Path

import graphfit

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "public-api.md"


def _section(title: str) -> str:
    text = PAGE.read_text()
    start = text.index(f"## `{title}`")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def _named(section: str) -> set[str]:
    return {m.split("(")[0] for m in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\([^`]*\))?`",
                                                 section)}


def test_every_graphfit_export_is_on_the_page_and_former_ones_are_not_exported() -> None:
    public = set(graphfit.__all__) - {"__version__"}
    assert public <= _named(_section("graphfit"))
    former = {"BatchFamily", "Demand", "Ladder", "Requests", "RowRule", "Stream"}
    assert not former & public and not former & set(dir(graphfit))
    for name in former:  # old code keeps working
        assert getattr(graphfit, name) is getattr(__import__("graphfit.planner").planner, name)


def test_every_runtime_export_is_on_the_page() -> None:
    import graphfit.cudagraph as runtime

    assert set(runtime.__all__) <= _named(_section("graphfit.cudagraph"))
