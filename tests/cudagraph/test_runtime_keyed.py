"""graphfit's runtime on graphs keyed on (requests, tokens, longest request): TensorRT-LLM's
encoder-only graphs (graphfit.planner.engines.trtllm_encoder). One graph per captured key of
the planner's `KeyedDispatch`, captured in a `CaptureSession` (the longest-request bucket as a
variant dimension), and every reachable batch's step equals its eager forward."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import CapacityError
from graphfit.cudagraph import CaptureSession
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.planner.core.keyed import reachable_keys
from graphfit.planner.engines.trtllm_encoder import encoder_graphs

VOCAB = 32


class TinyEncoder(torch.nn.Module):
    """Embedding plus positions, clamped to the longest-request bucket the graph bakes in (a
    real position is always below it, so padding changes no real row)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(VOCAB, 4)
        self.pos = torch.nn.Embedding(4096, 4)
        self.out = torch.nn.Linear(4, 4)

    def fn(self, views: Mapping[str, torch.Tensor], *, longest: int) -> torch.Tensor:
        pos = views["position_ids"].clamp(max=longest - 1).long()
        return self.out(torch.tanh(self.emb(views["input_ids"].long() % VOCAB)
                                   + self.pos(pos)))


def _split(b: int, n: int, longest: int) -> list[int]:
    if b == 1:
        return [n]
    base, extra = divmod(n - longest, b - 1)
    return [longest] + [base + 1] * extra + [base] * (b - 1 - extra)


@settings(max_examples=6, deadline=None)
@given(st.booleans(), st.integers(1, 4), st.integers(4, 24), st.integers(2, 10))
def test_every_reachable_batch_equals_eager(padding: bool, S: int, T: int, L: int) -> None:
    graphs = encoder_graphs([1, 2, 4], [4, 8, 16, 24], [2, 4, 8], padding, S, T, L)
    model = TinyEncoder()
    session = CaptureSession("cpu", freeze_gc=False)
    runner = KeyedGraphRunner(model.fn, graphs.dispatch, graphs.static_rows, session=session)
    report = session.capture()
    assert set(runner.graphs) == set(graphs.captured)
    assert {e.variant for e in report.events} == {(("longest", k[2]),)
                                                  for k in graphs.captured}
    gen = torch.Generator().manual_seed(1)
    replays = 0
    with torch.no_grad():
        for b, n, longest in reachable_keys(S, T, L):
            ids = torch.randint(0, VOCAB, (n,), generator=gen, dtype=torch.int32)
            lens = _split(b, n, longest)
            got = runner.step(ids, lens)
            assert runner.last_key == graphs.lookup((b, n, longest))
            replays += runner.last_key is not None
            ref = runner.step(ids, lens, eager=True)
            torch.testing.assert_close(got, ref)
    # every captured key's own layout is a reachable batch that replays it
    assert replays >= len(graphs.captured)


def test_a_short_buffer_fails_before_capture() -> None:
    graphs = encoder_graphs([1, 2], [4, 8], [4, 8], True, 2, 8, 8)
    runner = KeyedGraphRunner(TinyEncoder().fn, graphs.dispatch, graphs.needed_rows - 1)
    with pytest.raises(CapacityError):
        runner.capture()


def test_rehearsal_of_a_plan_with_an_encoder_component() -> None:
    """`graphfit rehearse` on a plan with TensorRT-LLM's encoder graphs (cuda_graph_config mode
    encode): every captured key is captured over the plan's rows and its witness batch
    replays equal to eager; the runner allocates the plan's capacity, not its own."""
    from graphfit import ConfigError, EngineConfig, plan
    from graphfit.cudagraph.rehearsal import rehearse

    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 4, "max_num_batched_tokens": 64,
        "max_model_len": 32, "cuda_graph_padding": True,
        "options": {"cuda_graph_mode": "encode", "encode_num_tokens": [8, 16, 32, 64],
                    "encode_seq_lens": [4, 16, 32]}}))
    result = rehearse(p)
    assert result.ok
    encoder = next(c for c in result.components if c.component == "encoder")
    assert encoder.graphs == encoder.replayed == len(p.keyed["encoder"].graph_keys) > 0
    assert "target" in result.skipped  # mode encode: no decode graph
    runner = KeyedGraphRunner.from_plan(TinyEncoder().fn, p)
    assert runner.input_ids.shape[0] == p.keyed["encoder"].buffers[0].capacity
    with pytest.raises(ConfigError, match="no keyed component"):
        KeyedGraphRunner.from_plan(TinyEncoder().fn, p, "prefill")


