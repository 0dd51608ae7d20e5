"""Test helpers shared by several modules: the CLI in-process, examples as modules."""

from __future__ import annotations

import importlib.util
import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from graphfit import GraphfitError
from graphfit.cli import main

ROOT = Path(__file__).resolve().parents[1]

# Rendering a report needs matplotlib (the `report` extra, which `.[test]` pulls in); without it
# the rendering tests skip with the reason instead of failing.
needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed: pip install -e '.[report]' (or '.[test]')")


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the real entry point, run in-process."""
    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    assert isinstance(code, int), code
    return code, out.getvalue(), err.getvalue()


def load_module(path: Path, name: str) -> ModuleType:
    """Import a script as a named module (dataclasses and dynamo look classes up by module)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def only_graphfit_errors(call: Any) -> Any:
    """The call's result, or None when it raised a GraphfitError (anything else fails)."""
    try:
        return call()
    except GraphfitError:
        return None


def saved_plan(tmp_path: Path, out: str) -> Path:
    """`out` (a `plan --json` document) written to tmp_path/plan.json, a file `check --plan`
    accepts (exit 0); the path, for the callers that edit it and check again."""
    saved = tmp_path / "plan.json"
    saved.write_text(out)
    assert run_cli(["check", "--plan", str(saved)])[0] == 0
    return saved
