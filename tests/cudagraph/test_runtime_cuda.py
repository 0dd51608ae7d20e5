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


def test_cuda_shared_buffers_allocated_under_the_plain_device_name() -> None:
    """A pool allocated on "cuda" is the pool components allocated on "cuda" view (its
    tensors report "cuda:0"): TensorRT-LLM's prefill and decode graphs read one input_ids."""
    from graphfit import EngineConfig
    from graphfit.cudagraph import SharedBuffers

    p = plan(EngineConfig.from_dict(dict(engine="trtllm", max_num_seqs=8, hidden_size=16,
                                         num_speculative_tokens=0,
                                         prefill_cuda_graph_backend="breakable")))
    assert p.shared
    pool = SharedBuffers.allocate(p, "cuda")
    views = [StaticBuffers.allocate(p, "cuda", name, shared=pool) for name in p.components]
    for name in p.shared:
        users = [b[name] for b in views if name in b]
        assert len(users) >= 2
        assert len({t.data_ptr() for t in users}) == 1


def test_cuda_rehearsal_replays_every_graph_equal_to_eager() -> None:
    """Real CUDA graphs of every component (SGLang's EAGLE target, drafter, draft-extend and
    prefill graphs; TensorRT-LLM's decode and prefill graphs on shared buffers) replay equal
    to eager, and the capture's device memory is measured."""
    from graphfit import EngineConfig
    from graphfit.cudagraph.rehearsal import rehearse

    for fields in (dict(engine="sglang", spec_method="eagle", speculative_eagle_topk=1,
                        speculative_num_draft_tokens=4, num_speculative_tokens=3),
                   dict(engine="trtllm", num_speculative_tokens=0,
                        prefill_cuda_graph_backend="breakable")):
        p = plan(EngineConfig.from_dict(dict(fields, max_num_seqs=8, hidden_size=16)))
        result = rehearse(p, device="cuda")
        assert result.ok and result.graphs == sum(len(p.graph_keys(n)) for n in p.components
                                                  if n not in result.skipped)
        assert result.capture.pool_bytes is not None and result.capture.pool_bytes >= 0


def test_cuda_token_staging_copy_is_recorded_in_the_graph() -> None:
    """Issue 23 (s35c), never run in that session (no GPU): a token-mode encoder plan's
    pinned one-slot host copies are copied host -> device inside the captured CUDA graph, so
    a replay of the graph alone reads a batch written in the host copy only."""
    from graphfit.cudagraph import CaptureSession
    from graphfit.cudagraph.keyed import KeyedGraphRunner
    from graphfit.cudagraph.rehearsal import KeyedToyForward, rehearse
    from tests.cudagraph.test_runtime_host_staging import SMALL, _plan

    p = _plan(SMALL)
    assert rehearse(p, device="cuda").ok
    session = CaptureSession("cuda", freeze_gc=False)
    runner = KeyedGraphRunner.from_plan(KeyedToyForward().cuda(), p, session=session,
                                        device="cuda")
    session.capture()
    assert runner.recorded == frozenset({"input_ids", "position_ids"})
    assert all(c.is_pinned() for c in runner.staging.values())
    lens = (3, 2)
    ids = torch.arange(5, dtype=torch.int32, device="cuda")
    runner.step(ids, lens)
    key = runner.last_key
    assert key in runner.graphs
    runner.staging["input_ids"][0, :5].copy_(ids.cpu() + 7)
    out = runner.graphs[key].replay()
    torch.cuda.synchronize()
    assert torch.equal(out[:5], runner.step(ids + 7, lens, eager=True))
