"""The oracle modules hold whichever of them imports vLLM first in a session.

Some of vLLM's modules bind the platform object when imported (vllm/engine/arg_utils.py:122,
whose `--mm-processor-device` choices, :1568-1573, follow its device type), and
each oracle needs its own platform at run time (the args oracle a GPU, vllm_oracle's buffers
the CPU). tests/oracle/vllm_args_oracle._bootstrap makes every first import the same; this
runs a fast test of each oracle after each other one, in a fresh interpreter each time, so an
order pytest never happens to pick cannot break them.

The three interpreters start together, at the first of the three tests (issue 23, s70m): each is
the same fresh `python -m pytest` as before, and each test still judges its own; started one after
another they cost three vLLM imports end to end while this process waited on one core, and CI has
two.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.oracle.paths import require

FIRST_IMPORTERS = {  # a fast test that makes its oracle import vLLM
    "metrics": "tests/oracle/test_trace_formats.py::test_cudagraph_metrics_log_is_vllms_own",
    "buffers": "tests/oracle/test_vllm_oracle.py::test_oracle_config_ladder_matches_vllm_source",
    "args": "tests/oracle/test_args_oracle.py::test_vllm_config_objects_on_cpu",
}
PLATFORM_READERS = [  # tests that failed when another oracle imported vLLM first
    "tests/oracle/test_paste_oracle.py::test_vllm_flag_table_is_the_engines",
    "tests/oracle/test_args_oracle.py::test_vllm_config_objects_on_cpu",
    "tests/oracle/test_vllm_oracle.py::test_oracle_v2_and_buffers",
    "tests/oracle/test_embedding_oracle.py::test_from_vllm_model_runner_v2_and_overrides",
]


def _child(first: str, out: Path) -> subprocess.Popen[bytes]:
    """A fresh interpreter running `first`'s test, then every platform reader; its output goes
    to `out` (a file: a full pipe would stall a child no one reads yet)."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    with out.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
             FIRST_IMPORTERS[first], *PLATFORM_READERS],
            stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[dict[str, tuple[subprocess.Popen[bytes], Path]]]:
    """Every first importer's interpreter, started at once, with its output file; any still
    running at the end of the module is stopped."""
    require("vllm")
    folder = tmp_path_factory.mktemp("import-order")
    started = {first: (_child(first, folder / f"{first}.txt"), folder / f"{first}.txt")
               for first in sorted(FIRST_IMPORTERS)}
    yield started
    for child, _ in started.values():
        if child.poll() is None:
            child.kill()
        child.wait()


@pytest.mark.parametrize("first", sorted(FIRST_IMPORTERS))
def test_every_oracle_after_any_first_import(
        children: dict[str, tuple[subprocess.Popen[bytes], Path]], first: str) -> None:
    child, out = children[first]
    assert child.wait(timeout=600) == 0, out.read_text(errors="replace")[-5000:]
