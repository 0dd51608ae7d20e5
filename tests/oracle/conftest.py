"""Fixtures shared by the oracle modules: the engines' own argument parsers, bootstrapped once
per module (each skips locally, or fails in CI, when its engine's sources are absent).

The engines' sources are fetched on first use: the first file pytest collects under
`tests/oracle/` runs `fetch.py` once (every entry of `paths.ENGINES`; a tree already there is
kept), so `python -m pytest tests` works on a fresh machine with nothing fetched beforehand.
A failed download is a warning; the modules then skip with the reason (or fail in CI, where
`GRAPHFIT_REQUIRE_ORACLE=1`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.environ_patch import SGLANG_WRITES, restoring_prefixed
from tests.oracle.paths import require

FETCH = Path(__file__).resolve().parent / "fetch.py"
_fetched: list[bool] = []  # one fetch per session, whatever is collected first


def _fetch_engine_sources(config: pytest.Config) -> None:
    """Run `fetch.py` (no arguments: every engine and version paths.ENGINES pins)."""
    if _fetched or os.environ.get("GRAPHFIT_ORACLE_FETCH") == "0":
        return
    _fetched.append(True)
    done = subprocess.run([sys.executable, str(FETCH)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        warnings.warn(f"fetching the engines' sources failed ({' '.join(tail)}): the oracle "
                      "tests skip (or fail in CI)", stacklevel=1)
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and config.get_verbosity() > 0:
        for line in done.stdout.splitlines():
            reporter.write_line(f"oracle sources: {line}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> None:
    """Before the first oracle module is imported (several call `require` at import)."""
    _fetch_engine_sources(parent.config)


@pytest.fixture(autouse=True)
def _sglang_environment_restored() -> Any:
    """Each test starts from the process environment the one before it started from.

    SGLang's argument hooks write the process environment as they resolve a line
    (`envs.SGLANG_USE_CUDA_IPC_TRANSPORT.set(...)`, arg_groups/serving_hook.py:940;
    `SGLANG_MAMBA_SSM_DTYPE`, :440; Qwen3-VL's cache sizes, model_overrides/qwen3_vl.py:95,
    121; ...), as a real server does once per process. Here one process resolves thousands
    of lines, so what one test's lines leave behind would change what a later test's lines
    resolve to (a `cuda_ipc` line left the legacy switch on, and every ROCm line after it
    was refused). Only the variables SGLang writes are restored; vLLM's bootstrap defaults
    stay.
    """
    with restoring_prefixed(os.environ, SGLANG_WRITES):
        yield


@pytest.fixture(autouse=True)
def _logging_switch_restored() -> Any:
    """Each test gives back the process's `logging.disable` level as it found it.

    The oracle measures quiet SGLang's INFO logs with `logging.disable(logging.WARNING)`, and
    tests call their line helpers; left on, it silenced every later test that reads a log
    (the plugin's check line, vLLM's metrics log) in the same process.
    """
    before = logging.root.manager.disable
    yield
    logging.disable(before)


@pytest.fixture(scope="module")
def va() -> Any:
    """vLLM 0.33's FlexibleArgumentParser / EngineArgs, run from the pinned sources."""
    require("vllm")
    from tests.oracle import vllm_args_oracle

    vllm_args_oracle.bootstrap()
    return vllm_args_oracle


@pytest.fixture(scope="module")
def sa() -> Any:
    """SGLang 0.5.23's ServerArgs parser, run from the pinned sources."""
    require("sglang")
    from tests.oracle import sglang_args_oracle

    sglang_args_oracle.bootstrap()
    return sglang_args_oracle


def pytest_configure(config: pytest.Config) -> None:
    """The engines' sources are not scanned for Hypothesis's local constants (s70m):
    tests/oracle/hypothesis_sources.py says why."""
    from tests.oracle.hypothesis_sources import treat_as_installed
    from tests.oracle.paths import cache_dir

    treat_as_installed(cache_dir())
