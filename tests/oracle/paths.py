"""Where the engines' extracted sources live, which version a process runs, and what a test
does when they are missing.

`python tests/oracle/fetch.py` fills `$GRAPHFIT_ORACLE_DIR` (default
`~/.cache/graphfit-oracle`) with `<name>-<version>/` trees holding only the wheels' *.py files
(a `.complete` marker says the extraction finished); `tests/oracle/conftest.py` runs it once per
test session, before the oracle modules are collected (`GRAPHFIT_ORACLE_FETCH=0` turns that off,
for a machine without a package index). Locally an absent tree skips the oracle
tests with a reason; CI sets `GRAPHFIT_REQUIRE_ORACLE=1`, which turns the skip into a failure,
so CI can never pass without running them -- for every version in `ENGINES`.

A Python process can import one vLLM only (its modules register themselves globally), so a
process runs the oracle of ONE version per engine: `$GRAPHFIT_ORACLE_<ENGINE>` (e.g.
`GRAPHFIT_ORACLE_VLLM=0.34.0`) selects it, default `PRIMARY[name]`. The other versions run in
their own pytest processes (tests/oracle/test_vllm_versions.py starts them).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Every engine version graphfit models and proves against its own wheel; add one here (and run
# fetch.py) to aim at a new release (docs/maintainers/vllm-releases.md).
ENGINES: dict[str, tuple[str, ...]] = {
    "vllm": ("0.32.0", "0.33.0", "0.34.0"),
    "sglang": ("0.5.23",),
}
# The version the main test process imports (the oracle modules without a version in their
# name were written against it).
PRIMARY: dict[str, str] = {"vllm": "0.33.0", "sglang": "0.5.23"}


def env_var(name: str) -> str:
    return f"GRAPHFIT_ORACLE_{name.upper()}"


def version(name: str) -> str:
    """The version of `name` this process runs its oracle against."""
    chosen = os.environ.get(env_var(name)) or PRIMARY[name]
    # a release not pinned yet is accepted once fetched (tests/oracle/add_vllm_release.py
    # measures a new release before it is added to ENGINES)
    if chosen not in ENGINES[name] and not (cache_dir() / f"{name}-{chosen}" / ".complete"
                                            ).is_file():
        raise ValueError(f"{env_var(name)}={chosen}: not one of {', '.join(ENGINES[name])} "
                         f"(nor fetched)")
    return chosen


def cache_dir() -> Path:
    return Path(os.environ.get("GRAPHFIT_ORACLE_DIR", Path.home() / ".cache" / "graphfit-oracle"))


def source_root(name: str, ver: str | None = None) -> Path:
    """The directory holding the engine's package (`<root>/vllm/__init__.py`)."""
    return cache_dir() / f"{name}-{ver or version(name)}"


def available(name: str, ver: str | None = None) -> bool:
    root = source_root(name, ver)
    return (root / name / "__init__.py").is_file() and (root / ".complete").is_file()


def missing(name: str, ver: str | None = None) -> None:
    """Skip (locally) / fail (CI) because `name==ver` was not fetched."""
    ver = ver or version(name)
    reason = (f"{name}=={ver} sources not found under {source_root(name, ver)}: "
              f"run `python tests/oracle/fetch.py {name} {ver}`")
    if os.environ.get("GRAPHFIT_REQUIRE_ORACLE") == "1":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)  # several modules call this at import


def require(name: str, ver: str | None = None) -> Path:
    """The engine's source root for this process's version, or skip / fail when absent."""
    if not available(name, ver):
        missing(name, ver)
    return source_root(name, ver)
