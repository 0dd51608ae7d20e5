"""graphfit's runtime on the `vit` component (SGLang's vision-encoder graphs,
graphfit.planner.engines.sglang_vit): every planned key captured over the plan's static
buffers, each key's probe call replayed equal to its eager run, short buffers refused before
any capture, unplanned calls run eagerly."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import CapacityError
from graphfit.cudagraph.vit import VitGraphRunner, rehearse_vit, toy_tower
from graphfit.planner import VitGeometry, VitWorkload, plan_vit

GEOMETRIES = {
    "qwen2_5_vl": VitGeometry("qwen2_5_vl", 32, 2, patch_size=14, spatial_merge_size=2,
                              window_size=112, fullatt_blocks=(1,), max_context_len=300),
    "qwen3_vl": VitGeometry("qwen3_vl", 32, 2, patch_size=16, spatial_merge_size=2,
                            deepstack=2),
    "internvl": VitGeometry("internvl", 32, 2, tokens_per_tile=17),
}


@settings(max_examples=15)
@given(st.sampled_from(sorted(GEOMETRIES)),
       st.lists(st.tuples(st.integers(1, 2), st.integers(1, 6).map(lambda k: 2 * k),
                          st.integers(1, 6).map(lambda k: 2 * k)), min_size=1, max_size=2),
       st.integers(1, 2), st.sampled_from(["float32", "bfloat16"]))
def test_every_planned_key_replays_equal_to_eager(family: str, grids: list[Any],
                                                  images: int, dtype: str) -> None:
    from dataclasses import replace

    plan = plan_vit(replace(GEOMETRIES[family], dtype=dtype),
                    VitWorkload(tuple(grids), images))
    report = rehearse_vit(plan)
    assert report.ok, report
    assert report.graphs == len(plan.keys)


def test_views_share_the_static_buffers_and_one_graph_serves_equal_keys() -> None:
    """Qwen3: a two-frame video and two images of one size share a key (the same
    boundaries): one graph, both replays equal to eager."""
    geometry = GEOMETRIES["qwen3_vl"]
    plan = plan_vit(geometry, VitWorkload(((1, 4, 4), (2, 4, 4)), 2))
    runner = VitGraphRunner(toy_tower(32), plan)
    runner.capture()
    for key in plan.keys:
        for name, view in runner.views(key).items():
            assert view.data_ptr() == runner.buffers[name].data_ptr()
    assert plan.key_of([(2, 4, 4)]) == plan.key_of([(1, 4, 4), (1, 4, 4)])
    x = torch.randn(32, 32)
    rotary = (torch.randn(32, 8), torch.randn(32, 8))
    for call in ([(2, 4, 4)], [(1, 4, 4), (1, 4, 4)]):
        got = runner.step(x, call, rotary=rotary)
        assert runner.last_key == plan.key_of(call)
        assert torch.equal(got, runner.step(x, call, rotary=rotary, eager=True))


def test_short_buffer_fails_before_any_capture() -> None:
    plan = plan_vit(GEOMETRIES["qwen2_5_vl"], VitWorkload(((1, 8, 8), (1, 4, 4)), 2))
    runner = VitGraphRunner(toy_tower(32), plan,
                            capacities={"block_ws": plan.capacity("block_ws") - 1})
    with pytest.raises(CapacityError):
        runner.capture()
    assert runner.graphs == {}


def test_bad_calls_are_config_errors() -> None:
    from graphfit import ConfigError

    plan = plan_vit(GEOMETRIES["qwen3_vl"], VitWorkload(((1, 4, 4),), 1))
    runner = VitGraphRunner(toy_tower(32), plan)
    runner.capture()
    with pytest.raises(ConfigError):
        runner.step(torch.randn(15, 32), [(1, 4, 4)], rotary=(torch.randn(16, 8),) * 2)
    with pytest.raises(ConfigError):
        runner.step(torch.randn(16, 32), [(1, 4, 4)], rotary=(torch.randn(16, 16),) * 2)
    with pytest.raises(ConfigError):
        runner.step(torch.randn(16, 32), [(1, 4, 4)])


def test_a_call_outside_the_workload_runs_eagerly() -> None:
    plan = plan_vit(GEOMETRIES["qwen3_vl"], VitWorkload(((1, 4, 4),), 1))
    runner = VitGraphRunner(toy_tower(32), plan)
    runner.capture()
    out = runner.step(torch.randn(64, 32), [(1, 8, 8)],
                      rotary=(torch.randn(64, 8), torch.randn(64, 8)))
    assert runner.last_key is None and out.shape == (64, 8)
