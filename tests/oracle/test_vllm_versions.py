"""Every modelled vLLM release is proven against its own wheel, each in its own process.

vLLM registers its modules, platform and config classes globally, so one interpreter can
import one vLLM only. This main-process module starts, per release other than the one this
process imports (`paths.PRIMARY`, whose oracle tests run here directly), one
`python -m pytest tests/oracle/test_vllm_release_oracle.py
tests/oracle/test_vllm_release_integration.py tests/oracle/test_vllm_target_runner.py`
with `GRAPHFIT_ORACLE_VLLM` naming the release, and fails with that run's output when it
fails. A release whose sources were not fetched skips locally and fails under
`GRAPHFIT_REQUIRE_ORACLE=1` (CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracle import paths

ROOT = Path(__file__).resolve().parents[2]
OTHERS = [v for v in paths.ENGINES["vllm"] if v != paths.PRIMARY["vllm"]]
TIMEOUT_S = 900  # one release's run takes 1-2 minutes on 2 cores


@pytest.mark.parametrize("release", OTHERS)
def test_release_oracle_in_its_own_process(release: str) -> None:
    if paths.version("vllm") != paths.PRIMARY["vllm"]:
        pytest.skip("this process already runs one release's oracle (no nesting)")
    if not paths.available("vllm", release):
        paths.missing("vllm", release)
    env = {**os.environ, paths.env_var("vllm"): release}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/oracle/test_vllm_release_oracle.py",
         "tests/oracle/test_vllm_release_integration.py",
         "tests/oracle/test_vllm_target_runner.py", "-q",
         "-p", "no:cacheprovider", "-x"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, f"vLLM {release} oracle run failed:\n{tail}"
    assert " passed" in proc.stdout and " skipped" not in proc.stdout.splitlines()[-1], tail
