"""graphfit's runtime on TensorRT-LLM's prefill component: it allocates the plan's token
buffers, captures one graph per captured token count (the plan's graph keys, nothing
re-derived), and a prefill step equals the eager forward, padded to the next captured count
(get_padding_params,
tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:84-145) or run eagerly
above the largest one, in the same persistent buffers as TensorRT-LLM's eager context batches."""

from __future__ import annotations

import pytest
import torch

from graphfit import CUDAGraphMode, EngineConfig, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers
from tests.cudagraph.runtime_models import VOCAB, TinyPrefill, step_equals_eager


@pytest.mark.parametrize("backend", ["piecewise", "breakable"])
def test_prefill_component_runs_on_graphfit_runtime(backend: str) -> None:
    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 64,
        "max_model_len": 512, "prefill_cuda_graph_backend": backend,
        "prefill_capture_num_tokens": [48, 8, 16, 100]}))
    comp = p.component("prefill")
    assert comp.tables.sizes == (8, 16, 48)  # 100 > max_num_tokens is dropped
    bufs = StaticBuffers.allocate(p, "cpu", "prefill")
    model = TinyPrefill()
    runner = GraphRunner(model.graph_fn, p, bufs)
    assert {k.padded for k in runner.graphs} == {8, 16, 48}
    assert {m for g in runner.graphs.values() for m in g.modes} == {CUDAGraphMode.PIECEWISE}
    gen = torch.Generator().manual_seed(3)
    for n, reqs, padded in ((5, 1, 8), (8, 2, 8), (9, 1, 16), (17, 2, 48), (48, 4, 48),
                            (49, 4, None), (64, 8, None)):
        batch = {"input_ids": torch.randint(0, VOCAB, (n,), generator=gen,
                                               dtype=torch.int32),
                 "position_ids": torch.arange(n, dtype=torch.int32)}
        step_equals_eager(runner, batch, reqs, padded)
