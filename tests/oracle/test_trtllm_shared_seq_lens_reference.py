"""The fixed-slot encoder-decoder graphs' device lengths: one shared `seq_lens_cuda`.

TensorRT-LLM gives each captured key's graph attention metadata its own (b,) int32
`_seq_lens_cuda` (`ref.cite_fact("graph_metadata_fresh_seq_lens")`, allocated by
`ref.cite_fact("seq_lens_setter")`), refilled from the runner's one host `seq_lens` at every
replay before the graph reads it (`ref.cite_fact("encoder_graph_seq_lens_cuda")`); with fixed
sequence slots the host rows are the batch's lengths in slot order, which change from replay to
replay (`ref.cite_fact("encdec_slot_replay")`). No cross-attention metadata shares the tensor:
such a batch runs eagerly (`ref.cite_fact("encoder_graph_no_cross")`).

graphfit plans one `seq_lens_cuda` for every key instead (s37t; kept by s38s). Over generated
fixed-slot configs and an interleaved run of every reachable batch, with the shared buffer
poisoned before each step (a harder neighbour than another key's lengths), the rows each
graph reads are the engine's per-key tensor after its refill, and the output equals eager.
The engine's per-key tensors do hold stale lengths before a refill (counted), so the sharing
is safe only because every replay refills first; a skipped refill (planted here) is caught.
"""

from __future__ import annotations

import random

import torch
from hypothesis import given, settings

from graphfit import Plan
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.cudagraph.rehearsal import KeyedToyForward
from graphfit.planner.engines.trtllm_encdec import CAPTURE_OFFSETS
from graphfit.planner.engines.trtllm_encoder import SEQ_LENS_DEVICE
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_capture_offsets_reference import _plan as _planned
from tests.oracle.test_trtllm_encdec_reference import Cfg, _multisets, encdec_configs

POISON = -7


def _plan(cfg: Cfg) -> tuple[Plan, ref.EncDecRunnerRef]:
    """The config planned with fixed sequence slots (T5), and the engine's runner."""
    return _planned(cfg, True)


def _interleaved(cfg: Cfg, seed: int) -> list[tuple[int, ...]]:
    """Every batch within the bounds (tokens capped at 14), each in both orders, shuffled so
    consecutive replays change keys."""
    _, _, _, _, S, T, L = cfg
    batches = [order for m in _multisets(S, min(T, 14), L) for order in {m, m[::-1]}]
    random.Random(seed).shuffle(batches)
    return batches


def _run(cfg: Cfg, runner: KeyedGraphRunner, theirs: ref.EncDecRunnerRef
         ) -> tuple[int, int, list[str]]:
    """(replays, replays where the engine's tensor held stale lengths, mismatches)."""
    engine = ref.GraphSeqLensRef(sorted(theirs.captured_keys()))
    captured = theirs.captured_keys()
    gen = torch.Generator().manual_seed(0)
    replays = stale = 0
    bad: list[str] = []
    assert runner.seq_lens_cuda is not None
    for lens in _interleaved(cfg, seed=len(captured)):
        key = theirs.replay_key(list(lens), captured)
        if key is None or theirs.replay_raises(list(lens), captured):
            continue
        ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
        _, _, slot_lens, _ = ref.slotted_replay(theirs, key, list(lens), ids.tolist(),
                                                [0] * key[1])
        before, read = engine.replay(key, slot_lens)
        stale += before != read
        runner.seq_lens_cuda.fill_(POISON)
        got = runner.step(ids, lens)
        replays += 1
        mine = runner.seq_lens_cuda[:key[0]].tolist()
        if runner.last_key != key or mine != read:
            bad.append(f"{lens}: key {runner.last_key} vs {key}, rows {mine} vs {read}")
        elif not torch.equal(got, runner.step(ids, lens, eager=True)):
            bad.append(f"{lens}: graph output != eager")
    return replays, stale, bad


@settings(max_examples=12, deadline=None)
@given(encdec_configs())
def test_shared_lengths_read_what_the_engines_per_key_tensors_hold(cfg: Cfg) -> None:
    p, theirs = _plan(cfg)
    comp = p.keyed["encoder"]
    names = {b.name for b in comp.buffers}
    captured = theirs.captured_keys()
    if not captured:  # graphs off, or no key left: no engine tensor, no planned row
        assert CAPTURE_OFFSETS not in names or comp.buffer(CAPTURE_OFFSETS).bytes == 0
        assert SEQ_LENS_DEVICE not in names or comp.buffer(SEQ_LENS_DEVICE).bytes == 0
        return
    b = comp.buffer(SEQ_LENS_DEVICE)
    # one buffer: the largest key's rows; the reference, the engine's tensors together
    assert b.capacity == max(k[0] for k in captured), ref.cite_fact(
        "graph_metadata_fresh_seq_lens")
    assert b.reference_bytes == 4 * sum(k[0] for k in captured), ref.cite_fact(
        "graph_metadata_fresh_seq_lens")
    runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
    runner.capture()
    replays, _, bad = _run(cfg, runner, theirs)
    assert not bad, (ref.cite_fact("seq_lens_setter"), ref.cite_fact("encdec_slot_replay"),
                     cfg, replays, bad[:3])


def _two_key_cfg() -> Cfg:
    """A config with several captured keys of one batch size (their slots differ)."""
    return ([1, 2], [4, 6], [2, 4], True, 2, 6, 4)


def test_engine_tensors_go_stale_between_replays() -> None:
    """The restated engine: a key's tensor holds the previous replay's lengths (or the ones it
    was allocated with) until its graph refills it, so an unrefilled read would differ."""
    cfg = _two_key_cfg()
    p, theirs = _plan(cfg)
    assert len(theirs.captured_keys()) > 1
    runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
    runner.capture()
    replays, stale, bad = _run(cfg, runner, theirs)
    assert not bad, bad[:3]
    assert replays > 0 and stale > 0, (replays, stale)


def test_a_skipped_lengths_refill_is_caught() -> None:
    """Planted: the graphs' lengths copy skipped (recorded or eager); the poisoned rows stay."""
    cfg = _two_key_cfg()
    p, theirs = _plan(cfg)
    runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
    refill = runner._refill

    def skip_lengths(name: str, device: torch.Tensor, host: torch.Tensor, rows: int) -> None:
        if name != "seq_lens":
            refill(name, device, host, rows)

    runner._refill = skip_lengths  # type: ignore[method-assign]
    runner.capture()
    replays, _, bad = _run(cfg, runner, theirs)
    assert replays > 0 and bad, "a missing lengths refill went unnoticed"
