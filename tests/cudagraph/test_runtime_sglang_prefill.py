"""graphfit's runtime on SGLang's prefill component: it allocates the plan's prefill buffers,
captures one graph per captured token count (the plan's graph keys, nothing re-derived), and
a prefill step equals the eager forward, padded or run eagerly as SGLang's 2x rule says."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import torch

from graphfit import CUDAGraphMode, EngineConfig, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers
from graphfit.planner.core.errors import CapacityError
from tests.cudagraph import runtime_models
from tests.cudagraph.runtime_models import VOCAB, step_equals_eager

CONFIG = EngineConfig(engine="sglang", max_num_seqs=8, hidden_size=16, dtype="float32",
                      chunked_prefill_size=64, cuda_graph_bs_prefill=(8, 16, 48),
                      max_cudagraph_capture_size=4)


class TinyPrefill(runtime_models.TinyPrefill):
    """Token embedding plus SGLang's `positions`, and a per-request term read through
    extend_seq_lens."""

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = self.emb(views["input_ids"] % VOCAB) + 0.01 * views["positions"].unsqueeze(-1)
        return self.out(torch.tanh(x + 0.001 * views["extend_seq_lens"].sum()))


def _batch(n: int, reqs: int, gen: torch.Generator) -> dict[str, torch.Tensor]:
    lens = torch.full((reqs,), n // reqs)
    lens[-1] += n - int(lens.sum())
    return {"input_ids": torch.randint(0, VOCAB, (n,), generator=gen),
            "positions": torch.cat([torch.arange(int(k)) for k in lens]),
            "extend_seq_lens": lens}


@pytest.mark.parametrize("backend", ["breakable", "full"])
def test_prefill_component_runs_on_graphfit_runtime(backend: str) -> None:
    p = plan(CONFIG.replace(cuda_graph_backend_prefill=backend))
    comp = p.component("prefill")
    assert comp.tables.sizes == (8, 16, 48)
    bufs = StaticBuffers.allocate(p, "cpu", "prefill")
    model = TinyPrefill()
    runner = GraphRunner(model.graph_fn, p, bufs)  # the component is the buffers' own
    mode = CUDAGraphMode.FULL if backend == "full" else CUDAGraphMode.PIECEWISE
    assert {k.padded for k in runner.graphs} == {8, 16, 48}
    assert {m for g in runner.graphs.values() for m in g.modes} == {mode}
    gen = torch.Generator().manual_seed(3)
    for n, reqs, padded in ((5, 1, 8), (3, 1, None), (16, 2, 16), (9, 1, 16), (17, 2, None),
                            (24, 3, 48), (23, 3, None), (48, 4, 48)):
        limit = comp.tables.max_graph_requests  # full: its request slots (1 here)
        if limit is not None and reqs > limit:
            padded = None  # prefill_cuda_graph_runner.py:1363-1364
        batch = _batch(n, reqs, gen)
        step_equals_eager(runner, batch, reqs, padded)
    # a prefill above the largest graph is SGLang's eager path on its own tensors: the
    # plan's buffers hold graph replays only, and the runtime says so rather than slice short
    with pytest.raises(CapacityError):
        runner.step(_batch(60, 4, gen), num_reqs=4)
