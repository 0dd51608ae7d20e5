"""The planner example reproduces the seed bug and shows graphfit's safe sizing."""

from __future__ import annotations

import runpy

import pytest

from tests.helpers import ROOT


def test_audit_example_finds_the_seed_bug(capsys: pytest.CaptureFixture[str]) -> None:
    module = runpy.run_path(str(ROOT / "examples" / "audit_sizing.py"))
    assert module["main"]() == 0
    out = capsys.readouterr().out
    assert "num_tokens 132 pad to 136 > capacity 132" in out
    assert "capacity 136" in out
