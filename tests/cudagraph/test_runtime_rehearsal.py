"""`graphfit.cudagraph.rehearsal` on generated configs: for any config `plan()` accepts, every
graph of every component is captured (one per padded size of the plan's ladder, the toy
forwards reading per-token buffers only) and a batch dispatched to each replays bit-equal to
eager."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import graphfit
from graphfit.cudagraph.rehearsal import ToyForward, rehearse
from graphfit.testing import engine_configs

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def small(config: graphfit.EngineConfig) -> graphfit.EngineConfig | None:
    """The config with a small hidden size (the buffers' widths; rows are what is tested)."""
    try:
        return config.replace(hidden_size=16)
    except graphfit.GraphfitError:
        return None


@settings(max_examples=12)
@given(engine_configs(max_seqs=24).map(small).filter(lambda c: c is not None))
def test_every_graph_captured_and_replayed_equal_to_eager(config: graphfit.EngineConfig | None
                                                          ) -> None:
    assert config is not None
    p = graphfit.plan(config)
    report = rehearse(p)
    assert report.ok, [(c.component, c.mismatches, c.unreached) for c in report.components]
    assert report.replayed == report.graphs == len(report.capture.events)
    for part in report.components:
        assert part.graphs == len({k.padded for k in p.graph_keys(part.component)})
    # one session, largest static shape first across components
    sizes = [e.key.padded for e in report.capture.events]
    assert sizes == sorted(sizes, reverse=True)
    rehearsed = {c.component for c in report.components}
    assert rehearsed | set(report.skipped) == set(p.components)
    assert all(p.graph_keys(name) for name in rehearsed)


def test_a_plan_without_graphs_rehearses_nothing() -> None:
    p = graphfit.plan(graphfit.EngineConfig(max_num_seqs=8, cudagraph_mode="NONE"))
    report = rehearse(p)
    assert report.graphs == 0 and report.ok and set(report.skipped) == set(p.components)




@pytest.mark.parametrize("mode", ["compact", "cap-accept"])
def test_dspark_ragged_verify_lines_rehearse(mode: str) -> None:
    """A DSPARK plan under SGLANG_RAGGED_VERIFY_MODE=compact / cap-accept: the target and the
    draft (its confidence outputs among its buffers) replay equal to eager; under compact the
    token tiers too, through their own runner (graphfit.cudagraph.compact), one graph each."""
    config = graphfit.EngineConfig.from_dict({
        "engine": "sglang", "spec_method": "dspark", "max_num_seqs": 6,
        "speculative_num_draft_tokens": 4, "max_cudagraph_capture_size": 4,
        "hidden_size": 16, "vocab_size": 64,
        "options": {"ragged_verify_mode": mode, "dspark_target_layers": 2}})
    p = graphfit.plan(config)
    report = rehearse(p)
    assert report.ok and report.replayed == report.graphs
    assert {"target", "dspark_draft"} <= {c.component for c in report.components}
    parts = {c.component: c for c in report.components}
    assert "target_compact" not in report.skipped
    assert ("target_compact" in parts) == (mode == "compact")
    if mode == "compact":
        tiers = p.keyed["target_compact"].graph_keys
        assert parts["target_compact"].graphs == parts["target_compact"].replayed == len(tiers)
        captured = {e.key.padded for e in report.capture.events
                    if e.runner == "target_compact"}
        assert captured == set(tiers)  # captured in the one session


@settings(max_examples=40)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 80),
       st.sampled_from([torch.float32, torch.int32]))
def test_a_toy_forward_row_depends_on_that_row_alone(rows: int, real: int, width: int,
                                                     dtype: torch.dtype) -> None:
    """A replay runs the toy forward over the graph's padded rows, the eager run over the real
    rows alone: the real rows' outputs must be the same bits whatever the row count (a BLAS
    matmul may sum in another order for 7 rows than for 8; a generated staged engine's 7-token
    batch on its 8-token graph once differed in the last bit)."""
    real = min(real, rows)
    gen = torch.Generator().manual_seed(rows * 100 + width)
    data = (torch.randn(rows, width, generator=gen) * 300).to(dtype)
    model = ToyForward({"x": width, "y": 2}, {"x": 0, "y": 0})
    pair = data[:, :2].clone()
    padded = model({"x": data, "y": pair})
    alone = model({"x": data[:real], "y": pair[:real]})
    assert torch.equal(padded[:real], alone)
