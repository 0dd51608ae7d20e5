"""The README's planning example runs and prints what the README says it prints."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml

from tests.helpers import ROOT, run_cli


def test_planning_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "graphfit.plan(" in b and "verify(capacities=" in b)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == (
        "drafter.positions: num_tokens 132 pad to 136 > capacity 132")


def _graphfit_argv(line: str) -> list[str]:
    """The argv of a README `graphfit ...` command (after `&&` when installing first)."""
    words = shlex.split(line.split("&&")[-1].split(" #")[0])
    assert words[0] == "graphfit", line
    return words[1:]


def test_readme_starts_with_the_two_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    first = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert first is not None
    lines = first.group(1).strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("pip install -e . && graphfit plan -- vllm serve ")
    assert "pytest tests" in lines[1]
    # the pasted line is a real one, and the oracle corpus checks it against vLLM itself
    pasted = lines[0].split(" -- ", 1)[1]
    corpus = yaml.safe_load((ROOT / "tests/oracle/command_lines/"
                             "vllm_pr29102_qwen3next_mtp_dotted.yaml").read_text())
    assert " ".join(corpus["command"].split()) == pasted and corpus["expect"]["accepted"]
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)
    code, out, err = run_cli(_graphfit_argv(lines[0]))
    assert code == 0, err
    assert out.startswith("vLLM 0.33.0 V2 runner: SAFE")  # vLLM 0.33 picks V2
    assert "mtp k=4" in out and "SAFE: " in out.splitlines()[-1]
    notes = [n for n in err.splitlines() if n.startswith("note: not modelled")]
    assert notes == ["note: not modelled, ignored: --no-enable-prefix-caching, "
                     "--tensor-parallel-size"]


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_paste_section_commands_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `graphfit` command of the README's paste section runs (exit 0) from the repository
    root, reads its pasted line and prints the engine's verdict or its table."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)
    block = re.search(r"```bash\n(.*?)```", _section("Paste your serving command"), re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.startswith("graphfit ")]
    assert len(lines) >= 6
    for line in lines:
        argv = _graphfit_argv(line)
        if argv[0] == "sweep":
            argv[1:1] = ["--workers", "1"]
        code, out, err = run_cli(argv)
        assert code == 0, (line, err)
        assert "error:" not in err and out.strip(), line
