"""The README and the docs pages say what graphfit does: their commands run, their Python runs and
prints what they say, the README's pasted output is what the command prints, CI runs the README's
own test command, and every link points at a file that exists."""

from __future__ import annotations

import re
import shlex
from importlib.util import find_spec
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT, run_cli

README = ROOT / "README.md"
DOCS = ROOT / "docs"
SEED_LINE = "drafter.positions: num_tokens 132 pad to 136 > capacity 132"


def _blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), re.S)


@pytest.mark.parametrize("page", [README, DOCS / "engine-developers" / "planning.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_planning_example_runs(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    block = next(b for b in _blocks(page, "python")
                 if "graphfit.plan(" in b and "verify(capacities=" in b)
    exec(compile(block, str(page), "exec"), {})
    assert capsys.readouterr().out.strip() == SEED_LINE


def test_readme_library_comments_are_what_the_calls_return() -> None:
    """The ten lines' comments state return values: each is checked against the call."""
    import graphfit

    config = graphfit.EngineConfig(max_num_seqs=33, num_speculative_tokens=3,
                                   spec_method="dflash", runner="v1", ladder="vllm-legacy",
                                   engine_version="0.33.0")
    plan = graphfit.plan(config)
    text = README.read_text()
    assert repr(plan.pad(132, component="drafter")).replace(
        "<CUDAGraphMode.PIECEWISE: 'PIECEWISE'>", "PIECEWISE") in text
    buffer = plan.buffer("drafter.positions")
    assert f"# {buffer.capacity}: graphfit's capacity; vLLM allocates " \
           f"{buffer.reference_capacity}" in text


def _graphfit_argv(line: str) -> list[str]:
    """The argv of a `graphfit ...` command (after `&&` when installing first)."""
    words = shlex.split(line.split("&&")[-1], comments=True)
    assert words[0] == "graphfit", line
    return words[1:]


def _two_commands() -> list[str]:
    first = _blocks(README, "bash")[0]
    return first.strip().splitlines()


def test_readme_starts_with_the_two_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _two_commands()
    assert len(lines) == 2
    assert lines[0].startswith("pip install -e . && graphfit plan -- vllm serve ")
    assert lines[1].startswith('pip install -e ".[test]" ') and "pytest tests" in lines[1]
    # the pasted line is a real one, and the oracle corpus checks it against vLLM itself
    pasted = lines[0].split(" -- ", 1)[1]
    corpus = yaml.safe_load((ROOT / "tests/oracle/command_lines/"
                             "vllm_pr29102_qwen3next_mtp_dotted.yaml").read_text())
    assert " ".join(corpus["command"].split()) == pasted and corpus["expect"]["accepted"]
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)
    code, out, err = run_cli(_graphfit_argv(lines[0]))
    assert code == 0, err
    assert out.startswith("vLLM 0.34.0 V2 runner: SAFE")  # the default release: V2 only
    assert "mtp k=4" in out and "SAFE: " in out.splitlines()[-1]
    notes = [n for n in err.splitlines() if n.startswith("note: not modelled")]
    assert notes == ["note: not modelled, ignored: --no-enable-prefix-caching, "
                     "--tensor-parallel-size"]


def test_readme_output_is_what_the_first_command_prints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pasted output under `<!-- readme-output: COLUMNS=N ... -->` is the first command's
    stdout at that width, line for line (trailing spaces aside)."""
    text = README.read_text()
    found = re.search(r"<!-- readme-output: COLUMNS=(\d+)[^>]*-->\n```text\n(.*?)```", text, re.S)
    assert found is not None
    monkeypatch.setenv("COLUMNS", found.group(1))
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)
    code, out, _ = run_cli(_graphfit_argv(_two_commands()[0]))
    assert code == 0
    printed = [line.rstrip() for line in out.strip().splitlines()]
    assert [line.rstrip() for line in found.group(2).strip().splitlines()] == printed


def test_ci_runs_the_readme_test_command_as_written() -> None:
    """`.ci/run` takes the line to run from the README with this pattern: it must find the
    README's second command, exactly."""
    script = (ROOT / ".ci" / "run").read_text()
    pattern = re.search(r"grep -m1 '([^']+)' README\.md", script)
    assert pattern is not None
    matches = [line for line in README.read_text().splitlines()
               if re.match(pattern.group(1).replace("\\.", r"\.").replace('\\"', '"'), line)]
    assert matches[:1] == [_two_commands()[1]]
    assert 'bash -c "$test_command"' in script and "GRAPHFIT_REQUIRE_ORACLE=1" in script


