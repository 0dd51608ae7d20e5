"""graphfit's torch runtime allocates TensorRT-LLM's beam, mrope, PARD and dynamic-tree buffers
as the plan lays them out (shapes with leading / trailing dims, int64 / float32 dtypes), and a
padded batch's rows fit every one (CPU; the runtime never re-derives the planner's rules)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from graphfit import CUDAGraphMode, EngineConfig, plan
from graphfit.cudagraph.buffers import StaticBuffers

CASES: list[dict[str, Any]] = [
    {"max_beam_width": 4, "max_model_len": 256, "max_num_batched_tokens": 512},
    {"multimodal": True, "spec_method": "mtp", "num_speculative_tokens": 2,
     "speculative_eagle_topk": 3},
    {"spec_method": "eagle3", "num_speculative_tokens": 3, "speculative_eagle_topk": 4},
    {"spec_method": "draft_model", "parallel_draft": True, "num_speculative_tokens": 3},
    {"spec_method": "suffix", "num_speculative_tokens": 4, "multimodal": True},
]


@pytest.mark.parametrize("fields", CASES, ids=lambda f: "-".join(sorted(f)))
def test_allocated_as_planned(fields: dict[str, Any]) -> None:
    p = plan(EngineConfig(engine="trtllm", max_num_seqs=32, **fields))
    buffers = StaticBuffers.allocate(p, "cpu")
    specs = {b.name: b for b in p.components["target"].buffers}
    assert set(buffers) == set(specs)
    for name, tensor in buffers.items():
        assert tuple(tensor.shape) == specs[name].shape, name
        assert tensor.dtype == getattr(torch, specs[name].dtype), name
    width = p.config.uniform_query_len * p.config.max_beam_width
    for n in (1, 7, 32):
        d = p.pad(n * width, uniform_decode=True)
        if d.mode is CUDAGraphMode.NONE:
            continue
        tokens = buffers["graph_input_ids"].shape[-1]
        assert d.padded <= tokens
        assert d.num_reqs <= buffers["seq_slots"].shape[0]


@pytest.mark.parametrize("fields", [
    {"prefill_cuda_graph_backend": "piecewise", "multimodal": True},
    {"prefill_cuda_graph_backend": "breakable", "prefill_capture_num_tokens": [3, 64, 200]},
], ids=lambda f: f["prefill_cuda_graph_backend"])
def test_prefill_component_allocated_as_planned(fields: dict[str, Any]) -> None:
    """The runtime allocates the prefill component's token buffers (rows = max_num_tokens,
    mrope's (3, 1, T) too), and every mixed batch it pads holds in them."""
    p = plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 32,
                                     "max_num_batched_tokens": 512, "max_model_len": 1024,
                                     **fields}))
    buffers = StaticBuffers.allocate(p, "cpu", "prefill")
    specs = {b.name: b for b in p.component("prefill").buffers}
    assert set(buffers) == set(specs) and "input_ids" in buffers
    for name, tensor in buffers.items():
        assert tuple(tensor.shape) == specs[name].shape, name
        assert tensor.dtype == getattr(torch, specs[name].dtype), name
        assert tensor.shape[-1] == 512
    for n in range(1, 513):
        d = p.pad(n, component="prefill")
        rows = d.padded if d.mode is CUDAGraphMode.PIECEWISE else n
        assert rows <= buffers["input_ids"].shape[0]


@given(st.integers(1, 300), st.integers(1, 3000), st.integers(2, 4096),
       st.sampled_from(("piecewise", "breakable")),
       st.none() | st.lists(st.integers(-2, 3100), max_size=8), st.booleans())
def test_any_prefill_component_is_allocated_and_holds_its_batches(
        S: int, T: int, seq: int, backend: str, counts: list[int] | None, mrope: bool) -> None:
    """For any S, T, max_seq_len and list, the runtime allocates the prefill component as the
    plan lays it out, and the rows every mixed batch of 1..T tokens is padded to fit."""
    fields: dict[str, Any] = {"engine": "trtllm", "max_num_seqs": S,
                              "max_num_batched_tokens": T, "max_model_len": seq,
                              "prefill_cuda_graph_backend": backend,
                              "multimodal": mrope and backend == "piecewise"}
    if counts is not None:
        fields["prefill_capture_num_tokens"] = counts
    p = plan(EngineConfig.from_dict(fields))
    if "prefill" not in p.components:
        return
    buffers = StaticBuffers.allocate(p, "cpu", "prefill")
    specs = {b.name: b for b in p.component("prefill").buffers}
    assert set(buffers) == set(specs)
    for name, tensor in buffers.items():
        assert tuple(tensor.shape) == specs[name].shape, name
    rows = buffers["input_ids"].shape[0]
    for n in {1, *p.component("prefill").tables.sizes, T}:
        assert p.pad(n, component="prefill").padded <= rows
