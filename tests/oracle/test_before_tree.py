"""The measure scripts' before checkout is one commit for the whole run (issue 23, s68f).

tests.oracle.before_tree.frozen copies a git checkout's HEAD: a commit made in the checkout
afterwards (a merge into /work/main while a measure runs) and uncommitted edits stay out of the
copy; a directory outside git is used as it is. A throwaway repository in tmp_path, git only
(no SGLang, no graphfit import; well under a second)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.oracle import before_tree


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True)


def _checkout(root: Path) -> Path:
    (root / "graphfit").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "graphfit" / "rule.py").write_text("ANSWER = 'before'\n")
    (root / "tests" / "test_rule.py").write_text("CASES = 1\n")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (root / "README.md").write_text("not copied\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    return root


def test_the_copy_is_the_commit_and_stays_so(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "main")
    copy = Path(before_tree.frozen(str(root)))
    assert copy != root and (copy / "graphfit" / "rule.py").read_text() == "ANSWER = 'before'\n"
    assert (copy / "tests" / "test_rule.py").is_file() and (copy / "pyproject.toml").is_file()
    assert not (copy / "README.md").exists()
    # a merge lands in the checkout mid-run, then an uncommitted edit: the copy keeps the commit
    (root / "graphfit" / "rule.py").write_text("ANSWER = 'merged'\n")
    (root / "graphfit" / "new.py").write_text("X = 1\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "merge")
    (root / "tests" / "test_rule.py").write_text("CASES = 2\n")
    assert before_tree.frozen(str(root)) == str(copy)  # one copy per process
    assert (copy / "graphfit" / "rule.py").read_text() == "ANSWER = 'before'\n"
    assert not (copy / "graphfit" / "new.py").exists()
    assert (copy / "tests" / "test_rule.py").read_text() == "CASES = 1\n"


def test_uncommitted_edits_stay_out(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "main")
    (root / "graphfit" / "rule.py").write_text("ANSWER = 'edited'\n")
    copy = Path(before_tree.frozen(str(root)))
    assert (copy / "graphfit" / "rule.py").read_text() == "ANSWER = 'before'\n"


def test_a_directory_outside_git_is_used_as_is(tmp_path: Path) -> None:
    plain = tmp_path / "outside"  # tmp_path is not in a git work tree
    (plain / "graphfit").mkdir(parents=True)
    assert before_tree.frozen(str(plain)) == str(plain)
