"""Bug-corpus case files (tests/corpus/*.yaml|json): read bounded and strict
(graphfit.inputs.reading), then validated by graphfit.planner.analysis.corpus."""

from __future__ import annotations

from pathlib import Path

from graphfit.inputs.reading import load_data, shown_path
from graphfit.planner.analysis.corpus import Case, case_from_data

SUFFIXES = (".yaml", ".yml", ".json")


def load_case(path: str | Path) -> Case:
    """Read and validate one case file (.yaml/.yml or .json)."""
    p = Path(path)
    return case_from_data(load_data(p, "case"), shown_path(p.name), str(p))


def case_files(folder: str | Path) -> list[Path]:
    """Every case file of a folder, sorted."""
    return sorted(p for p in Path(folder).iterdir()
                  if p.suffix.lower() in SUFFIXES and p.is_file())
