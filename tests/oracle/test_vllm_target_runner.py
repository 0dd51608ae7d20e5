"""graphfit.integrations.vllm on vLLM's own target model runners, built on CPU.

The runner is `GPUModelRunner.__init__` of the release this process imports, run as it is
(tests/oracle/vllm_target_runner.py says what is stood in for and why none of it holds a
buffer graphfit models): MRV2 with the speculator vLLM's `init_speculator` built for the
same config; V1 (releases that still have it) building its drafter itself. This module
runs in every release's process: the primary release's in the main pytest process, the
others' in their own (tests/oracle/test_vllm_versions.py).

The plugin reads the target's live buffers (MRV2 `input_buffers`, V1 the runner's own
`CpuGpuBuffer`s: the runner's tensors, not modelled ones), passes the safe config, and
refuses a target buffer shrunk below what vLLM's own code needs, naming it.
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
# vLLM is imported by the first test, never at collection (tests/oracle/test_import_order.py:
# the argument oracle bootstraps vLLM's modules its own way first)
# the target buffers vLLM allocates in GPUModelRunner.__init__: MRV2's InputBuffers (0.34:
# v1/worker/gpu/input_batch.py:23-39, allocated at model_runner.py:338; 0.33: :327); V1's
# CpuGpuBuffers (0.33: v1/worker/gpu_model_runner.py:479-962)
TARGET = {
    "v2": ("input_ids", "positions", "is_padding", "query_start_loc", "seq_lens",
           "dcp_local_seq_lens"),
    "v1": ("input_ids", "positions", "is_padding", "req_indices", "is_token_ids",
           "inputs_embeds", "query_pos", "query_start_loc", "seq_lens",
           "num_computed_tokens", "num_accepted_tokens"),
}


def target_runner(which: str, method: str) -> Any | None:
    """vLLM's runner; None (after checking vLLM says so) where the release has no V1."""
    run = vo.runner(vo.Case(S=33, k=3, method=method), which)
    if which == "v1" and not vo.has_v1():  # 0.34 deleted the V1 runner
        assert run.error is not None and "removed" in run.error
        return None
    assert run.error is None, run.error
    return vt.build(run)


def version() -> str:
    vo.vllm()
    import vllm

    return str(vllm.__version__)


def _step(owner: Any, part: str) -> Any:
    """One step of a live buffer's path: an attribute, or an attribute then an index."""
    name, _, index = part.partition("[")
    value = getattr(owner, name)
    return value[int(index.rstrip("]"))] if index else value


def _resolve(runner: Any, attr: str) -> tuple[Any, str, Any]:
    """(owner, attribute, tensor) for a live buffer's vLLM path ("model_runner.x.y[0]")."""
    owner: Any = runner
    parts = attr.removeprefix("model_runner.").split(".")
    for part in parts[:-1]:
        owner = _step(owner, part)
    value = _step(owner, parts[-1])
    return owner, parts[-1], value.gpu if hasattr(value, "gpu") else value


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("which", ["v1", "v2"])
def test_target_runner_buffers_are_read_live_and_pass(which: str, method: str) -> None:
    runner = target_runner(which, method)
    if runner is None:
        return
    drafter = runner.speculator if which == "v2" else runner.drafter
    assert drafter is not None and runner.max_num_reqs == 33
    lines: list[str] = []
    result = gv.run_check(runner, "check", vllm_version=version(), log=lines.append)
    assert result.ok and lines == [result.line()] and lines[0].startswith("graphfit: SAFE:")
    assert result.plan.config.engine_version == RELEASE
    for name in TARGET[which]:
        live = result.buffers[f"target.{name}"]
        _, _, tensor = _resolve(runner, live.attr)
        assert live.attr.endswith(f".{name}")
        assert live.shape == tuple(tensor.shape)  # the runner's own tensor
        assert live.dtype == str(tensor.dtype).removeprefix("torch.")
    # and the drafter's, from the drafter the runner holds
    assert {"drafter.positions", "drafter.input_ids"} <= set(result.buffers)


