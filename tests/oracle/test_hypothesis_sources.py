"""The engines' sources are out of Hypothesis's local-constant scan; graphfit's stay in
(tests/oracle/hypothesis_sources.py, issue 23, s70m). No engine import: a file under the
sources' directory (made up, never imported) and one of graphfit's, asked of Hypothesis's own
`is_local_module_file`, the test its scan applies to each module."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphfit
from tests.oracle.hypothesis_sources import treat_as_installed
from tests.oracle.paths import cache_dir

constants_ast = pytest.importorskip("hypothesis.internal.constants_ast")


def test_the_engines_sources_are_not_scanned() -> None:
    # the oracle's conftest ran `treat_as_installed(cache_dir())` at configure time
    engine_file = cache_dir() / "sglang-0.5.23" / "sglang" / "srt" / "s70m_probe.py"
    assert not constants_ast.is_local_module_file(str(engine_file))
    assert constants_ast.is_local_module_file(graphfit.__file__)


def test_another_directory_joins_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "engine-sources"
    probe = root / "pkg" / "module.py"
    assert constants_ast.is_local_module_file(str(probe))
    assert treat_as_installed(root)
    # ModuleLocation.from_path caches per path: a path not asked before is judged afresh
    assert not constants_ast.is_local_module_file(str(root / "pkg" / "other.py"))
