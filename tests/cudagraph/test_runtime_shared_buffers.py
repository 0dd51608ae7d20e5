"""graphfit's runtime on buffers shared between components (`Plan.shared`): one tensor per
shared buffer, viewed by every component allocated with the pool; graphs replayed in it equal
the eager forward. TensorRT-LLM's prefill graphs read the decoder's own `input_ids` /
`position_ids` (the engine's persistent `input_ids_cuda`, trtllm_prefill.py), so a plan with
prefill graphs is the case."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cudagraph import GraphRunner, SharedBuffers, StaticBuffers
from graphfit.cudagraph.rehearsal import rehearse
from tests.cudagraph.runtime_models import VOCAB, TinyPrefill


def _plan(T: int = 64, S: int = 8, counts: tuple[int, ...] = (8, 16, 48),
          multimodal: bool = False) -> object:
    return plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": S, "max_num_batched_tokens": T,
        "max_model_len": 512, "prefill_cuda_graph_backend": "piecewise",
        "prefill_capture_num_tokens": list(counts), "multimodal": multimodal}))


@settings(max_examples=15, deadline=None)
@given(st.integers(8, 256), st.integers(1, 32),
       st.lists(st.integers(1, 300), min_size=1, max_size=5), st.booleans())
def test_one_tensor_per_shared_buffer(T: int, S: int, counts: list[int],
                                      multimodal: bool) -> None:
    p = _plan(T, S, tuple(counts), multimodal)
    assert hasattr(p, "shared")
    if not p.shared:  # no count kept: no prefill component, nothing shared
        assert "prefill" not in p.components
        return
    pool = SharedBuffers.allocate(p)
    assert set(pool) == set(p.shared)
    assert pool.total_bytes == sum(sb.bytes for sb in p.shared.values())  # counted once
    allocated = {c: StaticBuffers.allocate(p, "cpu", c, shared=pool) for c in p.components}
    for name, sb in p.shared.items():
        ptrs = {allocated[b.component][b.name].data_ptr() for b in sb.users}
        assert ptrs == {pool[name].data_ptr()}  # one tensor, whatever the user
        assert tuple(pool[name].shape) == sb.shape
    for comp_name, bufs in allocated.items():
        assert bufs.total_bytes == p.component(comp_name).total_bytes  # own arena only
        for b in p.component(comp_name).buffers:
            # every user takes up to the shared capacity, and never more
            assert bufs.view(b.name, b.capacity).shape[b.axis_dim] == b.capacity


def test_a_write_through_one_component_is_seen_by_the_other() -> None:
    p = _plan()
    pool = SharedBuffers.allocate(p)
    target = StaticBuffers.allocate(p, "cpu", "target", shared=pool)
    prefill = StaticBuffers.allocate(p, "cpu", "prefill", shared=pool)
    prefill.view("input_ids", 5).copy_(torch.arange(5, dtype=torch.int32) + 7)
    assert target.view("input_ids", 5).tolist() == [7, 8, 9, 10, 11]


def test_without_a_pool_each_component_keeps_working_alone() -> None:
    p = _plan()
    a = StaticBuffers.allocate(p, "cpu", "target")
    b = StaticBuffers.allocate(p, "cpu", "prefill")
    assert a["input_ids"].data_ptr() != b["input_ids"].data_ptr()
    assert b.capacity("input_ids") == p.shared["input_ids"].capacity


def test_pool_mistakes_are_config_errors() -> None:
    p, other = _plan(), _plan(T=128)
    pool = SharedBuffers.allocate(p)
    with pytest.raises(ConfigError, match="different plan"):
        StaticBuffers.allocate(other, "cpu", "prefill", shared=pool)
    with pytest.raises(ConfigError, match="resize it in SharedBuffers"):
        StaticBuffers.allocate(p, "cpu", "prefill", shared=pool, capacities={"input_ids": 3})
    with pytest.raises(ConfigError, match="no shared buffer"):
        SharedBuffers.allocate(p, names=["nope"])
    with pytest.raises(ConfigError, match="must be an integer"):
        SharedBuffers.allocate(p, capacities={"input_ids": -1})
    partial = SharedBuffers.allocate(p, names=["position_ids"])
    with pytest.raises(ConfigError, match="has no buffer 'input_ids'"):
        StaticBuffers.allocate(p, "cpu", "prefill", shared=partial)


def test_prefill_graphs_in_shared_buffers_equal_eager() -> None:
    p = _plan()
    pool = SharedBuffers.allocate(p)
    StaticBuffers.allocate(p, "cpu", "target", shared=pool)
    bufs = StaticBuffers.allocate(p, "cpu", "prefill", shared=pool)
    runner = GraphRunner(TinyPrefill().graph_fn, p, bufs)
    gen = torch.Generator().manual_seed(5)
    for n, reqs in ((5, 1), (9, 2), (17, 3), (48, 4), (64, 8)):
        batch = {"input_ids": torch.randint(0, VOCAB, (n,), generator=gen, dtype=torch.int32),
                 "position_ids": torch.arange(n, dtype=torch.int32)}
        got = runner.step(batch, num_reqs=reqs)
        ref = runner.step(batch, num_reqs=reqs, eager=True)
        torch.testing.assert_close(got, ref)
        # the step wrote the one shared tensor the decoder reads as well
        assert torch.equal(pool["input_ids"][:n], batch["input_ids"])


def test_rehearsal_of_every_component_on_one_pool() -> None:
    report = rehearse(_plan())
    assert report.ok
    assert {c.component for c in report.components} >= {"prefill"}