@pytest.mark.parametrize(("which", "name"), [(w, n) for w in ("v1", "v2")
                                             for n in ("positions", "query_start_loc")])
def test_shrunk_target_buffer_is_refused_with_its_name(which: str, name: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    runner = target_runner(which, "dflash")
    if runner is None:
        return
    safe = gv.check_runner(runner, vllm_version=version())
    needed = next(b.engine_rows for b in safe.plan.components["target"].buffers
                  if b.name == name)
    live = safe.buffers[f"target.{name}"]
    owner, attr, tensor = _resolve(runner, live.attr)
    assert tensor.shape[0] >= needed  # vLLM's own allocation covers what its code needs
    monkeypatch.setattr(owner, attr, torch.zeros(needed - 1, dtype=tensor.dtype))
    lines: list[str] = []
    with pytest.raises(gv.UnsafeBuffersError, match=rf"target\.{name}"):
        gv.run_check(runner, "check", vllm_version=version(), log=lines.append)
    assert len(lines) == 1 and lines[0].startswith(f"graphfit: UNSAFE: target.{name}")
    assert f"{live.attr}: [{needed - 1}]" in lines[0]
    assert f"(vLLM {RELEASE})" in lines[0]


def _kv_ready(which: str, method: str = "eagle", groups: int = 1) -> Any | None:
    """vLLM's runner with its block tables: MRV2 after its own initialize_kv_cache (run on
    CPU up to BlockTables), V1 as built (its InputBatch holds them)."""
    runner = target_runner(which, method)
    if runner is not None and which == "v2":
        vt.initialize_kv_cache(runner, groups=groups)
    return runner


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("which", ["v1", "v2"])
def test_block_table_and_slot_mapping_are_read_live(which: str, groups: int) -> None:
    if which == "v1" and groups > 1:
        return  # V1's InputBatch is built with one group before the KV config is known
    runner = _kv_ready(which, groups=groups)
    if runner is None:
        return
    result = gv.check_runner(runner, vllm_version=version())
    assert result.ok, result.line()
    for name in ("block_table", "slot_mapping"):
        live = result.buffers[f"target.{name}"]
        _, _, tensor = _resolve(runner, live.attr)
        assert live.shape == tuple(tensor.shape)  # vLLM's own tensor
        assert live.dtype == str(tensor.dtype).removeprefix("torch.")
        planned = next(b for b in result.plan.components["target"].buffers if b.name == name)
        assert planned.dtype == live.dtype
        assert live.shape[0] >= planned.engine_rows  # vLLM allocates what its code needs
    block = result.buffers["target.block_table"]
    planned = next(b for b in result.plan.components["target"].buffers
                   if b.name == "block_table")
    assert block.shape[1:] == planned.shape[1:]  # graphfit's width = vLLM's


@pytest.mark.parametrize("which", ["v1", "v2"])
def test_shrunk_slot_mapping_is_refused_with_its_live_attribute(
        which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = _kv_ready(which, groups=1)
    if runner is None:
        return
    safe = gv.check_runner(runner, vllm_version=version())
    needed = next(b.engine_rows for b in safe.plan.components["target"].buffers
                  if b.name == "slot_mapping")
    live = safe.buffers["target.slot_mapping"]
    if which == "v2":  # one row per KV-cache group: shrink the token axis of the 2-D tensor
        monkeypatch.setattr(runner.block_tables, "slot_mappings",
                            torch.zeros(1, needed - 1, dtype=torch.int64))
    else:
        owner, attr, _ = _resolve(runner, live.attr)
        monkeypatch.setattr(owner, attr, torch.zeros(needed - 1, dtype=torch.int64))
    lines: list[str] = []
    with pytest.raises(gv.UnsafeBuffersError, match=r"target\.slot_mapping"):
        gv.run_check(runner, "check", vllm_version=version(), log=lines.append)
    assert len(lines) == 1 and lines[0].startswith("graphfit: UNSAFE: target.slot_mapping")
    assert f"{live.attr}: [{needed - 1}]" in lines[0]
