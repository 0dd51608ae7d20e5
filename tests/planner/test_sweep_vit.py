"""Sweeps over SGLang's ViT image workloads (graphfit/planner/analysis/sweep.py, axes
`vit_images` and `vit_max_images`): each point's ViT figures are those of its config
planned alone, its keys SGLang's reachable keys for that workload, and the figures grow with
the workload."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from graphfit.planner.analysis.sweep import point_config, sweep, vit_points
from graphfit.planner.engines import sglang_vit as sv
from graphfit.planner.engines.sglang_vit_keyed import vit_pairs

GEOMETRY = sv.VitGeometry("qwen3_vl", 64, 4, patch_size=14, spatial_merge_size=2)
KIMI = sv.VitGeometry("kimi_k3", 64, 4, patch_size=14, spatial_merge_size=2)


def _base(geometry: sv.VitGeometry) -> dict[str, Any]:
    return {"engine": "sglang", "max_num_seqs": 2,
            "vit": vit_pairs(geometry, sv.VitWorkload(((1, 4, 4),), 1))}


sides = st.integers(1, 6).map(lambda k: 2 * k)
image_sets = st.lists(st.lists(st.tuples(st.integers(1, 2), sides, sides), min_size=1,
                               max_size=2, unique=True).map(tuple), min_size=1, max_size=3,
                      unique=True)


@settings(max_examples=12)
@given(st.sampled_from([GEOMETRY, KIMI]), image_sets, st.integers(1, 2))
def test_each_points_vit_figures_are_its_config_planned_alone(
        geometry: sv.VitGeometry, sets: list[tuple[sv.Grid, ...]], most: int) -> None:
    axes = {"max_num_seqs": (1, 2), "vit_images": tuple(range(len(sets))),
            "vit_max_images": tuple(range(1, most + 1))}
    result = sweep(_base(geometry), axes, workers=1, vit_workloads=sets)
    assert len(result.results) == 2 * len(sets) * most
    for r in result.results:
        assert r.ok
        workload = sv.VitWorkload(sets[r.point["vit_images"]], r.point["vit_max_images"])
        alone = plan(point_config(_base(geometry), r.point, sets)).keyed["vit"]
        vit = sv.plan_vit(geometry, workload)
        assert r.vit_keys == len(alone.graph_keys) == len(vit.keys)
        assert set(alone.graph_keys) == set(vit.keys)
        assert r.vit_bytes == alone.total_bytes >= vit.total_bytes
        assert r.vit_reference_bytes == alone.reference_bytes
    # one row per workload; more images per call never plans fewer keys or bytes
    points = vit_points(result)
    assert len(points) == len(sets) * most
    by = {(p.point["vit_images"], p.point["vit_max_images"]): p for _, p in points}
    for (index, count), p in by.items():
        if count > 1:
            fewer = by[(index, count - 1)]
            assert p.vit_keys >= fewer.vit_keys and p.vit_bytes >= fewer.vit_bytes


def test_vit_axes_need_a_vit_option_and_known_sets() -> None:
    with pytest.raises(ConfigError, match="vit option"):
        point_config({"engine": "sglang", "max_num_seqs": 2}, {"vit_max_images": 2})
    with pytest.raises(ConfigError, match="vit_images"):
        sweep(_base(GEOMETRY), {"max_num_seqs": (1,), "vit_images": (0, 1)}, workers=1,
              vit_workloads=[((1, 4, 4),)])
    # a set the tower refuses (h not whole merge blocks) is the point's error, not a crash
    result = sweep(_base(GEOMETRY), {"max_num_seqs": (1, 2), "vit_images": (0, 1)},
                   workers=1, vit_workloads=[((1, 4, 4),), ((1, 3, 4),)])
    assert [r.ok for r in result.results] == [True, None, True, None]
    assert "merge size" in result.results[1].error


@settings(max_examples=10)
@given(image_sets, st.integers(1, 2), st.integers(1, 300))
def test_a_vit_capacity_audit_fails_exactly_the_workloads_it_is_short_for(
        sets: list[tuple[sv.Grid, ...]], most: int, rows: int) -> None:
    axes = {"max_num_seqs": (2,), "vit_images": tuple(range(len(sets))),
            "vit_max_images": tuple(range(1, most + 1))}
    result = sweep(_base(GEOMETRY), axes, {"vit.block_ws": rows}, workers=1,
                   vit_workloads=sets)
    for r in result.results:
        vit = sv.plan_vit(GEOMETRY, sv.VitWorkload(sets[r.point["vit_images"]],
                                                   r.point["vit_max_images"]))
        assert r.failing == (vit.capacity("block_ws") > rows), r.point
        assert all(d["buffer"] == "vit.block_ws" for d in r.ranges)
