"""The `vit` component's proof as `graphfit plan --vit-images` reports it
(graphfit/planner/engines/sglang_vit_proof.py): all keys within capacity, and each buffer's
one-row-less witness a real call of the workload whose key goes short."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from graphfit.planner.engines import sglang_vit as sv
from graphfit.planner.engines.sglang_vit_proof import prove_vit
from tests.planner.test_sglang_vit import cases


@given(cases())
def test_the_proof_holds_and_every_capacity_is_tight(case: Any) -> None:
    geometry, workload = case
    plan = sv.plan_vit(geometry, workload)
    proof = prove_vit(plan)
    assert proof.ok and proof.violations == () and proof.keys == len(plan.keys)
    assert proof.checks == sum(len(sv.key_buffers(geometry, k)) for k in plan.keys)
    sized = {b.name for b in plan.buffers if b.rows > 0}
    assert {t.buffer for t in proof.tight} == sized
    for t in proof.tight:
        # the witness is a call the workload sends, and its own key needs the full capacity
        assert 1 <= len(t.call) <= workload.max_images
        if geometry.family != "internvl":  # InternVL's key counts tiles, not grids
            assert set(t.call) <= set(workload.grids)
        key = sv.graph_key(geometry, t.call)
        assert key == t.violation.key and key in plan.keys
        rows = {b.name: b.rows for b in sv.key_buffers(geometry, key)}
        assert rows[t.buffer] == t.rows == plan.capacity(t.buffer)
        assert t.violation.capacity == t.rows - 1 < t.violation.rows


@given(cases())
def test_a_short_capacity_is_not_proven(case: Any) -> None:
    """A plan whose buffer lost a row (an allocation made elsewhere) is refused."""
    geometry, workload = case
    plan = sv.plan_vit(geometry, workload)
    if not plan.buffers or plan.buffers[0].rows == 0:
        return
    first = plan.buffers[0]
    short = plan.verify({first.name: first.rows - 1})
    assert short and all(v.buffer == first.name and v.rows > v.capacity for v in short)
