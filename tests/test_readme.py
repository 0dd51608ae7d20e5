"""The README's planning example runs and prints what the README says it prints."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT


def test_planning_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "graphfit.plan(" in b and "verify(capacities=" in b)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == (
        "drafter.positions: num_tokens 129-132 pad to 136 > capacity 132")


def test_readme_starts_with_the_two_commands() -> None:
    first = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert first is not None
    lines = first.group(1).strip().splitlines()
    assert len(lines) == 2
    assert "graphfit plan --max-num-seqs 33 --num-speculative-tokens 3 --method dflash" in lines[0]
    assert "pytest tests" in lines[1]
