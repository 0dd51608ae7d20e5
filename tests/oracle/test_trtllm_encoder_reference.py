"""TensorRT-LLM's encoder-only CUDA graphs: graphfit's keyed dispatch == the engine's code.

The reference (tests/oracle/trtllm_reference.py `EncoderRunnerRef`, `ref.CITES
["encoder_filters"]`, `["encoder_capture_shapes"]`, `["encoder_graph_key"]`,
`["encoder_pad_batch"]`) works on lists of request lengths, as TensorRT-LLM does; graphfit
(graphfit.planner.engines.trtllm_encoder) on the (requests, tokens, longest) key. Over
generated configs and EVERY reachable (batch, tokens, longest) within the bounds:

* the filtered ladders and the captured keys are the engine's;
* every batch, realised as two different splits of its tokens, replays the engine's key
  (or runs eagerly when the engine does): the key depends on the batch's three counts only;
* the proof: every replayed graph's token rows fit TensorRT-LLM's static buffer, and
  graphfit's tight capacity (the largest captured token bucket) too; one row less fails.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit.planner.core.keyed import check_key, reachable_keys
from graphfit.planner.engines.trtllm_encoder import EncoderGraphs, capture_layout, encoder_graphs
from graphfit.planner.engines.trtllm_ladders import encoder_num_tokens, encoder_seq_lens
from tests.oracle import trtllm_reference as ref


def _even(b: int, n: int, longest: int) -> list[int]:
    """One request of `longest` tokens, the rest spread evenly (each 1..longest)."""
    if b == 1:
        return [n]
    base, extra = divmod(n - longest, b - 1)
    return [longest] + [base + 1] * extra + [base] * (b - 1 - extra)


def _greedy(b: int, n: int, longest: int) -> list[int]:
    """Another split of the same counts: fill requests to `longest` from the back."""
    out = [1] * b
    out[0] = longest
    rest = n - longest - (b - 1)
    for i in range(b - 1, 0, -1):
        add = min(rest, longest - 1)
        out[i] += add
        rest -= add
    assert rest == 0
    return out


@st.composite
def encoder_configs(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], bool, int, int,
                                              int]:
    padding = draw(st.booleans())
    S, T, L = draw(st.integers(1, 8)), draw(st.integers(1, 48)), draw(st.integers(1, 24))
    bs = draw(st.lists(st.integers(1, 12), max_size=5))
    if draw(st.booleans()):  # TensorRT-LLM's own generated buckets
        nt = list(encoder_num_tokens(draw(st.integers(1, 64)), padding))
        sl = list(encoder_seq_lens(draw(st.integers(1, 32)), padding))
    else:
        nt = draw(st.lists(st.integers(1, 64), max_size=6))
        sl = draw(st.lists(st.integers(1, 32), max_size=6))
    return bs, nt, sl, padding, S, T, L


def _both(cfg: tuple[list[int], list[int], list[int], bool, int, int, int]
          ) -> tuple[EncoderGraphs, ref.EncoderRunnerRef]:
    return encoder_graphs(*cfg), ref.encoder_runner_ref(*cfg)


@settings(max_examples=60, deadline=None)
@given(encoder_configs())
def test_ladders_and_captured_keys_are_the_engines(cfg: tuple[list[int], list[int], list[int],
                                                              bool, int, int, int]) -> None:
    ours, theirs = _both(cfg)
    assert list(ours.batch_sizes) == theirs.batch_sizes
    assert list(ours.token_buckets) == theirs.num_tokens
    assert list(ours.length_buckets) == theirs.seq_lens
    assert ours.enabled == theirs.enabled
    assert list(ours.capture_shapes()) == theirs.capture_shapes()
    assert set(ours.captured) == theirs.captured_keys()
    assert ours.static_rows == theirs.static_rows()


@settings(max_examples=40, deadline=None)
@given(encoder_configs())
def test_every_reachable_batch_replays_the_engines_key(
        cfg: tuple[list[int], list[int], list[int], bool, int, int, int]) -> None:
    ours, theirs = _both(cfg)
    captured = theirs.captured_keys()
    _, S, T, L = cfg[3:]
    for b, n, longest in reachable_keys(S, T, L):
        first = theirs.replay_key(_even(b, n, longest), captured)
        assert theirs.replay_key(_greedy(b, n, longest), captured) == first
        assert ours.lookup((b, n, longest)) == first, (b, n, longest)
        if first is not None:  # a padded key holds the batch
            assert first[0] >= b and first[1] >= n + first[0] - b and first[2] >= longest


@settings(max_examples=40, deadline=None)
@given(encoder_configs())
def test_proof_over_every_reachable_batch(
        cfg: tuple[list[int], list[int], list[int], bool, int, int, int]) -> None:
    ours, theirs = _both(cfg)
    found, checked, replayed = ours.prove()  # TensorRT-LLM's own static rows
    assert not found
    _, S, T, L = cfg[3:]
    assert checked == sum(1 for _ in reachable_keys(S, T, L))
    tight = ours.needed_rows
    assert not ours.prove(tight)[0]
    assert tight <= theirs.static_rows()
    if replayed and tight:
        # one row less: the batches of the largest replayed key go short
        short, _, _ = ours.prove(max(k[1] for k in _replayed(ours, S, T, L)) - 1)
        assert short and all(v.rows > v.capacity for v in short)


def _replayed(ours: EncoderGraphs, S: int, T: int, L: int) -> set[tuple[int, int, int]]:
    return {k for k in (ours.lookup(b) for b in reachable_keys(S, T, L)) if k is not None}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 60), st.integers(1, 30))
def test_capture_layout_is_the_engines(b: int, n: int, longest: int) -> None:
    layout = capture_layout(b, n, longest)
    expected = ref.encoder_build_capture_sequence_lengths(b, n, longest)
    assert (None if layout is None else list(layout)) == expected
    if layout is not None:
        assert check_key((len(layout), sum(layout), max(layout)))


def test_reachable_keys_are_exactly_the_splits() -> None:
    """Brute force: every list of 1..3 requests of 1..4 tokens, at most 6 tokens."""
    import itertools

    seen = set()
    for b in range(1, 4):
        for lens in itertools.product(range(1, 5), repeat=b):
            if sum(lens) <= 6:
                seen.add((b, sum(lens), max(lens)))
    assert set(reachable_keys(3, 6, 4)) == seen
