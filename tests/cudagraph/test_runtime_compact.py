"""`graphfit.cudagraph.compact.CompactVerifyRunner`: SGLang DSPARK's compact verify tiers over
the plan's rows. Every ragged verify batch (each request 1..width tokens) that the planner's
dispatch sends to a tier replays equal to the same batch run eagerly, whatever the staged
padding held before; a plan whose rows are cut short fails at capture, before any graph."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import graphfit
from graphfit.cudagraph.compact import COMPONENT, CompactVerifyRunner
from graphfit.planner import CapacityError, ConfigError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def compact_plan(seqs: int, window: int, cap: int) -> graphfit.Plan:
    return graphfit.plan(graphfit.EngineConfig.from_dict({
        "engine": "sglang", "spec_method": "dspark", "max_num_seqs": seqs,
        "speculative_num_draft_tokens": window, "max_cudagraph_capture_size": cap,
        "hidden_size": 16, "vocab_size": 64,
        "options": {"ragged_verify_mode": "compact", "dspark_target_layers": 1}}))


@given(seqs=st.integers(1, 12), window=st.integers(2, 5), cap=st.integers(1, 12),
       lens=st.lists(st.integers(1, 5), min_size=1, max_size=12), seed=st.integers(0, 99))
def test_every_ragged_batch_replays_equal_to_eager(seqs: int, window: int, cap: int,
                                                   lens: list[int], seed: int) -> None:
    p = compact_plan(seqs, window, cap)
    runner = CompactVerifyRunner(p)
    runner.capture()
    assert set(runner.graphs) == set(p.keyed[COMPONENT].graph_keys)
    lens = [min(n, window) for n in lens][:seqs]
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 1000, (sum(lens),), generator=gen)
    runner.input_ids.fill_(-7)  # stale rows from an earlier batch
    runner.verify_lens.fill_(3)
    got = runner.step(ids, lens)
    tier = p.keyed[COMPONENT].dispatch.lookup((len(lens), sum(lens), max(lens)))
    assert runner.last_key == tier
    assert torch.equal(got, runner.step(ids, lens, eager=True))
    assert got.shape == (len(lens),)


def test_short_rows_fail_at_capture_and_bad_batches_are_refused() -> None:
    p = compact_plan(8, 4, 8)
    runner = CompactVerifyRunner(p)
    runner.verify_lens = runner.verify_lens[:-1]  # one request row short of the plan's
    with pytest.raises(CapacityError):
        runner.capture()
    runner = CompactVerifyRunner(p)
    with pytest.raises(ConfigError):
        runner.step(torch.zeros(3, dtype=torch.int64), [2, 2])
    with pytest.raises(ConfigError, match="target_compact"):
        CompactVerifyRunner(graphfit.plan(graphfit.EngineConfig.from_dict({
            "engine": "sglang", "spec_method": "dspark", "max_num_seqs": 4,
            "speculative_num_draft_tokens": 3})))
