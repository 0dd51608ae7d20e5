"""graphfit.integrations.vllm on vLLM's own MRV2 target runner, built on CPU.

The runner is `GPUModelRunner.__init__` of the release this process imports, run as it is
(tests/oracle/vllm_target_runner.py says what is stood in for and why none of it holds a
buffer graphfit models), with the speculator vLLM's `init_speculator` built for the same
config. This module runs in every release's process: the primary release's in the main
pytest process, the others' in their own (tests/oracle/test_vllm_versions.py).

The plugin reads the target's live `input_buffers` (the runner's own tensors, not modelled
ones), passes the safe config, and refuses a target buffer shrunk below what vLLM's own
code needs, naming it.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tests.oracle import paths

paths.require("vllm")

from graphfit.integrations import vllm as gv  # noqa: E402
from tests.oracle import vllm_oracle as vo  # noqa: E402
from tests.oracle import vllm_target_runner as vt  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
RELEASE = vo.VERSION
METHODS = ("dflash", "eagle")
# the target buffers vLLM's InputBuffers allocate (0.34: v1/worker/gpu/input_batch.py:23-39,
# allocated by GPUModelRunner.__init__ at model_runner.py:338; 0.33: :327)
INPUT_BUFFERS = ("input_ids", "positions", "is_padding", "query_start_loc", "seq_lens",
                 "dcp_local_seq_lens")


def target_runner(method: str) -> Any:
    vo.vllm()
    run = vo.runner(vo.Case(S=33, k=3, method=method), "v2")
    assert run.error is None, run.error
    return vt.build(run)


def version() -> str:
    vo.vllm()
    import vllm

    return str(vllm.__version__)


@pytest.mark.parametrize("method", METHODS)
def test_target_runner_buffers_are_read_live_and_pass(method: str) -> None:
    runner = target_runner(method)
    assert runner.speculator is not None and runner.max_num_reqs == 33
    lines: list[str] = []
    result = gv.run_check(runner, "check", vllm_version=version(), log=lines.append)
    assert result.ok and lines == [result.line()] and lines[0].startswith("graphfit: SAFE:")
    assert result.plan.config.engine_version == RELEASE
    for name in INPUT_BUFFERS:
        live = result.buffers[f"target.{name}"]
        tensor = getattr(runner.input_buffers, name)
        assert live.attr == f"model_runner.input_buffers.{name}"
        assert live.shape == tuple(tensor.shape)
        assert live.dtype == str(tensor.dtype).removeprefix("torch.")
    # and the drafter's, from the speculator the runner holds
    assert {"drafter.positions", "drafter.input_ids"} <= set(result.buffers)


@pytest.mark.parametrize(("name", "axis"), [("positions", "tokens"),
                                            ("query_start_loc", "requests")])
def test_shrunk_target_buffer_is_refused_with_its_name(name: str, axis: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    runner = target_runner("dflash")
    safe = gv.check_runner(runner, vllm_version=version())
    needed = next(b.engine_rows for b in safe.plan.components["target"].buffers
                  if b.name == name)
    tensor = getattr(runner.input_buffers, name)
    assert tensor.shape[0] >= needed  # vLLM's own allocation covers what its code needs
    monkeypatch.setattr(runner.input_buffers, name,
                        torch.zeros(needed - 1, dtype=tensor.dtype))
    lines: list[str] = []
    with pytest.raises(gv.UnsafeBuffersError, match=rf"target\.{name}"):
        gv.run_check(runner, "check", vllm_version=version(), log=lines.append)
    assert len(lines) == 1 and lines[0].startswith(f"graphfit: UNSAFE: target.{name}")
    assert f"model_runner.input_buffers.{name}: [{needed - 1}]" in lines[0]
    assert f"(vLLM {RELEASE})" in lines[0]