def test_readme_is_a_landing_page() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


# --- the docs pages' commands -------------------------------------------------------------

# a page's data file that its commands read: yaml blocks name themselves in their first line
# (`# serve.yaml`); the memory page's profile is said in its prose
NAMED_JSON = {"operators/memory.md": "h200.json"}


def _commands(page: Path) -> list[str]:
    """`graphfit` command lines of a page's bash/console blocks, continuations joined."""
    lines: list[str] = []
    for lang in ("bash", "console"):
        for block in _blocks(page, lang):
            joined = re.sub(r"\\\n\s*", " ", block)
            for line in joined.splitlines():
                if lang == "console":  # a command is a `$ ` line; the rest is its output
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                line = line.strip()
                if re.match(r"^([A-Z_]+=\S+ )*graphfit ", line):
                    lines.append(line)
    return lines


def _data_files(page: Path, where: Path) -> None:
    for block in _blocks(page, "yaml"):
        first = block.splitlines()[0]
        if re.fullmatch(r"# [\w.-]+\.yaml.*", first):
            (where / first.split()[1]).write_text(block)
    name = NAMED_JSON.get(str(page.relative_to(DOCS)))
    if name:
        (where / name).write_text(_blocks(page, "json")[0])


def _expected_exit(line: str) -> int:
    said = re.search(r"# exit (\d)", line)
    return int(said.group(1)) if said else 0


def _run_line(line: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, str]]:
    """Run `A && B > file` the way a shell would, in-process."""
    results = []
    for part in line.split(" && "):
        words = shlex.split(part, comments=True)
        while re.match(r"^[A-Z_]+=", words[0]):
            key, _, value = words.pop(0).partition("=")
            monkeypatch.setenv(key, value)
        target = None
        if ">" in words:
            at = words.index(">")
            target, words = words[at + 1], words[:at]
        assert words[0] == "graphfit", line
        code, out, err = run_cli(words[1:])
        if target:
            Path(target).write_text(out)
        results.append((code, out, err))
    return results


PAGES = sorted(p for p in DOCS.rglob("*.md") if _commands(p))


def test_docs_pages_have_commands() -> None:
    assert {p.relative_to(DOCS).as_posix() for p in PAGES} >= {
        "operators/paste.md", "operators/command-line.md", "operators/engine-inputs.md",
        "operators/sweeps.md", "operators/optimize.md", "operators/memory.md",
        "operators/reports.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_docs_page_commands_run(page: Path, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `graphfit` command of the page runs from a folder holding the repository's examples
    and the page's own data files, exits as its comment says (`# exit 1`; else 0), and prints."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    _data_files(page, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VLLM_USE_V2_MODEL_RUNNER", raising=False)
    for line in _commands(page):
        if ("--svg" in line or "--png" in line) and find_spec("matplotlib") is None:
            pytest.skip("matplotlib is not installed: pip install -e '.[report]'")
        if " sweep " in f" {line} " and "--workers" not in line:
            line = line.replace("graphfit sweep ", "graphfit sweep --workers 1 ", 1)
        results = _run_line(line, monkeypatch)
        code, out, err = results[-1]
        assert code == _expected_exit(line), (line, err[-400:])
        # every step but the last succeeds; the last exits as its comment says (a page may show
        # a refused line: `# exit 2`)
        assert all(c in (0, 1) for c, _, _ in results[:-1]), (line, err[-400:])
        if code == 2:  # a refusal prints its one `error:` line on stderr, nothing on stdout
            assert err.strip().startswith("error: ") and "Traceback" not in err, (line, err)
            continue
        assert out.strip() or any(o.strip() for _, o, _ in results), line
        if code == 0:
            assert "error:" not in err, (line, err[-400:])
