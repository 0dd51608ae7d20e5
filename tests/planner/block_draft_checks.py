"""The invariant DFLASH's and DSPARK's draft runners share (both are SGLang's
DecodeCudaGraphRunner on the draft model runner with a sampler folded into the graph): every
draft batch pads to a captured size whose rows the buffers hold, and the sampler's `out` holds
`per_request` tokens of every captured request. Used by test_engines_sglang_dflash.py and
test_engines_sglang_dspark.py (one check, not two copies)."""

from __future__ import annotations

from graphfit import Axis, CUDAGraphMode, Plan
from graphfit.planner.engines.sglang import request_pool


def captured_draft(p: Plan, runner: str) -> tuple[int, tuple[int, ...]] | None:
    """(width, captured sizes) of the draft runner, None when it captures no graph."""
    comp = p.components.get(runner)
    if comp is None or not comp.buffers or p.config.cudagraph_mode is CUDAGraphMode.NONE:
        return None
    sizes = p.graph_sizes(runner)
    return (comp.tables.uniform_query_len, sizes) if sizes else None


def assert_draft_pads_within_its_buffers(p: Plan, runner: str, bs: int, per_request: int
                                         ) -> None:
    """Padding of `bs` draft requests (clamped to the pool) within every buffer, and the
    sampler's `out` (when one is folded) holding `per_request` tokens per captured request."""
    found = captured_draft(p, runner)
    if found is None:
        return
    width, sizes = found
    comp = p.components[runner]
    if any(b.name == "sampler_out" for b in comp.buffers):
        assert p.buffer(f"{runner}.sampler_out").capacity >= max(sizes) * per_request
    assert_uniform_batch_within_buffers(p, runner, bs, width)


def assert_uniform_batch_within_buffers(p: Plan, runner: str, bs: int, width: int) -> None:
    """A uniform batch of `bs` requests of `width` tokens each (clamped to the request pool:
    a decode batch holds at most that many) pads, in `runner`, to a captured size whose rows
    each of its buffers holds, or runs eagerly. Also the multi-layer EAGLE and frozen-KV MTP
    runners' check (test_engines_sglang.py)."""
    comp = p.components[runner]
    bs = min(bs, request_pool(p.config))
    d = p.pad(bs * width, uniform_decode=True, component=runner)
    if d.mode is CUDAGraphMode.NONE:
        return
    assert bs <= d.num_reqs
    for b in comp.buffers:
        rows = d.num_reqs * (width if b.axis is Axis.TOKENS else 1)
        assert b.axis is Axis.FIXED or rows <= b.capacity, b.key
