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

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from graphfit.planner.core.keyed import check_key, reachable_keys
from graphfit.planner.engines.trtllm_encoder import EncoderGraphs, capture_layout, encoder_graphs
from graphfit.planner.engines.trtllm_ladders import encoder_num_tokens, encoder_seq_lens
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config


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
def encoder_configs(draw: st.DrawFn, min_size: int = 0
                    ) -> tuple[list[int], list[int], list[int], bool, int, int, int]:
    """(batch_sizes, num_tokens, seq_lens, padding, S, T, L) for both encoder runners: the
    lists may be empty for the encoder-only runner (min_size 0: eager, or the default list),
    not for the encoder-decoder one (min_size 1: it refuses a missing bucket list)."""
    padding = draw(st.booleans())
    S, T, L = draw(st.integers(1, 8)), draw(st.integers(1, 48)), draw(st.integers(1, 24))
    bs = draw(st.lists(st.integers(1, 12), min_size=min_size, max_size=5))
    if draw(st.booleans()):  # TensorRT-LLM's own generated buckets
        nt = list(encoder_num_tokens(draw(st.integers(1, 64)), padding))
        sl = list(encoder_seq_lens(draw(st.integers(1, 32)), padding))
    else:
        nt = draw(st.lists(st.integers(1, 64), min_size=min_size, max_size=6))
        sl = draw(st.lists(st.integers(1, 32), min_size=min_size, max_size=6))
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
    assert ours.seq_lens_rows == theirs.seq_lens_rows()


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
    _, S, T, L = cfg[3:]
    replayed = _check_proof(ours, theirs, S, T, L)
    if replayed and ours.needed_rows:
        # one row less: the batches of the largest replayed key go short
        short, _, _ = ours.prove(max(k[1] for k in _replayed(ours, S, T, L)) - 1)
        assert short and all(v.rows > v.capacity for v in short)


def _check_proof(ours: Any, theirs: Any, S: int, T: int, L: int) -> int:
    """`ours.prove()` at TensorRT-LLM's own static rows finds no short batch over every
    reachable (requests, tokens, longest) within (S, T, L), nor at graphfit's `needed_rows`,
    which stay within TensorRT-LLM's rows (encoder-only and encoder-decoder runners alike).
    Returns how many reachable batches replay a graph."""
    found, checked, replayed = ours.prove()
    assert not found
    assert checked == sum(1 for _ in reachable_keys(S, T, L))
    tight = ours.needed_rows
    assert not ours.prove(tight)[0]
    assert tight <= theirs.static_rows()
    return int(replayed)


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


# --------------------------------------------------------------------------------------------
# The plan's `encoder` component (cuda_graph_config mode encode) == the engine's runner
# --------------------------------------------------------------------------------------------


@st.composite
def encode_args(draw: st.DrawFn) -> dict[str, Any]:
    """LLM-API arguments of an encoder-only model with encoder CUDA graphs: the mode given or
    inferred from an encoder key, batch sizes given or generated, each bucket list given,
    generated from its max, or unset (the encode step then stays eager)."""
    padding = draw(st.booleans())
    graph: dict[str, Any] = {"enable_padding": padding}
    if draw(st.booleans()):
        graph["mode"] = "encode"
    if draw(st.booleans()):
        graph["batch_sizes"] = draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))
    elif draw(st.booleans()):
        graph["max_batch_size"] = draw(st.integers(0, 12))
    for name, limit, top in (("num_tokens", "max_num_token", 64),
                             ("seq_lens", "max_seq_len", 32)):
        how = draw(st.sampled_from(("list", "max", "both", "unset")))
        values = draw(st.lists(st.integers(1, top), min_size=1, max_size=6))
        if how in ("list", "both"):
            graph[name] = values
        if how in ("max", "both"):
            graph[limit] = max(values) if how == "both" else draw(st.integers(1, top))
    if "mode" not in graph and not any(k in graph for k in ("num_tokens", "max_num_token",
                                                            "seq_lens", "max_seq_len")):
        graph["mode"] = "encode"
    return {"max_batch_size": draw(st.integers(1, 8)),
            "max_num_tokens": draw(st.integers(1, 48)),
            "max_seq_len": draw(st.integers(1, 24)), "cuda_graph_config": graph}


