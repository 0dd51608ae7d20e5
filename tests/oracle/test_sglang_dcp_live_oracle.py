"""Decode context parallelism on the live check (issue 23 s44d): SGLang 0.5.23 resolves a
`--dcp-size` > 1 line on CPU (tests/oracle/sglang_dcp_oracle's models and GPUs) and its
resolved ServerArgs record -- the object an engine developer hands graphfit -- goes to
`graphfit.integrations.sglang.from_sglang`. The live plan must have SGLang's default
mem_fraction_static and prefill-graph backend (DCP turns breakable prefill graphs off unless
given, cuda_graph_hook.py:212-216, before the memory hook, pipeline.py:191, 218), and equal the
pasted line's plan of the same flags (ladder, components, fraction, prefill backend), which
tests/oracle/test_sglang_dcp_oracle.py compares with SGLang's runners. A GPU given in GiB
could be SM100, where SGLang may pick fi_a2a (not modelled), so each line names
`--dcp-comm-backend`; one line leaves it out to show that refusal on the live path too."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit import ConfigError  # noqa: E402
from graphfit.integrations.sglang import from_sglang  # noqa: E402
from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs  # noqa: E402
from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402

MRR = ("--max-running-requests", "24")
A2A = ("--dcp-comm-backend", "a2a")
LINES: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "flashinfer", *A2A),
     "H100", "llama"),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "flashinfer", *A2A),
     "H100", "mla"),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "fa3",
      "--cuda-graph-backend-prefill", "breakable", "--dcp-comm-backend", "ag_rs"), "A100",
     "llama"),
    (("--tp-size", "4", "--dcp-size", "2", "--max-running-requests", "48",
      "--attention-backend", "triton", *A2A, *dc.DRAFTS[0]), "H100", "mla"),
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--attention-backend", "fa3", *A2A,
      *dc.DRAFTS[3]), "A100", "llama"),
]


def _resolve(case: dc.Case) -> tuple[Any, float]:
    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(model),
                              capability=capability)
    assert isinstance(resolved, so.Resolved), resolved
    return resolved.record, gb


def _sglang(record: Any) -> tuple[float, str]:
    from sglang.srt.arg_groups.overrides import resolving_view

    view = resolving_view(record)
    backend = view.cuda_graph_config.prefill.backend
    return float(view.mem_fraction_static), str(getattr(backend, "value", backend))


@pytest.mark.parametrize("case", LINES, ids=range(len(LINES)))
def test_live_plan_is_sglangs_and_the_pasted_lines(case: dc.Case) -> None:
    record, gb = _resolve(case)
    fraction, prefill = _sglang(record)
    live = graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb=gb))
    assert live.config.mem_fraction_static == pytest.approx(fraction, abs=1e-9), case
    assert prefill_graphs(live.config).backend == prefill, case
    line, line_prefill = dc.graphfit_answer(case)
    assert line_prefill == prefill
    assert line.plan is not None, line.rejected
    assert tuple(live.capture_sizes) == tuple(line.plan.capture_sizes)
    assert sorted(live.components) == sorted(line.plan.components)
    for name in live.components:
        assert live.graph_sizes(name) == line.plan.graph_sizes(name), name
    assert live.config.mem_fraction_static == line.plan.config.mem_fraction_static


def test_grid_is_not_vacuous() -> None:
    """DCP's rule decides the first line's prefill graphs (off) where the given backend of
    the third stays."""
    assert [_sglang(_resolve(LINES[i])[0])[1] for i in (0, 2)] == ["disabled", "breakable"]


def test_fi_a2a_possible_is_refused_as_not_modelled() -> None:
    """Without --dcp-comm-backend on a GPU given in GiB SGLang may pick fi_a2a
    (overrides.py:1373-1396); the live path refuses it as the pasted line does."""
    argv = tuple(a for a in LINES[0][0] if a not in A2A)
    record, gb = _resolve((argv, "H100", "llama"))
    with pytest.raises(ConfigError, match="fi_a2a"):
        graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb=gb))


RAW: list[dc.Case] = [*LINES, (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend",
                                "fa3", "--cuda-graph-backend-prefill", "breakable", *A2A),
                               "H100", "llama")]


@pytest.mark.parametrize("case", RAW, ids=range(len(RAW)))
def test_raw_memory_inputs_fraction(case: dc.Case) -> None:
    """`memory_inputs_from_sglang` (the raw ServerArgs reader, sglang_native) on the same
    records: SGLang's default fraction, with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING set (the
    last line, breakable given, is where post-capture sizing would apply without DCP:
    overrides.py:1807-1808 declines it)."""
    from graphfit.planner.engines.sglang_memory import mem_fraction_static
    from graphfit.planner.engines.sglang_native import memory_inputs_from_sglang

    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment("1"):
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(model),
                              capability=capability)
    assert isinstance(resolved, so.Resolved), resolved
    fraction, _ = _sglang(resolved.record)
    ours = mem_fraction_static(memory_inputs_from_sglang(
        resolved.record, gb, mla=model == "mla", post_capture_env=True))
    assert ours == fraction, (ours, fraction)


def test_unified_memory_dcp_on_mha_refused_with_sglangs_reason() -> None:
    """SGLang refuses unified memory with DCP on an MHA model (kv_cache_hook.py:727-732); the
    live record carries no line switches, and graphfit still refuses it with that reason."""
    argv = (*LINES[0][0], "--enable-unified-memory")
    gb, capability = dc.GPUS["H100"]
    with pc.environment(None):
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir("llama"),
                              capability=capability)
    assert isinstance(resolved, so.Rejected) and "MLA" in resolved.text, resolved
    record = _Set(_resolve(LINES[0])[0], enable_unified_memory=True)  # read-only record
    with pytest.raises(ConfigError, match="727-732"):
        graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb=gb))


class _Set:
    """A resolved record with some fields read as other values (SGLang's record refuses
    assignment after resolution, server_args.py:486)."""

    def __init__(self, record: Any, **values: Any) -> None:
        self._record, self._values = record, values

    def __getattr__(self, name: str) -> Any:
        return self._values[name] if name in self._values else getattr(self._record, name)
