"""Where the engines' extracted sources live, and what a test does when they are missing.

`python tests/oracle/fetch.py` fills `$GRAPHFIT_ORACLE_DIR` (default
`~/.cache/graphfit-oracle`) with `<name>-<version>/` trees holding only the wheels' *.py files;
`tests/oracle/conftest.py` runs it once per test session, before the oracle modules are collected
(`GRAPHFIT_ORACLE_FETCH=0` turns that off, for a machine without a package index).
Locally an absent tree skips the oracle tests with a reason; CI sets
`GRAPHFIT_REQUIRE_ORACLE=1`, which turns the skip into a failure, so CI can never pass without
running them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The engine versions graphfit models; bump these (and re-run fetch.py) to aim at a newer one.
ENGINES = {"vllm": "0.33.0", "sglang": "0.5.23"}


def cache_dir() -> Path:
    return Path(os.environ.get("GRAPHFIT_ORACLE_DIR", Path.home() / ".cache" / "graphfit-oracle"))


def source_root(name: str) -> Path:
    """The directory holding the engine's package (`<root>/vllm/__init__.py`)."""
    return cache_dir() / f"{name}-{ENGINES[name]}"


def require(name: str) -> Path:
    """The engine's source root, or skip (locally) / fail (CI) when it was not fetched."""
    root = source_root(name)
    if (root / name / "__init__.py").is_file():
        return root
    reason = (f"{name}=={ENGINES[name]} sources not found under {root}: "
              f"run `python tests/oracle/fetch.py {name}`")
    if os.environ.get("GRAPHFIT_REQUIRE_ORACLE") == "1":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # several modules call this at import
