"""TensorRT-LLM's encoder CUDA graphs of an encoder-decoder model (`encoder_cuda_graph_config`,
token mode): graphfit's keyed dispatch == the engine's code.

The reference (tests/oracle/trtllm_reference.py `EncDecRunnerRef`, `ref.CITES
["encdec_capture_layouts"]`, `["encdec_dynamic_key"]`, `["encdec_dispatch"]`,
`["encdec_static_rows"]`, `["encdec_bucket_check"]`, `["encdec_config"]`) works on lists of
request lengths, as TensorRT-LLM does; graphfit (graphfit.planner.engines.trtllm_encdec) on
the (requests, tokens, longest) key. Over generated configs and every reachable batch within
the bounds:

* the filtered ladders, the capture layouts' keys and the keys the capture pass captures are
  the engine's, and its static rows (the encoder's max_num_tokens);
* without fixed sequence slots every batch (two different splits of its counts) replays the
  engine's key; with them (T5) the engine's key for a split is graphfit's slot-free key or a
  later captured one, or eager, and never a key graphfit did not plan rows for;
* the proof: every replayed graph's rows fit graphfit's capacity (the largest captured token
  bucket), which is at most TensorRT-LLM's rows; one row less fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from graphfit.planner.core.keyed import reachable_keys
from graphfit.planner.engines.trtllm_encdec import EncDecGraphs, encdec_graphs
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_encoder_reference import (
    _check_encoder_component,
    _check_proof,
    _even,
    _greedy,
    encoder_configs,
)
from tests.oracle.test_trtllm_reference import graphfit_config

Cfg = tuple[list[int], list[int], list[int], bool, int, int, int]


def encdec_configs() -> st.SearchStrategy[Cfg]:
    """The encoder-only tests' configs with every list non-empty (a token encoder-decoder
    model needs both bucket lists)."""
    return encoder_configs(min_size=1)


def _both(cfg: Cfg, fixed: bool) -> tuple[EncDecGraphs, ref.EncDecRunnerRef]:
    return encdec_graphs(*cfg), ref.encdec_runner_ref(*cfg, fixed)


@settings(max_examples=60, deadline=None)
@given(encdec_configs(), st.booleans())
def test_ladders_layouts_and_captured_keys_are_the_engines(cfg: Cfg, fixed: bool) -> None:
    ours, theirs = _both(cfg, fixed)
    assert list(ours.batch_sizes) == theirs.batch_sizes
    assert list(ours.token_buckets) == theirs.num_tokens
    assert list(ours.length_buckets) == theirs.seq_lens
    assert {k: list(v) for k, v in ours.layouts.items()} == theirs.layouts
    # the capture pass captures exactly the layouts' keys, each from its own layout
    assert set(ours.captured) == theirs.captured_keys() == set(theirs.capture_keys)
    assert ours.static_rows == theirs.static_rows() == (cfg[5] if theirs.enabled else 0)
    assert ours.seq_lens_rows == theirs.seq_lens_rows()


def _multisets(max_requests: int, max_tokens: int, max_longest: int
               ) -> Iterator[tuple[int, ...]]:
    """Every batch of request lengths (longest first) within the bounds: each distinct
    multiset once, so every slot assignment the engine can face."""
    def grow(prefix: tuple[int, ...], room: int, top: int) -> Iterator[tuple[int, ...]]:
        if prefix:
            yield prefix
        if len(prefix) == max_requests:
            return
        for length in range(min(top, room), 0, -1):
            yield from grow((*prefix, length), room - length, length)
    yield from grow((), max_tokens, max_longest)


@settings(max_examples=40, deadline=None)
@given(encdec_configs(), st.booleans())
def test_every_reachable_batch_replays_the_engines_key(cfg: Cfg, fixed: bool) -> None:
    """`cite_fact("encdec_dynamic_key")`, `cite_fact("encdec_dispatch")`: without fixed
    slots a batch is its (requests, tokens, longest) and two splits of those replay the same
    key; with them (`cite_fact("encdec_fixed_slots")`) a batch is its request lengths and
    graphfit's key is the engine's for each split."""
    ours, theirs = encdec_graphs(*cfg, fixed_slots=fixed), ref.encdec_runner_ref(*cfg, fixed)
    captured = theirs.captured_keys()
    _, S, T, L = cfg[3:]
    for b, n, longest in reachable_keys(S, T, L):
        for split in (_even(b, n, longest), _greedy(b, n, longest)):
            key = theirs.replay_key(split, captured)
            mine = ours.lookup(tuple(split) if fixed else (b, n, longest))
            assert mine == key, (b, n, longest, split)
            if mine is not None:  # a padded key holds the batch and its dummies
                assert mine[0] >= b and mine[1] >= n + mine[0] - b and mine[2] >= longest


@settings(max_examples=40, deadline=None)
@given(encdec_configs())
def test_fixed_slots_key_is_the_engines_for_every_batch_of_lengths(cfg: Cfg) -> None:
    """Fixed sequence slots (T5): over every multiset of request lengths within the bounds
    (tokens capped at 20 to keep it fast), graphfit's key is the restated engine's
    (`_get_dynamic_capture_key` with its slot check, `cite_fact("encdec_dynamic_key")`),
    every replayed batch fits its key (requests, tokens with the one-token dummies, longest,
    and a distinct slot of the key's layout each, so it reads no more than the key's rows),
    and `slot_error` names exactly the batches whose replay TensorRT-LLM refuses with
    ValueError (`cite_fact("encdec_slot_replay")`: without padding only)."""
    ours, theirs = encdec_graphs(*cfg, fixed_slots=True), ref.encdec_runner_ref(*cfg, True)
    captured = theirs.captured_keys()
    assert set(ours.captured) == captured
    padding, S, T, L = cfg[3:]
    for lengths in _multisets(S, min(T, 20), L):
        seq = list(lengths)
        key = theirs.replay_key(seq, captured)
        for order in (lengths, lengths[::-1]):  # a request may take any slot
            assert ours.lookup(order) == key, (lengths, key)
        assert ours.slot_error(lengths) == theirs.replay_raises(seq, captured), lengths
        if key is None:
            continue
        b, n, longest = len(seq), sum(seq), max(seq)
        assert key[0] >= b and key[1] >= n + key[0] - b and key[2] >= longest
        assert key[1] <= ours.needed_rows
        padded = (*lengths, *([1] * (key[0] - b)))
        if padding:  # the key was chosen by its slots
            assert not ours.slot_error(lengths)
            assert ours.fits_slots(key, padded)
        assert ours.fits_slots(key, padded) != ours.slot_error(lengths)


@settings(max_examples=40, deadline=None)
@given(encdec_configs())
def test_slot_refusals_are_the_keys_whose_replay_the_engine_refuses(cfg: Cfg) -> None:
    """`slot_refusals` (what `graphfit plan` / `check` report as the engine's refusals) names
    exactly the captured keys some batch within the bounds resolves to and then raises on
    (`cite_fact("encdec_slot_replay")`, `prepare_encoder_decoder_inputs` 1709-1712), over
    every multiset of request lengths (tokens capped at 20), and each key's example is such
    a batch; with padding there are none. Without padding a key's only batch that does not
    raise is its capture layout."""
    ours, theirs = encdec_graphs(*cfg, fixed_slots=True), ref.encdec_runner_ref(*cfg, True)
    captured = theirs.captured_keys()
    padding, S, T, L = cfg[3:]
    top = min(T, 20)
    raising: set[tuple[int, int, int]] = set()
    for lengths in _multisets(S, top, L):
        seq = list(lengths)
        if theirs.replay_raises(seq, captured):
            key = theirs.replay_key(seq, captured)
            assert key is not None and key[1] == sum(seq)  # no padding: exact tokens
            raising.add(key)
        elif not padding and (key := theirs.replay_key(seq, captured)) is not None:
            assert lengths == tuple(sorted(ours.layouts[key], reverse=True)), lengths
    refused = dict(ours.slot_refusals)
    assert {k for k in refused if k[1] <= top} == raising
    assert not padding or not refused
    for key, example in refused.items():
        assert theirs.replay_raises(list(example), captured), (key, example)
        assert theirs.replay_key(list(example), captured) == key
        assert ours.slot_error(example) and len(example) <= S and max(example) <= L
    assert [r.key for r in ours.refusals("encoder")] == [
        ",".join(map(str, k)) for k in refused]


def test_fixed_slots_change_the_key_the_counts_alone_give() -> None:
    """The counts do not decide the key: [6, 4] and [5, 5] have the same (2, 10, 6) but the
    first fits no slot of the (2, 10, 8) graph's layout [8, 2] ... with padding it moves to a
    larger captured key, without padding TensorRT-LLM raises ValueError at replay."""
    args = ([2], [10, 12, 16], [5, 8], True, 2, 16, 8)
    ours, theirs = encdec_graphs(*args, fixed_slots=True), ref.encdec_runner_ref(*args, True)
    captured = theirs.captured_keys()
    assert ours.layouts[(2, 10, 8)] == (8, 2)
    free = encdec_graphs(*args)
    assert free.lookup((2, 10, 6)) == (2, 10, 8)
    for lengths in ((6, 4), (7, 3), (8, 2)):
        assert ours.lookup(lengths) == theirs.replay_key(list(lengths), captured)
    assert ours.lookup((8, 2)) == (2, 10, 8)
    assert ours.lookup((6, 4)) == theirs.replay_key([6, 4], captured) == (2, 12, 8)
    plain = encdec_graphs(*args[:3], False, *args[4:], fixed_slots=True)
    assert plain.lookup((6, 4)) == (2, 10, 8) and plain.slot_error((6, 4))
    assert plain.slot_refusals == (((2, 10, 8), (7, 3)), ((2, 12, 8), (7, 5)))
    assert ref.encdec_runner_ref(*args[:3], False, *args[4:], True).replay_raises(
        [6, 4], captured)
    with pytest.raises(ConfigError, match="request lengths"):
        ours.lookup((2, 10, 0))


@settings(max_examples=40, deadline=None)
@given(encdec_configs())
def test_proof_over_every_reachable_batch(cfg: Cfg) -> None:
    ours, theirs = _both(cfg, False)
    _, S, T, L = cfg[3:]
    replayed = _check_proof(ours, theirs, S, T, L)  # TensorRT-LLM's rows (max_num_tokens)
    if replayed:
        top = max(k[1] for k in (ours.lookup(b) for b in reachable_keys(S, T, L)) if k)
        short, _, _ = ours.prove(top - 1)
        assert short and all(v.rows > v.capacity for v in short)


def test_a_token_encoder_decoder_without_both_bucket_lists_is_refused() -> None:
    with pytest.raises(ConfigError, match="seq_lens unset"):
        encdec_graphs([1, 2], [8, 16], [], True, 4, 64, 32)
    with pytest.raises(ref.Rejected):
        ref.encdec_runner_ref([1, 2], [8, 16], [], True, 4, 64, 32, False)


# --------------------------------------------------------------------------------------------
# The plan's `encoder` component from LLM-API arguments (trtllm-serve --extra_llm_api_options)
# --------------------------------------------------------------------------------------------


@st.composite
def encdec_args(draw: st.DrawFn) -> dict[str, Any]:
    """LLM-API arguments of an encoder-decoder model with encoder CUDA graphs: batch sizes
    given or generated, each bucket list given or generated from its max, the encoder's
    token budget given or falling back to max_num_tokens."""
    padding = draw(st.booleans())
    graph: dict[str, Any] = {"enable_padding": padding}
    if draw(st.booleans()):
        graph["mode"] = "encode"
    if draw(st.booleans()):
        graph["batch_sizes"] = draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))
    else:
        graph["max_batch_size"] = draw(st.integers(1, 12))
    for name, limit, top in (("num_tokens", "max_num_token", 64),
                             ("seq_lens", "max_seq_len", 32)):
        if draw(st.booleans()):
            graph[name] = draw(st.lists(st.integers(1, top), min_size=1, max_size=6))
        else:
            graph[limit] = draw(st.integers(1, top))
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 8)),
                           "max_num_tokens": draw(st.integers(1, 48)),
                           "max_seq_len": draw(st.integers(1, 24)),
                           "encoder_max_batch_size": draw(st.integers(1, 8)),
                           "encoder_cuda_graph_config": graph}
    if draw(st.booleans()):
        raw["encoder_max_num_tokens"] = draw(st.integers(1, 48))
    return raw


@settings(max_examples=40, deadline=None)
@given(encdec_args())
def test_plan_encoder_component_is_the_engines_encdec_runner(raw: dict[str, Any]) -> None:
    """`graphfit plan` of an encoder-decoder model's `encoder_cuda_graph_config`: the
    `encoder` component's bucket lists, captured keys, bounds (encoder_max_batch_size,
    encoder_max_num_tokens or max_num_tokens, max_seq_len), TensorRT-LLM's rows and every
    reachable batch's key are the restated engine's; proven, one row less fails; the decoder's
    own graphs are planned beside it."""
    theirs, bounds = ref.encdec_runner_from_args(raw)
    p = plan(graphfit_config(raw))
    comp = p.keyed["encoder"]
    captured, tokens, seq_lens = _check_encoder_component(comp, theirs, bounds)
    assert p.capture_sizes  # the decoder's graphs (cuda_graph_config) stay planned
    assert p.verify().ok and p.verify_engine().ok
    cap = max((k[1] for k in captured), default=0)
    assert {b.capacity for b in tokens} == {cap} and cap <= theirs.static_rows()
    if cap:
        assert not p.verify({"encoder.input_ids": cap - 1}).ok
        assert not p.verify({"encoder.seq_lens": seq_lens.capacity - 1}).ok


@pytest.mark.parametrize(("raw", "match"), [
    ({"encoder_cuda_graph_config": {"num_tokens": [8], "seq_lens": [8]}},
     "requires encoder_max_batch_size"),
    ({"encoder_max_batch_size": 4, "encoder_cuda_graph_config": {"num_tokens": [8]}},
     "seq_lens unset"),
    ({"encoder_max_batch_size": 4,
      "encoder_cuda_graph_config": {"num_tokens": [8], "seq_lens": [8], "mode": "decode"}},
     "mode: encode"),
    ({"encoder_max_batch_size": 0, "encoder_cuda_graph_config": None}, "must be >= 1"),
    ({"encoder_max_batch_size": 4, "encode_only": True,
      "encoder_cuda_graph_config": {"num_tokens": [8], "seq_lens": [8]}}, "not with encode_only"),
    ({"encoder_max_batch_size": 4, "cuda_graph_config": {"mode": "encode", "num_tokens": [8],
                                                         "seq_lens": [8]},
      "encoder_cuda_graph_config": {"num_tokens": [8], "seq_lens": [8]}},
     "not with cuda_graph_config mode encode"),
])
def test_refused_as_the_engine_does(raw: dict[str, Any], match: str) -> None:
    """TensorRT-LLM refuses the first five too (`cite_fact("encdec_config")`,
    `cite_fact("encdec_bucket_check")`); the last is graphfit's (an encoder-only plan and an
    encoder-decoder one at once)."""
    with pytest.raises(ConfigError, match=match):
        plan(graphfit_config({"max_seq_len": 32, **raw}))
