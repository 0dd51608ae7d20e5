"""GraphRunner.prepare / replay: one validation path, a frozen step, replays == step == eager."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from graphfit import BatchError, CapacityError, CUDAGraphMode, GraphfitError, plan
from graphfit.cudagraph import GraphRunner, PreparedStep, StaticBuffers
from tests.cudagraph.runtime_models import SMALL, TinyDrafter, TinyTarget, target_batch

S, Q, T = SMALL.max_num_seqs, SMALL.uniform_query_len, SMALL.max_num_batched_tokens
P = plan(SMALL)


def target_runner() -> tuple[StaticBuffers, GraphRunner, TinyTarget]:
    bufs = StaticBuffers.allocate(P, "cpu", "target")
    model = TinyTarget()
    return bufs, GraphRunner(model.graph_fn, P, bufs), model


def eager(model: TinyTarget, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    with torch.no_grad():
        return model(batch["input_ids"], batch["positions"], batch["query_start_loc"],
                     batch["seq_lens"])


def test_prepare_is_a_frozen_checked_step_that_replays_new_values() -> None:
    bufs, runner, model = target_runner()
    gen = torch.Generator().manual_seed(0)
    batch = target_batch(gen, 13, 4)
    prepared = runner.prepare(batch)
    assert isinstance(prepared, PreparedStep)
    d = P.pad(13, num_reqs=4)
    assert prepared.dispatch == d and prepared.key == runner.key(d)
    assert (prepared.num_tokens, prepared.num_reqs, prepared.inputs) == (13, 4, tuple(batch))
    assert prepared.rows == d.padded and prepared.keep == 13
    with pytest.raises(dataclasses.FrozenInstanceError):
        prepared.num_tokens = 14  # type: ignore[misc]
    for _ in range(3):  # same shapes, new values: replay == step == eager
        again = target_batch(gen, 13, 4)
        bufs.poison()
        out = runner.replay(prepared, again)
        torch.testing.assert_close(out, eager(model, again))
        torch.testing.assert_close(runner.step(again), out)
        assert runner.last_dispatch == d


def test_eager_and_none_batches_prepare_to_no_graph() -> None:
    _, runner, model = target_runner()
    gen = torch.Generator().manual_seed(1)
    small = target_batch(gen, 9, 3)
    prepared = runner.prepare(small, eager=True)
    assert prepared.key is None and prepared.rows == prepared.keep == 9
    torch.testing.assert_close(runner.replay(prepared, small), eager(model, small))
    big = target_batch(gen, T, S)  # past the largest capture size: NONE, unpadded
    d = runner.prepare(big)
    assert d.dispatch.mode is CUDAGraphMode.NONE and d.key is None
    torch.testing.assert_close(runner.replay(d, big), eager(model, big))


def test_replay_refuses_another_batch_runner_or_stale_step() -> None:
    _, runner, _ = target_runner()
    gen = torch.Generator().manual_seed(2)
    batch = target_batch(gen, 13, 4)
    prepared = runner.prepare(batch)
    with pytest.raises(BatchError, match="prepare this batch"):
        runner.replay(prepared, target_batch(gen, 14, 4))
    with pytest.raises(BatchError, match="prepare this batch"):
        runner.replay(prepared, {k: batch[k] for k in reversed(list(batch))})
    with pytest.raises(BatchError, match="PreparedStep"):
        runner.replay("13 tokens", batch)  # type: ignore[arg-type]
    _, other, _ = target_runner()
    with pytest.raises(BatchError, match="another runner"):
        other.replay(prepared, batch)
    runner.release()
    with pytest.raises(BatchError, match="released or recaptured"):
        runner.replay(prepared, batch)
    runner.capture()
    with pytest.raises(BatchError, match="released or recaptured"):
        runner.replay(prepared, batch)
    runner.replay(runner.prepare(batch), batch)


def _outcome(call: object) -> tuple[str, str]:
    try:
        call()  # type: ignore[operator]
    except GraphfitError as exc:
        return type(exc).__name__, str(exc)
    return "ok", ""


@given(n=st.integers(-1, S * Q + 2), tokens_given=st.booleans(),
       rows=st.integers(0, S * Q + 2), dtype=st.sampled_from([torch.int32, torch.int64]),
       extra=st.sampled_from([None, "context_positions", "arange"]))
def test_step_and_prepare_agree_on_every_batch(n: int, tokens_given: bool, rows: int,
                                                dtype: torch.dtype, extra: str | None) -> None:
    # one validation path: a batch step refuses is one prepare refuses, with the same error
    runner = _drafter_runner()
    inputs = {"input_ids": torch.zeros(rows, dtype=dtype)}
    if extra:
        inputs[extra] = torch.zeros(rows, dtype=torch.int64)
    kwargs = {"num_tokens": n} if tokens_given else {}
    prepared = _outcome(lambda: runner.prepare(inputs, **kwargs))
    stepped = _outcome(lambda: runner.step(inputs, **kwargs))
    assert prepared == stepped
    if stepped[0] == "ok":
        assert runner.step(inputs, **kwargs).shape[0] == rows
    elif rows > S * Q and dtype is torch.int32 and not extra and not tokens_given:
        assert stepped[0] == CapacityError.__name__


_DRAFTER: list[GraphRunner] = []


def _drafter_runner() -> GraphRunner:
    if not _DRAFTER:
        bufs = StaticBuffers.allocate(P, "cpu", "drafter")
        _DRAFTER.append(GraphRunner(TinyDrafter().graph_fn, P, bufs,
                                    graph_inputs=("input_ids", "positions")))
    return _DRAFTER[0]