def _encdec_plan() -> object:
    from graphfit import EngineConfig, plan

    return plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 64,
        "max_model_len": 32,
        "options": {"encoder_graph_batch_sizes": [1, 2, 4], "encoder_graph_padding": True,
                    "encoder_graph_num_tokens": [8, 16, 32, 64],
                    "encoder_graph_seq_lens": [4, 16, 32], "encoder_max_batch_size": 4}}))


def test_encoder_decoder_plan_rehearses_and_stages_the_host_seq_lens() -> None:
    """An encoder-decoder model's encoder graphs (encoder_cuda_graph_config) rehearse beside
    the decoder's; the runner allocates the plan's host `seq_lens` (the largest captured
    key's requests) and a replay writes the batch's lengths then 1 per padding request (the
    engine's one-token dummies); a seq_lens one row short is refused before any capture."""
    from graphfit import Plan
    from graphfit.cudagraph.rehearsal import rehearse

    p = _encdec_plan()
    assert isinstance(p, Plan)
    result = rehearse(p)
    assert result.ok and {c.component for c in result.components} >= {"target", "encoder"}
    comp = p.keyed["encoder"]
    runner = KeyedGraphRunner.from_plan(TinyEncoder().fn, p)
    assert runner.seq_lens is not None
    assert runner.seq_lens.shape[0] == comp.buffer("seq_lens").capacity == max(
        k[0] for k in comp.graph_keys)
    runner.capture()
    lens = [3, 2, 1]  # pads to a captured key of 4 requests
    out = runner.step(torch.arange(6, dtype=torch.int32), lens)
    key = runner.last_key
    assert key is not None and key[0] == 4
    assert runner.seq_lens[:4].tolist() == [3, 2, 1, 1]
    assert torch.equal(out, runner.step(torch.arange(6, dtype=torch.int32), lens, eager=True))
    short = KeyedGraphRunner(TinyEncoder().fn, comp.dispatch, comp.buffer("input_ids").capacity,
                             seq_lens_capacity=3)
    with pytest.raises(CapacityError):
        short.capture()


def test_fixed_slot_encoder_decoder_plan_replays_the_key_of_the_lengths() -> None:
    """With fixed sequence slots (T5, `encoder_fixed_slots`) the plan's dispatch reads the
    request lengths: two batches of the same counts may replay different keys, and the
    runner replays what the plan's lookup of those lengths says (graph == eager); the
    rehearsal probes each graph with its capture layout."""
    from graphfit import EngineConfig, Plan, plan
    from graphfit.cudagraph.rehearsal import rehearse

    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 16,
        "max_model_len": 8,
        "options": {"encoder_graph_batch_sizes": [2], "encoder_graph_padding": True,
                    "encoder_graph_num_tokens": [10, 12, 16], "encoder_graph_seq_lens": [5, 8],
                    "encoder_max_batch_size": 2, "encoder_fixed_slots": True}}))
    assert isinstance(p, Plan)
    assert rehearse(p).ok
    comp = p.keyed["encoder"]
    runner = KeyedGraphRunner.from_plan(TinyEncoder().fn, p)
    runner.capture()
    keys = set()
    for lens in ([8, 2], [6, 4]):  # the same (2, 10, longest bucket 8)
        ids = torch.arange(10, dtype=torch.int32)
        out = runner.step(ids, lens)
        assert runner.last_key == comp.lookup(tuple(lens)) is not None
        keys.add(runner.last_key)
        assert torch.equal(out, runner.step(ids, lens, eager=True))
    assert len(keys) == 2
