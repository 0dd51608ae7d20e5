"""graphfit.integrations.vllm against a vLLM release other than the main process's
(`paths.PRIMARY`; the primary release's are tests/oracle/test_vllm_integration.py).

A process imports one vLLM only, so tests/oracle/test_vllm_versions.py runs this module in
each other release's own pytest process (`GRAPHFIT_ORACLE_VLLM=<release>`), next to
test_vllm_release_oracle.py; by hand:

    GRAPHFIT_ORACLE_VLLM=0.34.0 python -m pytest tests/oracle/test_vllm_release_integration.py -q

The drafters are the release's own (V1 proposers where the release still has the V1 runner;
MRV2 `init_speculator` always), built on the release's config objects with the mode and sizes
it resolved, as tests/oracle/vllm_oracle.py builds them. The plugin plans the version that
vLLM reports (`vllm.__version__`), reads the MRV2 speculator's buffers (its own tensors and
its `input_buffers`), passes a safe config with one SAFE line and refuses a config whose
buffer is shrunk (monkeypatched), naming it.
"""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

import pytest
import torch

from tests.oracle import paths

if paths.version("vllm") == paths.PRIMARY["vllm"]:
    pytest.skip("the primary release's integration tests are test_vllm_integration.py",
                allow_module_level=True)
paths.require("vllm")

from graphfit.integrations import vllm as gv  # noqa: E402
from tests.oracle import vllm_oracle as vo  # noqa: E402

RELEASE = vo.VERSION
METHODS = ("dflash", "eagle")
# torch's own internals warn about torch.jit deprecations while vLLM imports; not ours
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def runners() -> tuple[str, ...]:
    """The release's runners (vLLM imported on first use, never at collection)."""
    vo.vllm()
    return ("v1", "v2") if vo.has_v1() else ("v2",)  # 0.34 deleted the V1 runner


def live_runner(which: str, method: str) -> Any:
    """A model runner as the plugin sees it: the release's resolved config and drafter."""
    run = vo.runner(vo.Case(S=33, k=3, method=method), which)
    assert run.error is None, run.error
    drafter = {"drafter": run.proposer} if which == "v1" else {"speculator": run.proposer}
    return NS(vllm_config=run.config, max_num_reqs=33, **drafter)


def reported_version() -> str:
    vo.vllm()
    import vllm

    return str(vllm.__version__)


def test_the_release_vllm_reports_is_the_one_under_test() -> None:
    assert reported_version() == RELEASE
    if RELEASE == "0.34.0":
        assert runners() == ("v2",)  # 0.34 deleted the V1 runner


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("which", ["v1", "v2"])
def test_safe_config_passes_planned_as_the_reported_release(which: str, method: str) -> None:
    if which not in runners():
        assert "removed" in vo.runner(vo.Case(S=33, k=3, method=method), which).error
        return
    lines: list[str] = []
    result = gv.run_check(live_runner(which, method), "check", vllm_version=reported_version(),
                          log=lines.append)
    assert result.ok and result.checks > 0
    assert result.plan.config.engine_version == RELEASE == result.modelled_version
    assert lines == [result.line()] and lines[0].startswith("graphfit: SAFE:")
    assert lines[0].endswith(f"checks (vLLM {RELEASE})")  # no "planned as": same release
    assert {"drafter.positions", "drafter.input_ids"} <= set(result.buffers)


@pytest.mark.parametrize("method", METHODS)
def test_mrv2_speculator_buffers_are_read_from_the_live_speculator(method: str) -> None:
    runner = live_runner("v2", method)
    result = gv.check_runner(runner, vllm_version=reported_version())
    spec = runner.speculator
    own = {attr for attr, value in vars(spec).items() if isinstance(value, torch.Tensor)}
    inputs = set(vars(spec.input_buffers))
    assert inputs and own
    for live in result.buffers.values():
        assert live.attr.startswith("speculator.")
        path = live.attr.removeprefix("speculator.").split(".")
        obj: Any = spec
        for part in path:
            obj = getattr(obj, part)
        tensor = obj.gpu if hasattr(obj, "gpu") else obj
        assert tuple(tensor.shape) == live.shape  # the live tensor, not a modelled one
        assert str(tensor.dtype).removeprefix("torch.") == live.dtype
    read = {b.attr.removeprefix("speculator.") for b in result.buffers.values()}
    # the speculator's own InputBuffers (0.34: spec_decode/dflash/speculator.py:352-356 slices
    # them for the drafter's forward) and its own tensors, both read
    assert {"input_buffers.input_ids", "input_buffers.positions"} <= read
    assert read - {f"input_buffers.{n}" for n in inputs} <= own and read & own


def _owner(runner: Any, attr: str) -> tuple[Any, str]:
    owner_name, rest = attr.split(".", 1)
    owner = getattr(runner, owner_name)
    if rest.startswith("input_buffers."):
        owner, rest = owner.input_buffers, rest.removeprefix("input_buffers.")
    return owner, rest


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("which", ["v1", "v2"])
def test_shrunk_buffer_is_refused_with_its_name(which: str, method: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    if which not in runners():  # asserted "removed" by the SAFE test
        return
    runner = live_runner(which, method)
    safe = gv.check_runner(runner, vllm_version=reported_version())
    live = safe.buffers["drafter.positions"]
    owner, attr = _owner(runner, live.attr)
    # one row fewer than the most any batch the release's code runs writes
    needed = next(b.engine_rows for b in safe.plan.components["drafter"].buffers
                  if b.name == "positions")
    original = getattr(owner, attr)
    tensor = original.gpu if hasattr(original, "gpu") else original
    assert tensor.shape[0] >= needed
    monkeypatch.setattr(owner, attr, torch.zeros((needed - 1, *tensor.shape[1:]),
                                                 dtype=tensor.dtype))
    lines: list[str] = []
    with pytest.raises(gv.UnsafeBuffersError, match=r"drafter\.positions"):
        gv.run_check(runner, "check", vllm_version=reported_version(), log=lines.append)
    assert len(lines) == 1 and lines[0].startswith("graphfit: UNSAFE: drafter.positions")
    assert f"{live.attr}: [{needed - 1}" in lines[0] and f"(vLLM {RELEASE})" in lines[0]
    warned: list[str] = []
    assert not gv.run_check(runner, "warn", vllm_version=reported_version(),
                            log=warned.append).ok
    assert warned == lines


def test_the_plugin_wraps_the_release_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release's own Worker has the method the plugin wraps (0.34: gpu_worker.py:1017)."""
    from vllm.v1.worker.gpu_worker import Worker

    original = Worker.compile_or_warm_up_model
    monkeypatch.setattr(Worker, "compile_or_warm_up_model", original)  # restored after
    assert gv.wrap_worker(Worker, "check", reported_version())
    worker = object.__new__(Worker)
    worker.model_runner = live_runner("v2", "dflash")
    monkeypatch.setattr(worker.model_runner.speculator.input_buffers, "positions",
                        torch.zeros(8, dtype=torch.int64))
    with pytest.raises(gv.UnsafeBuffersError, match=r"drafter\.positions"):
        worker.compile_or_warm_up_model()
