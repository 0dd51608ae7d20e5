"""The oracle modules hold whichever of them imports vLLM first in a session.

Some of vLLM's modules bind the platform object when imported (vllm/engine/arg_utils.py:122,
whose `--mm-processor-device` choices, :1568-1573, follow its device type), and
each oracle needs its own platform at run time (the args oracle a GPU, vllm_oracle's buffers
the CPU). tests/oracle/vllm_args_oracle._bootstrap makes every first import the same; this
runs a fast test of each oracle after each other one, in a fresh interpreter each time, so an
order pytest never happens to pick cannot break them.
"""

from __future__ import annotations

import os
import subprocess
import sys

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


@pytest.mark.parametrize("first", sorted(FIRST_IMPORTERS))
def test_every_oracle_after_any_first_import(first: str) -> None:
    require("vllm")
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         FIRST_IMPORTERS[first], *PLATFORM_READERS],
        capture_output=True, text=True, cwd=ROOT, env=env, check=False, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
