"""The one batch -> rows step (core.shape): `Plan.rows` never exceeds a capacity, never
falls below the real rows, and is what the walk (sizing, the proof) took for the same batch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import BatchError, CUDAGraphMode, Dispatch, Plan
from graphfit.planner.core.reach import Reached
from graphfit.planner.core.shape import BatchShape, occupied, real_requests
from graphfit.testing import engine_plans


@settings(max_examples=30)
@given(engine_plans(max_seqs=48), st.data())
def test_plan_rows_fit_and_hold_the_batch(p: Plan, data: st.DataObject) -> None:
    comp = p.component("target")
    S = comp.tables.max_num_seqs
    top = max(p.max_capture_size, 1) * comp.width + 3
    n = data.draw(st.integers(1, top))
    uniform = data.draw(st.booleans()) and n % comp.width == 0 and n // comp.width <= S
    r = (n // comp.width if uniform
         else data.draw(st.integers(1, min(n, S))))
    if not uniform and comp.unit.value == "requests":
        return  # batch-size engines graph decodes only; their mixed batches are prefills
    if not uniform and n > p.config.max_num_batched_tokens:
        with pytest.raises(BatchError):  # the scheduler never builds a mixed batch over T
            p.pad(n, uniform_decode=False, num_reqs=r)
        return
    rows = p.rows("target", BatchShape(n, r), uniform_decode=uniform)
    d = p.pad(n, uniform_decode=uniform, num_reqs=r)
    for name, needed in rows.items():
        rule = comp.row_rule(name)
        assert rule is not None
        assert needed >= rule.rows(n, r)  # the batch's own rows fit in what it occupies
        if d.mode is not CUDAGraphMode.NONE:  # a replay reads exactly its static rows
            assert needed == rule.rows(d.padded, occupied(BatchShape(n, r), d, S).requests)
            assert needed <= comp.buffer(name).capacity


@given(st.integers(1, 512), st.integers(1, 8), st.integers(1, 64))
def test_real_requests_is_a_batch_s_worst_case(tokens: int, width: int, pool: int) -> None:
    assert real_requests(tokens, uniform=True, width=width, max_num_seqs=pool) * width <= tokens
    mixed = real_requests(tokens, uniform=False, width=width, max_num_seqs=pool)
    assert mixed == min(tokens, pool) and mixed >= 1


@given(st.integers(1, 256), st.integers(1, 64), st.integers(1, 300), st.integers(1, 64),
       st.booleans())
def test_a_graph_occupies_its_static_shape(n: int, r: int, padded: int, pool: int,
                                           keyed: bool) -> None:
    """Eager: the real shape; graph: the padded tokens and at least the real requests."""
    real = BatchShape(n, r)
    assert occupied(real, None, pool) == real
    assert occupied(real, Dispatch(CUDAGraphMode.NONE, n, r), pool) == real
    d = Dispatch(CUDAGraphMode.FULL if keyed else CUDAGraphMode.PIECEWISE, padded,
                 min(padded, pool) if keyed else None)
    shape = occupied(real, d, pool)
    assert shape.tokens == padded and shape.requests >= r
    assert shape.requests == max(r, min(padded, pool))


@settings(max_examples=20)
@given(engine_plans(max_seqs=32))
def test_the_walk_takes_the_same_step(p: Plan) -> None:
    """Every reached segment's last batch occupies `occupied(...)` of it, and sizing's
    per-family peak is the most any of them needs."""
    for comp in p.components.values():
        S = comp.tables.max_num_seqs
        for fw in comp.walks:
            for seg in fw.segments:
                part = Reached(fw.family, seg)
                real = BatchShape(fw.family.step * seg.last,
                                  fw.family.requests_at(seg.last, S))
                assert part.shape(seg.last, S) == occupied(real, seg.dispatch, S)
                assert part.shape(seg.last, S).tokens <= max(fw.top_tokens, 1)
