"""graphfit.integrations.vllm against vLLM 0.33's own code on CPU.

The runners' drafters are vLLM's (V1 `DFlashProposer` / `EagleProposer.__init__`, MRV2
`init_speculator`), built on vLLM's config objects with the mode and sizes vLLM resolved,
as tests/oracle/vllm_oracle.py builds them; the plugin is found by vLLM's own
`load_plugins_by_group` and wraps vLLM's own `Worker`. A safe config passes with one SAFE
line; a config whose buffer is shrunk (monkeypatched) is refused naming that buffer.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from types import SimpleNamespace as NS
from typing import Any

import pytest
import tomllib
import torch

from graphfit.integrations import vllm as gv
from tests.helpers import ROOT
from tests.oracle.paths import require

CASES = [("v1", "dflash"), ("v2", "dflash"), ("v1", "eagle"), ("v2", "eagle")]


@pytest.fixture(scope="module")
def vo() -> Any:
    require("vllm")
    from tests.oracle import vllm_oracle

    vllm_oracle.vllm()
    return vllm_oracle


def live_runner(vo: Any, which: str, method: str) -> Any:
    """A model runner as the plugin sees it: vLLM's resolved config and vLLM's drafter."""
    run = vo.runner(vo.Case(S=33, k=3, method=method), which)
    assert run.error is None, run.error
    drafter = {"drafter": run.proposer} if which == "v1" else {"speculator": run.proposer}
    return NS(vllm_config=run.config, max_num_reqs=33, **drafter)


@pytest.mark.parametrize(("which", "method"), CASES)
def test_safe_config_passes_with_one_safe_line(vo: Any, which: str, method: str) -> None:
    lines: list[str] = []
    result = gv.run_check(live_runner(vo, which, method), "check", vllm_version="0.33.0",
                          log=lines.append)
    assert result.ok and result.checks > 0
    assert "drafter.positions" in result.buffers and "drafter.input_ids" in result.buffers
    assert len(lines) == 1 and lines[0].startswith("graphfit: SAFE:")
    assert f"{result.checks} checks" in lines[0]


@pytest.mark.parametrize(("which", "method"), CASES)
def test_shrunk_buffer_is_refused_with_its_name(vo: Any, which: str, method: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    runner = live_runner(vo, which, method)
    safe = gv.check_runner(runner)
    live = safe.buffers["drafter.positions"]
    owner_name, attr = live.attr.split(".", 1)
    owner = runner.drafter if owner_name == "drafter" else runner.speculator
    if attr.startswith("input_buffers."):
        owner, attr = owner.input_buffers, attr.removeprefix("input_buffers.")
    # one row fewer than the most any batch vLLM's code runs writes (vLLM may allocate more)
    needed = next(b.engine_rows for b in safe.plan.components["drafter"].buffers
                  if b.name == "positions")
    original = getattr(owner, attr)
    tensor = original.gpu if hasattr(original, "gpu") else original
    assert tensor.shape[0] >= needed
    shrunk = torch.zeros((needed - 1, *tensor.shape[1:]), dtype=tensor.dtype)
    monkeypatch.setattr(owner, attr, shrunk)
    lines: list[str] = []
    with pytest.raises(gv.UnsafeBuffersError, match=r"drafter\.positions"):
        gv.run_check(runner, "check", log=lines.append)
    assert len(lines) == 1 and "UNSAFE" in lines[0] and "drafter.positions" in lines[0]
    assert f"{live.attr}: [{needed - 1}" in lines[0]
    # warn: the same single line, and no refusal
    warned: list[str] = []
    assert not gv.run_check(runner, "warn", log=warned.append).ok
    assert warned == lines


def test_vllm_loads_the_plugin_and_it_wraps_the_worker(vo: Any,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    import importlib.metadata as md

    import vllm.plugins as plugins
    from vllm.v1.worker.gpu_worker import Worker

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "entry-points"]["vllm.general_plugins"]
    points = md.EntryPoints([md.EntryPoint(name, value, "vllm.general_plugins")
                             for name, value in declared.items()])
    monkeypatch.setattr(md, "entry_points", lambda group: points if group ==
                        "vllm.general_plugins" else md.EntryPoints([]))
    original = Worker.compile_or_warm_up_model
    monkeypatch.setattr(Worker, "compile_or_warm_up_model", original)  # restored after
    monkeypatch.delenv("GRAPHFIT_VLLM", raising=False)
    for func in plugins.load_plugins_by_group("vllm.general_plugins").values():
        func()  # off: nothing wrapped
    assert Worker.compile_or_warm_up_model is original
    monkeypatch.setenv("GRAPHFIT_VLLM", "check")
    loaded = plugins.load_plugins_by_group("vllm.general_plugins")
    assert set(loaded) == {"graphfit"}
    loaded["graphfit"]()
    loaded["graphfit"]()  # vLLM may load plugins more than once per process
    wrapped = Worker.compile_or_warm_up_model
    assert wrapped.__wrapped__ is original  # type: ignore[attr-defined]

    worker = object.__new__(Worker)
    worker.model_runner = live_runner(vo, "v1", "dflash")
    # the check passes, then vLLM's own warm-up runs (and fails on CPU: no model loaded)
    with caplog.at_level(logging.INFO, logger="graphfit.integrations.vllm"), \
            pytest.raises(Exception) as info:
        worker.compile_or_warm_up_model()
    assert not isinstance(info.value, gv.UnsafeBuffersError)
    assert next(r.getMessage() for r in caplog.records
                if "graphfit:" in r.getMessage()).startswith("graphfit: SAFE")
    drafter = worker.model_runner.drafter
    monkeypatch.setattr(drafter, "positions", torch.zeros(8, dtype=torch.int64))
    with pytest.raises(gv.UnsafeBuffersError, match=r"drafter\.positions"):
        worker.compile_or_warm_up_model()


def test_env_values() -> None:
    assert gv.mode_from_env({}) is None and gv.mode_from_env({"GRAPHFIT_VLLM": "off"}) is None
    assert gv.mode_from_env({"GRAPHFIT_VLLM": " Check "}) == "check"
    with pytest.raises(gv.ConfigError, match="check, warn, off"):
        gv.mode_from_env({"GRAPHFIT_VLLM": "strict"})


def test_importing_graphfit_imports_nothing_of_vllm() -> None:
    code = ("import sys, graphfit, graphfit.integrations.vllm as m; m.register(); "
            "assert not any(k == 'vllm' or k.startswith('vllm.') for k in sys.modules)")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
