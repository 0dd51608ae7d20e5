"""TensorRT-LLM's multimodal-encoder CUDA graphs (`multimodal_config.encoder_cuda_graph`):
graphfit's rule (graphfit.planner.engines.trtllm_mm_encoder) == the restated
`MultimodalEncoderGraphRunner` (tests/oracle/trtllm_reference.py `MmEncoderRunnerRef`,
`ref.CITES["mm_encoder_capture"]`, `["mm_encoder_dispatch"]`, buckets as
`ref.mm_encoder_buckets` normalizes them).

Over generated buckets and every batch of up to 6 contexts and 48 tokens (each context >= 1
token): the captured keys and their capture lengths, the key each batch replays and the
lengths its metadata is refreshed with are the engine's; every replayed key holds the batch
(its contexts plus the dummy, its tokens plus the reserved one), each capture layout fills its
key exactly, and the rows TensorRT-LLM's per-key static inputs hold are the sum of the keys'.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.core.keyed import reachable_keys, split
from graphfit.planner.engines.trtllm_mm_encoder import MmEncoderGraphs
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config


@st.composite
def mm_buckets(draw: st.DrawFn) -> tuple[list[tuple[int, int]], bool]:
    pairs = draw(st.lists(st.tuples(st.integers(1, 48), st.integers(1, 6)).filter(
        lambda p: p[0] >= p[1]), min_size=1, max_size=6))
    return pairs, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(mm_buckets())
def test_captured_keys_and_dispatch_are_the_engines(cfg: tuple[list[tuple[int, int]], bool]
                                                    ) -> None:
    pairs, padding = cfg
    buckets = ref.mm_encoder_buckets(pairs)
    ours = MmEncoderGraphs(tuple(buckets), padding)
    theirs = ref.MmEncoderRunnerRef(buckets, padding)
    captured = theirs.capture_all()
    assert list(ours.captured) == list(captured)
    for bucket in buckets:
        key = ours.key_of(bucket)
        lengths = ours.capture_lengths(bucket)
        assert lengths == captured[key]  # key_of is one-to-one: each bucket its own graph
        assert (sum(lengths), len(lengths)) == key and min(lengths) >= 1
    assert ours.rows_total == theirs.static_rows()
    assert ours.rows_largest == max(k[0] for k in captured)
    for contexts, tokens, longest in reachable_keys(6, 48, 48):
        lengths = list(split((contexts, tokens, longest)))
        got = theirs.maybe_run(lengths, captured)
        key = ours.lookup(contexts, tokens)
        assert key == (None if got is None else got[0]), (contexts, tokens)
        if got is not None:
            assert ours.padded_lengths(lengths) == got[1]
            assert sum(got[1]) == key[0] and len(got[1]) == key[1]  # the graph's own shape
            assert key[0] >= tokens and key[1] >= contexts


def test_plan_notes_the_graphs_and_refuses_what_the_engine_does() -> None:
    raw: dict[str, Any] = {"multimodal_config": {"encoder_cuda_graph": {"image": {
        "buckets": [[1024, 1], [4096, 4], [1024, 1]]}}}}
    p = plan(graphfit_config(raw))
    assert not p.keyed  # no buffer planned: the inputs are the vision model's
    with_padding = MmEncoderGraphs(((1024, 1), (4096, 4)))
    assert with_padding.captured == ((1025, 2), (4097, 5))
    assert (with_padding.rows_total, with_padding.rows_largest) == (5122, 4097)
    bad: dict[str, Any] = {"multimodal_config": {"encoder_cuda_graph": {"image": {
        "buckets": [[2, 4]]}}}}
    try:
        plan(graphfit_config(bad))
    except ConfigError as err:
        assert "num_contexts" in str(err)
    else:
        raise AssertionError("total_tokens < num_contexts accepted")


@settings(max_examples=40, deadline=None)
@given(mm_buckets(), st.lists(st.integers(1, 64), min_size=1, max_size=2))
def test_planned_modality_is_the_engines_runner(cfg: tuple[list[tuple[int, int]], bool],
                                                dims: list[int]) -> None:
    """A modality whose inputs graphfit knows (`mm_encoder_inputs`) is planned as the keyed
    `mm_encoder.<modality>` component: its graphs are the runner's captured keys, each batch
    of (contexts, tokens) replays the runner's key (`ref.CITES["mm_encoder_dispatch"]`), every
    input's TensorRT-LLM rows are the sum of the keys' (one set per key,
    `ref.CITES["mm_encoder_capture"]`), graphfit's the largest key's (one shared set), and
    one row less fails on the largest key's capture batch."""
    pairs, padding = cfg
    buckets = ref.mm_encoder_buckets(pairs)
    theirs = ref.MmEncoderRunnerRef(buckets, padding)
    captured = theirs.capture_all()
    config = EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 8192, "options": {
            "mm_encoder_graphs": [["image", [list(b) for b in pairs], padding]],
            "mm_encoder_inputs": [["image", [["x", dims, "bfloat16"],
                                             ["cos", dims[:1], "float32"]]]]}})
    p = plan(config)
    comp = p.keyed["mm_encoder.image"]
    assert set(comp.graph_keys) == set(captured)
    for buf in comp.buffers:
        assert buf.reference_capacity == theirs.static_rows()
        assert buf.capacity == max(k[0] for k in captured)
        assert buf.shape[1:] == (tuple(dims) if buf.name == "x" else tuple(dims[:1]))
    top_c, top_t = max(c for _, c in buckets), max(t for t, _ in buckets)
    for contexts in range(1, top_c + 1):
        for tokens in range(contexts, min(top_t, 48) + 1):
            lengths = [1] * (contexts - 1) + [tokens - contexts + 1]
            got = theirs.maybe_run(lengths, captured)
            assert comp.lookup((contexts, tokens)) == (None if got is None else got[0])
    for key in comp.graph_keys:  # each witness is a batch that replays its key
        assert comp.lookup(comp.witness(key)) == key
    assert p.verify().ok and p.verify_engine().ok
    short = p.verify(capacities={b.key: b.capacity - 1 for b in comp.buffers})
    assert not short.ok
