"""The live check reads the mamba cap, the EPLB fields and Inkling's FULL prefill default as
the pasted line does (issue 23, s40l).

Per line: SGLang's own `prepare_server_args` builds the ServerArgs (tests/oracle/sglang_oracle.
resolve; a line SGLang refuses never reaches a live check and is skipped), `graphfit.
integrations.sglang.from_sglang` plans them, and graphfit plans the same line pasted. Both must
refuse with the same reason or plan the same: the flags' fields, the prefill graphs (backend
and captured sizes) and the static memory fraction. For Inkling the prefill graphs must also
be SGLang's own (tests/oracle/sglang_prefill_oracle.prefill)."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import commandline  # noqa: E402
from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.planner.core.errors import GraphfitError  # noqa: E402
from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs  # noqa: E402
from graphfit.planner.plan import plan  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402

GB = 80
FIELDS = ("max_mamba_cache_size", "enable_eplb", "ep_num_redundant_experts",
          "init_expert_location", "ep_size", "ep_join_mode", "ep_dispatch_algorithm",
          "mem_fraction_static")
S48 = ("--max-running-requests", "48")


def _outcome(config_of: Any) -> tuple[Any, ...] | str:
    try:
        config = plan(config_of()).config
    except GraphfitError as exc:
        return str(exc).split(": ", 1)[-1]  # the reason; the origin names differ
    graphs = prefill_graphs(config)
    return (*(getattr(config, f) for f in FIELDS), graphs.backend, tuple(graphs.captured))


def compare(argv: tuple[str, ...], model: str | None = None) -> tuple[Any, ...] | str | None:
    """None where SGLang refuses the line; else the (equal) live and pasted outcome."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolved = so.resolve(argv, gpu_mem_gb=GB, model=model)
    if not isinstance(resolved, so.Resolved):
        return None
    path = model or str(so.oracle().model_dir)
    line = ["python", "-m", "sglang.launch_server", "--model-path", path, *argv]
    live = _outcome(lambda: gs.from_sglang(resolved.record, environ={}, gpu_memory_gb=GB))
    pasted = _outcome(lambda: gs.EngineConfig.from_dict(
        {**_pasted_values(line), "gpu_memory_gb": GB}))
    assert live == pasted, f"{' '.join(argv)}: live {live}, pasted {pasted}"
    return live


def _pasted_values(line: list[str]) -> dict[str, Any]:
    from graphfit.cli.options import resolve_values

    config = resolve_values({"gpu_memory_gb": GB}, environ={},
                            pasted=commandline.read(line)).config()
    return dict(config.to_dict())


INKLING_LINES: list[tuple[str, ...]] = [
    S48,
    (*S48, "--disable-cuda-graph"),  # the per-phase default outranks the legacy switch
    (*S48, "--pp-size", "2", "--disable-cuda-graph"),
    (*S48, "--disable-prefill-cuda-graph"),  # the hook's exit
    (*S48, "--cuda-graph-backend-prefill", "breakable", "--disable-cuda-graph"),
    (*S48, "--disable-cuda-graph",
     "--cuda-graph-config", json.dumps({"prefill": {"backend": "disabled"}})),
]


@pytest.mark.parametrize("argv", INKLING_LINES, ids=[" ".join(a[2:]) or "-" for a in INKLING_LINES])
def test_inkling_prefill_default_live_as_pasted_and_sglang(argv: tuple[str, ...]) -> None:
    model = mm.model_dir(mm.INKLING)
    ours = compare(argv, model)
    assert isinstance(ours, tuple), ours
    theirs = po.prefill(argv, GB, model)
    assert not isinstance(theirs, so.Rejected)
    assert ours[-2:] == (theirs.backend, tuple(theirs.captured)), (ours[-2:], theirs)


@pytest.mark.parametrize("cap", ["24", "100"])
def test_max_mamba_cache_size_live_as_pasted(cap: str) -> None:
    ours = compare((*S48, "--max-mamba-cache-size", cap), mm.model_dir(0))
    assert isinstance(ours, tuple) and ours[0] == int(cap), ours


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.booleans(), st.sampled_from(["0", "2"]), st.sampled_from(["trivial", "random"]),
       st.sampled_from([(1, 1), (2, 2), (2, 1)]), st.sampled_from([None, "scale", "recover"]),
       st.sampled_from([None, "static", "dynamic", "fake"]))
def test_eplb_fields_live_as_pasted(eplb: bool, redundant: str, location: str,
                                    tp_ep: tuple[int, int], join: str | None,
                                    dispatch: str | None) -> None:
    argv = [*S48, "--tp", str(tp_ep[0]), "--ep-size", str(tp_ep[1]),
            "--ep-num-redundant-experts", redundant, "--init-expert-location", location]
    argv += ["--enable-eplb"] if eplb else []
    argv += [] if join is None else ["--ep-join-mode", join]
    argv += [] if dispatch is None else ["--ep-dispatch-algorithm", dispatch]
    compare(tuple(argv))
