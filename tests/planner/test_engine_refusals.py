"""The engine's refusals (`EngineRefusal`): reachable batches the engine's own code raises on
when it replays a graph (TensorRT-LLM's fixed encoder slots without padding). The engine's
verdict fails on them; graphfit's own plan and an audit of capacities do not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.core.verify import EngineRefusal
from graphfit.planner.engines.trtllm_encdec import other_split
from graphfit.planner.engines.trtllm_encoder import capture_layout


def _batches(tokens: int, requests: int, low: int, cap: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of `requests` lengths in 1..cap summing to `tokens`, longest > low."""
    def grow(room: int, left: int, top: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            if room == 0:
                yield ()
            return
        for v in range(min(top, room - (left - 1)), 0, -1):
            yield from (((v, *rest)) for rest in grow(room - v, left - 1, v))
    yield from (b for b in grow(tokens, requests, cap) if b[0] > low)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 20), st.integers(1, 12), st.data())
def test_other_split_finds_another_batch_exactly_when_one_exists(
        b: int, n: int, longest: int, data: st.DataObject) -> None:
    """`other_split` (one token moved) is None exactly when the capture layout is the only
    batch of its counts within the bounds, and otherwise one of those batches."""
    layout = capture_layout(b, n, longest)
    if layout is None:
        return
    slots = tuple(sorted(layout, reverse=True))
    low = data.draw(st.integers(0, slots[0] - 1))
    cap = data.draw(st.integers(slots[0], slots[0] + 4))
    found = other_split(slots, low, cap)
    every = set(_batches(n, b, low, cap))
    assert slots in every
    assert (found is None) == (every == {slots})
    if found is not None:
        assert found in every and found != slots


def _t5(padding: bool) -> EngineConfig:
    return EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 512,
        "max_model_len": 128, "options": {
            "encoder_graph_batch_sizes": [1, 2, 4], "encoder_graph_num_tokens": [32, 64, 128],
            "encoder_graph_seq_lens": [16, 64], "encoder_graph_padding": padding,
            "encoder_max_batch_size": 4, "encoder_fixed_slots": True}})


def test_refusals_fail_the_engines_verdict_only() -> None:
    refused = plan(_t5(False))
    assert len(refused.refusals) == 6
    assert refused.verify().ok  # graphfit's runtime replays these batches
    engine = refused.verify_engine()
    assert not engine.ok and engine.refusals == refused.refusals and not engine.ranges()
    audit = refused.verify(capacities={"encoder.input_ids": 128})
    assert audit.ok and not audit.refusals
    padded = plan(_t5(True))
    assert padded.refusals == () and padded.verify_engine().ok


def test_an_engine_refusal_is_validated() -> None:
    with pytest.raises(ConfigError, match="example"):
        EngineRefusal("encoder", "2,10,8", "every batch", (), "raises")
    with pytest.raises(ConfigError, match="error"):
        EngineRefusal("encoder", "2,10,8", "every batch", (7, 3), "")
    r = EngineRefusal("encoder", "2,10,8", "every batch of 2 requests", (7, 3), "it raises")
    assert r.describe() == "encoder graph 2,10,8: it raises for every batch of 2 requests " \
                           "(e.g. [7, 3])"
