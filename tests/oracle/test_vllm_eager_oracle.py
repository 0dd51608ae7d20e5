"""The verdict's eager share (graphfit.planner.analysis.eager) against vLLM 0.33's own
`CudagraphDispatcher` (V1 runner, tests/oracle/vllm_oracle's CPU import): over the plan's
runtime ladder (itself compared with vLLM in test_vllm_oracle), vLLM dispatches exactly the
uniform decodes graphfit counts as eager to CUDAGraphMode.NONE."""

from __future__ import annotations

import pytest

from graphfit import EngineConfig, plan
from graphfit.planner.analysis.eager import eager_share, uniform_family
from tests.oracle.paths import require


@pytest.mark.parametrize(("seqs", "k", "mode"), [
    (1024, 4, "FULL_AND_PIECEWISE"), (1024, 0, "FULL_AND_PIECEWISE"), (300, 2, "PIECEWISE"),
    (64, 0, "FULL_DECODE_ONLY"), (700, 1, "FULL")])
def test_eager_share_matches_vllms_dispatcher(seqs: int, k: int, mode: str) -> None:
    require("vllm")
    from tests.oracle import vllm_dispatcher, vllm_oracle

    spec = {"spec_method": "mtp", "num_speculative_tokens": k} if k else {}
    # the V1 runner's dispatcher: the release this process imports (0.33; 0.34 has no V1)
    p = plan(EngineConfig(max_num_seqs=seqs, cudagraph_mode=mode, runner="v1",
                          engine_version=vllm_oracle.VERSION, **spec))
    share = eager_share(p)
    family = uniform_family(p.components["target"])
    assert share is not None and family is not None
    v = vllm_oracle.vllm()
    d = vllm_dispatcher.dispatcher(v, p.capture_sizes, mode, seqs, k)
    theirs = sum(d.dispatch(r * (1 + k), uniform_decode=True)[0] == v.CUDAGraphMode.NONE
                 for r in range(family.first, family.last + 1))
    assert share.eager == theirs, (share, theirs)
