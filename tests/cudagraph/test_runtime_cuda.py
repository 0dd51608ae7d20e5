"""CUDA backend: real graphs in one pool replay equal to eager (skipped without a GPU)."""

from __future__ import annotations

import pytest
import torch

from graphfit import CapacityError, plan
from graphfit.cudagraph import CUDABackend, GraphRunner, StaticBuffers
from tests.cudagraph.runtime_models import SEED, TinyDrafter, drafter_batch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def test_cuda_graphs_replay_equal_eager_and_share_one_pool() -> None:
    p = plan(SEED)
    bufs = StaticBuffers.allocate(p, "cuda", "drafter")
    assert bufs.arena is not None and bufs.arena.is_cuda
    model = TinyDrafter().cuda()
    backend = CUDABackend()
    runner = GraphRunner(model.graph_fn, p, bufs, backend=backend)
    assert backend.pool is not None and len(runner.graphs) == 18
    gen = torch.Generator().manual_seed(0)
    for r in (33, 1, 17, 33, 2):
        bufs.poison()
        batch = {k: v.cuda() for k, v in drafter_batch(gen, r, SEED.uniform_query_len).items()}
        out = runner.step(batch)
        ref = model(batch["input_ids"], batch["positions"])
        torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)
    torch.cuda.synchronize()


def test_cuda_over_capacity_is_a_capacity_error() -> None:
    legacy = plan(SEED.replace(ladder="vllm-legacy"))
    bufs = StaticBuffers.allocate(legacy, "cuda", "drafter", capacities={"positions": 132})
    with pytest.raises(CapacityError, match="136"):
        GraphRunner(TinyDrafter().cuda().graph_fn, legacy, bufs, backend="cuda")
