"""Measured graph-memory profiles (schema graphfit.graph-profile/1, written by
examples/gpu_check.py): read bounded and strict (graphfit.inputs.reading), then turned into
the planner's GraphMemoryModel (graphfit.planner.tuning.memory.profile_from_data)."""

from __future__ import annotations

from pathlib import Path

from graphfit.inputs.reading import load_json, parse_json, shown_path
from graphfit.planner.tuning.memory import GraphMemoryModel, profile_from_data


def parse_profile(text: str, source: str = "profile") -> GraphMemoryModel:
    """A profile document's JSON text -> a model (coefficients given or fitted)."""
    return profile_from_data(parse_json(text, f"profile {source}"), source)


def load_profile(path: str | Path) -> GraphMemoryModel:
    """Read a profile JSON file (see `parse_profile`)."""
    return profile_from_data(load_json(path, "profile"), shown_path(Path(path).name))
