"""docs/engine-developers/buffer-catalogue.md is what the planner generates (never stale)."""

from __future__ import annotations

import runpy

from tests.helpers import ROOT


def test_buffer_catalogue_is_generated_from_the_planner() -> None:
    module = runpy.run_path(str(ROOT / "docs" / "engine-developers" / "catalogue.py"))
    text = (ROOT / "docs" / "engine-developers" / "buffer-catalogue.md").read_text()
    assert text == module["render"](), "stale: run python docs/engine-developers/catalogue.py"