def _check_encoder_component(comp: Any, theirs: Any, bounds: tuple[int, int, int]
                             ) -> tuple[set[tuple[int, int, int]], list[Any], Any]:
    """The checks an `encoder` keyed component passes against the restated engine runner
    `theirs` (encoder-only or encoder-decoder): bucket lists, captured keys, `bounds`,
    TensorRT-LLM's rows of the token buffers and of the pinned host seq_lens, and the key
    every reachable batch replays. Returns (captured keys, token buffers, seq_lens buffer)."""
    assert dict(comp.ladders) == {"batch_sizes": tuple(theirs.batch_sizes),
                                  "num_tokens": tuple(theirs.num_tokens),
                                  "seq_lens": tuple(theirs.seq_lens)}
    captured = theirs.captured_keys()
    assert set(comp.graph_keys) == captured
    assert comp.bounds == bounds
    tokens = [b for b in comp.buffers if b.axis.value == "tokens"]
    assert {b.reference_capacity for b in tokens} == {theirs.static_rows()}
    seq_lens = comp.buffer("seq_lens")  # the pinned host seq_lens
    assert seq_lens.reference_capacity == theirs.seq_lens_rows()
    assert seq_lens.capacity == max((k[0] for k in captured), default=0) <= \
        theirs.seq_lens_rows()
    for b, n, longest in reachable_keys(*bounds):
        assert comp.lookup((b, n, longest)) == theirs.replay_key(_even(b, n, longest),
                                                                 captured), (b, n, longest)
    return captured, tokens, seq_lens


@settings(max_examples=60, deadline=None)
@given(encode_args())
def test_plan_encoder_component_is_the_engines_runner(raw: dict[str, Any]) -> None:
    """`graphfit plan` of an `EncodeCudaGraphConfig`: the `encoder` component's bucket lists,
    captured keys, TensorRT-LLM's static rows and the key every reachable batch replays are
    the restated engine's (`ref.encoder_runner_from_args`, `ref.CITES["encoder_filters"]`,
    `["encoder_capture_shapes"]`, `["encoder_graph_key"]`, `["encoder_pad_batch"]`); the
    plan is proven (padded <= capacity for every key, one row less fails on a reachable
    batch) and no decode graph is planned beside it."""
    theirs = ref.encoder_runner_from_args(raw)
    p = plan(graphfit_config(raw))
    comp = p.keyed["encoder"]
    captured, tokens, _ = _check_encoder_component(
        comp, theirs, (raw["max_batch_size"], raw["max_num_tokens"], raw["max_seq_len"]))
    assert not p.capture_sizes  # the decoder runner captures nothing in mode encode
    assert p.verify().ok and p.verify_engine().ok
    cap = max((k[1] for k in captured), default=0)
    assert {b.capacity for b in tokens} == {cap} and cap <= theirs.static_rows()
    if cap:
        short = p.verify({"encoder.input_ids": cap - 1})
        assert not short.ok
        for r in short.ranges():  # each names a batch the engine replays past the capacity
            witness = next(comp.witnesses[k] for k in comp.graph_keys
                           if k[1] == r.padded and comp.witnesses[k][1] == r.first)
            key = theirs.replay_key(_even(*witness), captured)
            assert key is not None and key[1] == r.padded > r.capacity == cap - 1


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["mode", "batch_sizes", "max_batch_size",
                                        "enable_padding", "num_tokens", "max_num_token",
                                        "seq_lens", "max_seq_len"]),
                       st.none() | st.integers(0, 40) | st.lists(st.integers(0, 40),
                                                                 max_size=4)
                       | st.sampled_from(["encode", "decode"]), max_size=6))
def test_graph_config_accepted_and_refused_as_the_engine_does(graph: dict[str, Any]) -> None:
    """`cuda_graph_config` with any mix of encoder keys: graphfit accepts what TensorRT-LLM's
    mode inference, `EncodeCudaGraphConfig` / `DecodeCudaGraphConfig` accept (the same bucket
    lists, `ref.encode_cuda_graph_config`) and refuses what they refuse."""
    raw = {"max_batch_size": 8, "max_num_tokens": 64, "max_seq_len": 32,
           "cuda_graph_config": graph}
    try:
        mode = ref.graph_config_mode(graph)
        if mode == "encode":
            want = ref.encode_cuda_graph_config({k: v for k, v in graph.items()
                                                 if k != "mode"})
        else:
            ref.llm_args(raw)
    except ref.NotModelled:
        return
    except ref.Rejected:
        with pytest.raises(ConfigError):
            plan(graphfit_config(raw))
        return
    p = plan(graphfit_config(raw))
    if mode == "decode":
        assert not p.keyed
        return
    assert p.config.encode_num_tokens == (None if want.num_tokens is None
                                          else tuple(sorted(set(want.num_tokens))))
    assert p.config.encode_seq_lens == (None if want.seq_lens is None
                                        else tuple(sorted(set(want.seq_lens))))
    assert dict(p.keyed["encoder"].ladders)["batch_sizes"] == tuple(
        ref.encoder_runner_from_args(raw).batch_sizes)
