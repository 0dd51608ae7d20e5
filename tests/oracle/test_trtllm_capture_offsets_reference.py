"""TensorRT-LLM's fixed sequence slots' boundaries (`ref.cite_fact("encdec_capture_offsets")`):
with `use_fixed_sequence_slots` (T5) the encoder-decoder runner gives each captured key's graph
metadata its own (b + 1,) int32 device `capture_offsets_cuda`, the running sum of the key's
capture layout (`ref.cite_fact("encdec_capture_offset_values")`), never rewritten; a replay
scatters each request to its slot's offset and gathers the output back in request order
(`ref.cite_fact("encdec_slot_scatter")`).

graphfit plans one `capture_offsets_cuda` device buffer with a region per captured key. Over
generated configs: the plan's buffer holds the engine's bytes (one region per key, disjoint,
b + 1 rows each), none is planned without fixed slots, and the runtime (`KeyedGraphRunner`,
CPU backend) writes each key's engine offsets at capture, stages every reachable batch's
tokens, positions and slot lengths where the engine's replay does, returns the rows its
restore does, and equals eager.
"""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig, Plan, plan
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.cudagraph.rehearsal import KeyedToyForward, rehearse
from graphfit.planner.engines.trtllm_encdec import CAPTURE_OFFSETS
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_encdec_reference import Cfg, _multisets, encdec_configs


def _plan(cfg: Cfg, fixed: bool) -> tuple[Plan, ref.EncDecRunnerRef]:
    sizes, tokens, lengths, padding, S, T, L = cfg
    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": max(T, 8),
        "max_model_len": L,
        "options": {"encoder_graph_batch_sizes": sizes, "encoder_graph_padding": padding,
                    "encoder_graph_num_tokens": tokens, "encoder_graph_seq_lens": lengths,
                    "encoder_max_batch_size": S, "encoder_max_num_tokens": T,
                    "encoder_fixed_slots": fixed}}))
    assert isinstance(p, Plan)
    return p, ref.encdec_runner_ref(sizes, tokens, lengths, padding, S, T, L, fixed)


@settings(max_examples=40, deadline=None)
@given(encdec_configs(), st.booleans())
def test_planned_boundaries_are_the_engines_tensors(cfg: Cfg, fixed: bool) -> None:
    p, theirs = _plan(cfg, fixed)
    comp = p.keyed["encoder"]
    tensors = ref.graph_capture_offsets(theirs)
    names = {b.name for b in comp.buffers}
    assert (CAPTURE_OFFSETS in names) == bool(tensors), (ref.cite_fact(
        "encdec_capture_offsets"), cfg, fixed)
    if not tensors:
        return
    b = comp.buffer(CAPTURE_OFFSETS)
    engine_bytes = sum(len(values) * 4 for values, _ in tensors.values())
    assert b.on_device and b.dtype == "int32" and not b.pinned
    assert b.reference_bytes == engine_bytes == b.bytes, (ref.cite_fact(
        "encdec_capture_offsets"), cfg)
    # each key's region: its own b + 1 rows, disjoint, inside the capacity
    regions = sorted((comp.dispatch.rows_of(k, CAPTURE_OFFSETS) - len(v), len(v))
                     for k, (v, _) in tensors.items())
    used = set()
    for start, rows in regions:
        span = set(range(start, start + rows))
        assert start >= 0 and start + rows <= b.capacity and not span & used
        used |= span


@settings(max_examples=15, deadline=None)
@given(encdec_configs())
def test_replays_stage_and_restore_as_the_engine(cfg: Cfg) -> None:
    """Every batch of request lengths within the bounds (tokens capped at 14) that replays a
    graph: the graph's boundaries, staged rows and slot lengths are the engine's, its
    returned rows are the engine's restore of the graph output, and it equals eager."""
    p, theirs = _plan(cfg, True)
    if CAPTURE_OFFSETS not in {b.name for b in p.keyed["encoder"].buffers}:
        return
    runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
    runner.capture()
    assert runner.capture_offsets is not None
    for key, (values, _) in ref.graph_capture_offsets(theirs).items():
        assert runner._boundaries(key).tolist() == values, ref.cite_fact(
            "encdec_capture_offset_values")
    _, _, _, _, S, T, L = cfg
    gen = torch.Generator().manual_seed(0)
    captured = theirs.captured_keys()
    # each multiset longest first and reversed (shortest first: a request then needs a
    # slot other than its own index whenever the layout's slots differ)
    batches = [order for m in _multisets(S, min(T, 14), L) for order in {m, m[::-1]}]
    for lens in batches:
        key = theirs.replay_key(list(lens), captured)
        if key is None or theirs.replay_raises(list(lens), captured):
            continue
        ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
        got = runner.step(ids, lens)
        assert runner.last_key == key, (lens, key)
        graph_out = runner.graphs[key].replay()
        want_ids, want_pos, slot_lens, restored = ref.slotted_replay(
            theirs, key, list(lens), ids.tolist(), list(graph_out))
        assert runner.input_ids[:key[1]].tolist() == want_ids, (ref.cite_fact(
            "encdec_slot_scatter"), lens, key)
        assert runner.position_ids[:key[1]].tolist() == want_pos, lens
        assert runner.seq_lens_cuda is not None
        assert runner.seq_lens_cuda[:key[0]].tolist() == slot_lens, lens
        assert torch.equal(got, torch.stack(restored)), lens
        assert torch.equal(got, runner.step(ids, lens, eager=True)), lens


def test_rehearse_replays_fixed_slot_graphs_equal_to_eager() -> None:
    """`graphfit rehearse`'s path: every fixed-slot graph captured and replayed == eager;
    boundaries read reversed and never written (a planted error) make it fail."""
    p, _ = _plan(([1, 2, 3], [6, 10, 12, 16], [5, 8], True, 3, 16, 8), True)
    report = rehearse(p)
    assert report.ok
    enc = next(c for c in report.components if c.component == "encoder")
    assert enc.replayed == enc.graphs > 0 and CAPTURE_OFFSETS in " ".join(enc.inputs)

    original = KeyedGraphRunner._boundaries

    def shifted(self: KeyedGraphRunner, key: tuple[int, ...]) -> Any:
        view = original(self, key)
        return view.flip(0) if view.shape[0] > 1 else view

    KeyedGraphRunner._boundaries = shifted  # type: ignore[method-assign]
    try:
        assert not rehearse(p).ok
    finally:
        KeyedGraphRunner._boundaries = original  # type: ignore[method-assign]
