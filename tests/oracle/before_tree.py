"""A "before" checkout frozen for the length of a measure (issue 23, s68f). Not a test.

The measure scripts score another checkout (BEFORE_ROOT, default /work/main) against this
tree. That checkout is live: a merge into it while a measure runs changes its files under the
run, and Python imports most of graphfit lazily (the CLI's modules at the first plan, the
engines' rule modules at their first line), so one run can take some modules from before the
merge and the rest from after it, or pair a test module collected before the merge with graphfit
modules imported after it, or read a file git is rewriting. s68x's one `pytest exit 1` of the
draft-dispatch + draft-entries pair (wave1/issue-23-s68x.md, Left) came from a before run on
/work/main in the window when s68m's and s68d's merges (10:01:59, 10:11:48 UTC) changed
graphfit/inputs/sglang_draft_a2a.py, tests/oracle/sglang_draft_build.py and the dispatch
module's own cases; the same pair on a fixed tree passed every run (the timing points here; the
failed run itself was not replayed: docs/engines/sglang-coverage.md, the s68f section).

`frozen(root)` copies the committed tree of `root`'s HEAD (`git archive`: graphfit, tests and
pyproject.toml, which holds pytest's settings) into a temporary directory once per process and
returns that directory, so every before run of a measure reads one commit. A root that is not a
git work tree is returned as it is. Uncommitted changes in `root` are not in the copy (said on
stderr): the before figure is a commit's. Imports no graphfit (measure_root's contract).
"""

from __future__ import annotations

import atexit
import functools
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PATHS = ("graphfit", "tests", "pyproject.toml")  # what a before run imports or reads


def _git(root: Path, *args: str) -> str | None:
    """`git -C root ARGS`'s stdout, None where git fails (not a work tree, no HEAD)."""
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() if done.returncode == 0 else None


@functools.cache
def frozen(root: str) -> str:
    """`root`'s HEAD commit's graphfit, tests and pyproject.toml in a temporary directory (removed
    at exit), or `root` itself where it is not a git work tree. Cached: one copy per process."""
    path = Path(root).resolve()
    commit = _git(path, "rev-parse", "--verify", "HEAD")
    if commit is None or _git(path, "rev-parse", "--show-toplevel") != str(path):
        return root
    present = [p for p in PATHS if (path / p).exists()]
    archive = subprocess.run(["git", "-C", str(path), "archive", "--format=tar", commit,
                              *present], capture_output=True, check=True).stdout
    copy = Path(tempfile.mkdtemp(prefix=f"graphfit-before-{commit[:8]}-"))
    atexit.register(shutil.rmtree, copy, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+; CI's 3.11.2 has no `filter`
            tar.extractall(copy, filter="data")
        else:  # the archive is git's own of a local commit
            tar.extractall(copy)
    dirty = _git(path, "status", "--porcelain", "--untracked-files=no", "--", *present)
    print(f"before: {root} at {commit[:12]} (its committed tree, copied to {copy}"
          f"{'; uncommitted changes left out' if dirty else ''})", file=sys.stderr)
    return str(copy)
