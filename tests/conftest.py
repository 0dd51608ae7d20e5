"""Shared test set-up: hypothesis profiles (`ci` is derandomized and bounded), and modules
whose optional dependency is missing skip with the reason instead of failing to import."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=60, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# test folders whose modules import torch: the runtime's, and the oracle's (the engines' own
# code imports it)
NEEDS_TORCH = {"cudagraph": "the runtime tests", "oracle": "the oracle tests"}


def installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules: not importable
        return False


class MissingDependency(pytest.Module):
    """A test module that is not imported, because what it imports is not installed: it is
    reported as skipped, with the reason, like `pytest.importorskip` at its top."""

    reason = ""

    def _getobj(self) -> Any:
        pytest.skip(self.reason, allow_module_level=True)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    folder = module_path.parent.name
    if folder not in NEEDS_TORCH or not module_path.name.startswith("test_") \
            or installed("torch"):
        return None
    if folder == "oracle" and os.environ.get("GRAPHFIT_REQUIRE_ORACLE") == "1":
        return None  # CI: the oracle never skips; a missing torch fails at import
    module = MissingDependency.from_parent(parent, path=module_path)
    module.reason = (f"torch is not installed, which {NEEDS_TORCH[folder]} need: "
                     f"pip install -e '.[test]' 'torch==2.13.0'")
    return module
