"""Every measure script's "before" run reads one frozen commit (issue 23, s69i).

tests.oracle.before_tree.frozen (s68f) copies a checkout's HEAD so that a merge landing in
/work/main mid-run cannot split a before figure across two commits; measure_root used it, but
about 45 scripts ran their before checkout live (a child with `PYTHONPATH=tree`, a module loaded
from `tree/graphfit/...`). They now pass the tree through `frozen`, themselves or through the
shared helper they call. Two checks: the scripts' text (each reaches `frozen`), and the two
shared child runners (measure_before.emit_before for the TensorRT-LLM scripts and
environ_leak; measure_sglang_prefill_cp.child_answers for the prefill-CP family) run on a
throwaway repository with an uncommitted edit, which must not be what the child reads.
Git and one short child each; no SGLang.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracle import measure_before

HERE = Path(__file__).resolve().parent

# the shared helpers that hand a before tree to a child or a module loader, each through
# `frozen`; a script calling one of them is frozen by it
HELPERS = ("measure_root", "measure_before", "measure_sglang_prefill_cp",
           "measure_sglang_minimax_kv", "measure_sglang_vit_remote_keys", "measure_sglang_vit",
           "measure_sglang_waterfill")

# how a script names a before tree: a default or an environment variable, an option, a
# positional checkout argument (GRAPHFIT_ROOT / BEFORE_ROOT) or a path put first on sys.path
# from the command line. s70m: measure_sglang_live_post_capture and measure_trtllm_adp, once
# exempt (graphfit from the caller's PYTHONPATH), now take BEFORE_ROOT / --before like the
# rest, and the quant scripts' `sys.path.insert(0, argv[..])` were read live (no `/work/main`
# in their text)
_BEFORE_TREE = re.compile(r"/work/main|GRAPHFIT_BEFORE|--before|GRAPHFIT_ROOT|BEFORE_ROOT"
                          r"|sys\.path\.insert\(0, (?:sys\.)?argv")


def _runs_a_before_tree(text: str) -> bool:
    return _BEFORE_TREE.search(text) is not None


def test_every_before_tree_goes_through_frozen() -> None:
    helpers = "|".join(HELPERS)
    uses_helper = re.compile(rf"from tests\.oracle(?:\.({helpers}) import| import ({helpers})\b)")
    for helper in HELPERS:  # a helper freezes itself or hands the tree to one that does
        text = (HERE / f"{helper}.py").read_text()
        assert "frozen(" in text or uses_helper.search(text), helper
    live = []
    for script in sorted(HERE.glob("measure_*.py")):
        text = script.read_text()
        if (not _runs_a_before_tree(text)
                or "frozen(" in text or uses_helper.search(text)):
            continue
        live.append(script.name)
    assert live == [], f"before trees read live (wrap them in before_tree.frozen): {live}"


def _repository(root: Path) -> Path:
    """A committed `graphfit.rule.ANSWER = 'committed'`, then an uncommitted edit to it."""
    (root / "graphfit").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "graphfit" / "__init__.py").write_text("")
    (root / "tests" / "__init__.py").write_text("")
    (root / "graphfit" / "rule.py").write_text("ANSWER = 'committed'\n")
    for args in (("init", "-q"), ("add", "."), ("commit", "-q", "-m", "one")):
        subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                        *args], check=True, capture_output=True)
    (root / "graphfit" / "rule.py").write_text("ANSWER = 'edited'\n")
    return root


def test_emit_before_reads_the_commit(tmp_path: Path) -> None:
    root = _repository(tmp_path / "before")
    script = tmp_path / "measure_probe.py"
    script.write_text("import graphfit.rule\n\n"
                      "def emit(items):\n    return [graphfit.rule.ANSWER, *items]\n")
    got = measure_before.emit_before(str(script), ["3", "--before", str(root)], [1])
    assert got == ["committed", 1]


def test_prefill_cp_children_read_the_commit(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.oracle import measure_sglang_prefill_cp as cp

    root = _repository(tmp_path / "before")
    monkeypatch.setenv("GRAPHFIT_BEFORE", str(root))
    child = "import json, graphfit.rule; print(json.dumps([graphfit.rule.ANSWER]))"
    assert cp.child_answers(child, []) == ["committed"]
    assert json.loads(subprocess.run([sys.executable, "-c", child], capture_output=True,
                                     text=True, check=True, cwd=root).stdout) == ["edited"]
