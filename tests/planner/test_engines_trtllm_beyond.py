"""TensorRT-LLM beyond one beam and linear drafts: rules as properties.

Beam search (a request carries q x max_beam_width tokens), mrope models, the decoding types
PARD / DFlash / SA, the decoder's speculative buffers, the dynamic-tree worker's
batch-indexed buffers and attention-DP padding. The sources each rule restates are cited in
tests/oracle/trtllm_reference.py (`CITES`); tests/oracle/test_trtllm_reference.py compares
graphfit with that reference line by line.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.planner.engines.trtllm import adp_dispatch


def trt(**kw: Any) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "trtllm", **kw})


@st.composite
def configs(draw: st.DrawFn) -> EngineConfig:
    """S, T, the graph list or its max, padding, and one of: beams, PARD, DFlash, SA, a
    dynamic-tree Eagle3; mrope (multimodal) on any of them."""
    fields: dict[str, Any] = {"max_num_seqs": draw(st.integers(1, 300)),
                              "max_num_batched_tokens": draw(st.integers(1, 3000)),
                              "cuda_graph_padding": draw(st.booleans()),
                              "multimodal": draw(st.booleans())}
    if draw(st.booleans()):
        fields["max_cudagraph_capture_size"] = draw(st.integers(1, 400))
    kind = draw(st.sampled_from(("beam", "pard", "dflash", "sa", "tree")))
    d = draw(st.integers(1, 5))
    if kind == "beam":
        fields.update(max_beam_width=draw(st.integers(1, 8)),
                      max_model_len=draw(st.integers(1, 4096)))
    elif kind == "pard":
        fields.update(spec_method="draft_model", parallel_draft=True, num_speculative_tokens=d)
    elif kind == "dflash":
        fields.update(spec_method="dflash", num_speculative_tokens=d)
    elif kind == "sa":
        fields.update(spec_method="suffix", num_speculative_tokens=d)
    else:
        fields.update(spec_method=draw(st.sampled_from(("eagle3", "mtp"))),
                      num_speculative_tokens=d, speculative_eagle_topk=draw(st.integers(1, 4)))
    return trt(**fields)


def width(config: EngineConfig) -> int:
    return config.uniform_query_len * config.max_beam_width


@given(configs())
def test_plan_covers_every_batch_and_engine_shortfall_is_only_oversize_captures(
        config: EngineConfig) -> None:
    """graphfit's capacities hold every capture and decode; TensorRT-LLM's own allocation
    (the reference capacities) is short exactly when a captured size needs more tokens than
    max_num_tokens: its filter divides by q, not by the beam width."""
    p = plan(config)
    assert p.verify().ok
    reference = {b.key: b.reference_capacity for comp in p.components.values()
                 for b in comp.buffers}
    oversize = p.has_graphs and p.max_capture_size * width(config) > (
        config.max_num_batched_tokens)
    assert p.verify(reference).ok is not oversize
    if config.max_beam_width == 1:
        assert not oversize  # one beam: the filter's q-budget is the capture's


@given(configs())
def test_tokens_per_request_by_decoding_type(config: EngineConfig) -> None:
    """PARD 2 x max_draft_len, DFlash / SA 1 + max_draft_len; draft_tokens_cuda holds
    (tokens - 1) per request of max_batch_size."""
    d, q, S = config.num_speculative_tokens, config.uniform_query_len, config.max_num_seqs
    if config.parallel_draft:
        assert q == 2 * d
    elif config.spec_method.value in ("dflash", "suffix"):
        assert q == d + 1
    buffers = {b.name: b for b in plan(config).components["target"].buffers}
    if config.spec_method.value != "none":
        loop = q - 1
        if config.speculative_eagle_topk is not None:
            loop = max(loop, config.speculative_eagle_topk * d)
        assert buffers["draft_tokens"].reference_capacity == S * loop
        assert buffers["gather_ids"].reference_capacity == config.max_num_batched_tokens
    else:
        assert "gather_ids" not in buffers and "draft_tokens" not in buffers


@given(configs())
def test_beam_and_mrope_buffers(config: EngineConfig) -> None:
    """cache_indirection (S, W, max_seq_len) only with beams; mrope position ids (3, 1, rows)
    in the engine and the graph runner; the static rows are min(max graph x W x q, T)."""
    p = plan(config)
    buffers = {b.name: b for b in p.components["target"].buffers}
    S, W, T = config.max_num_seqs, config.max_beam_width, config.max_num_batched_tokens
    if W > 1:
        ci = buffers["cache_indirection"]
        assert ci.shape[1:] == (W, config.max_model_len) and ci.reference_capacity == S
    else:
        assert "cache_indirection" not in buffers
    if config.multimodal:
        mrope = buffers["mrope_position_ids"]
        assert mrope.shape[:2] == (3, 1) and mrope.reference_capacity == T
    if p.has_graphs and p.capture_sizes:
        rows = min(p.max_capture_size * width(config), T)
        assert buffers["graph_input_ids"].reference_capacity == rows
        pos = buffers["graph_position_ids"]
        assert pos.shape[:-1] == ((3, 1) if config.multimodal else ())
        assert ("graph_mrope_delta_read_seq_slots" in buffers) is config.multimodal


@given(configs())
def test_dynamic_tree_worker_buffers_have_global_max_batch_size_rows(
        config: EngineConfig) -> None:
    """Eagle3OneModelDynamicTreeWorker indexes its buffers by batch_idx < max_batch_size with
    no bounds check: each has max_batch_size rows, and every padded batch stays below."""
    p = plan(config)
    tree = [b for b in p.components["target"].buffers if b.name.startswith("tree_")]
    if config.speculative_eagle_topk is None:
        assert not tree
        return
    assert len(tree) == (18 if config.spec_method.value == "mtp" else 22)
    assert all(b.reference_capacity == config.max_num_seqs for b in tree)
    assert all(p.pad(n * width(config), uniform_decode=True).num_reqs <= config.max_num_seqs
               for n in range(1, min(config.max_num_seqs, p.max_capture_size) + 1)
               if p.pad(n * width(config), uniform_decode=True).mode is CUDAGraphMode.FULL)


@given(configs(), st.lists(st.integers(1, 400), min_size=2, max_size=8))
def test_attention_dp_ranks_agree_or_all_run_eagerly(config: EngineConfig,
                                                     batches: list[int]) -> None:
    """`_get_padded_batch` + `maybe_get_cuda_graph`: one captured size for every rank, at
    least each rank's batch and at least the largest rank's (so no rank's buffers need more
    than the largest graph), or eager everywhere; without padding only equal captured sizes
    replay."""
    p = plan(config)
    sizes = p.capture_sizes if p.has_graphs else ()
    out = adp_dispatch(sizes, tuple(batches), padding=config.cuda_graph_padding,
                       max_batch_size=config.max_num_seqs)
    assert len(out) == len(batches)
    if out[0] is None:
        assert all(o is None for o in out)
        return
    assert len(set(out)) == 1 and out[0] in sizes
    assert out[0] >= max(batches)
    if not config.cuda_graph_padding:
        assert len(set(batches)) == 1 and batches[0] == out[0]


def test_adp_dispatch_examples() -> None:
    sizes = (1, 2, 4, 8, 16)
    assert adp_dispatch(sizes, (3, 5), padding=True, max_batch_size=64) == (8, 8)
    assert adp_dispatch(sizes, (3, 20), padding=True, max_batch_size=64) == (None, None)
    assert adp_dispatch(sizes, (4, 4), padding=False, max_batch_size=64) == (4, 4)
    assert adp_dispatch(sizes, (4, 2), padding=False, max_batch_size=64) == (None, None)
    # a rank that would pad above max_batch_size keeps its batch: the sizes differ -> eager
    assert adp_dispatch(sizes, (3, 5), padding=True, max_batch_size=6) == (None, None)
    with pytest.raises(ConfigError):
        adp_dispatch(sizes, (), padding=True, max_batch_size=8)


def test_refusals() -> None:
    with pytest.raises(ConfigError, match="beam search with speculative"):
        plan(trt(max_num_seqs=8, max_beam_width=2, spec_method="mtp",
                 num_speculative_tokens=1))
    with pytest.raises(ConfigError, match="PARD verifies 2 x max_draft_len"):
        plan(trt(max_num_seqs=8, spec_method="draft_model", parallel_draft=True,
                 num_speculative_tokens=3, speculative_num_draft_tokens=4))
    with pytest.raises(ConfigError, match="parallel_draft"):
        plan(trt(max_num_seqs=8, spec_method="eagle3", parallel_draft=True,
                 num_speculative_tokens=3))
    with pytest.raises(ConfigError, match="mrope_dims"):
        plan(trt(max_num_seqs=8, multimodal=True, mrope_dims=4))
    for field, value in (("max_beam_width", 2), ("parallel_draft", True)):
        with pytest.raises(ConfigError, match="not an input of the sglang model"):
            EngineConfig(engine="sglang", max_num_seqs=8, **{field: value})
    with pytest.raises(ConfigError, match="max_beam_width"):
        trt(max_num_seqs=8, max_beam_width=0)


def test_beam_capture_short_of_trtllm_rows() -> None:
    """max_batch_size 64, max_num_tokens 128, 4 beams: the filter keeps graphs up to 64
    requests (128 // 1), whose capture needs 64 x 4 = 256 tokens; TensorRT-LLM's static rows
    are min(256, 128) = 128. graphfit plans 256 and reports TensorRT-LLM's shortfall."""
    p = plan(trt(max_num_seqs=64, max_num_batched_tokens=128, max_beam_width=4,
                 max_model_len=1024, max_cudagraph_capture_size=64, cuda_graph_padding=True))
    rows = {b.name: (b.capacity, b.reference_capacity) for b in p.components["target"].buffers}
    assert rows["graph_input_ids"] == (256, 128)
    short = {v.buffer for v in p.verify_engine().violation_ranges}
    assert {"graph_input_ids", "input_ids"} <= short
    assert p.verify().ok


@given(st.lists(st.integers(-5, 5000), max_size=12), st.integers(1, 4096),
       st.integers(1, 64), st.integers(1, 200))
def test_piecewise_capture_counts_properties(candidates: list[int], tokens: int, batch: int,
                                             seq: int) -> None:
    """Prefill capture counts: sorted, unique, within (0, min(T, bs x (seq - 1))]; each
    candidate within the budget is captured as itself or, when above the ceiling, as the
    ceiling."""
    from graphfit.planner.engines.trtllm_ladders import piecewise_capture_num_tokens

    kept, unrecordable = piecewise_capture_num_tokens(candidates, tokens, batch, seq)
    limit = min(tokens, batch * (seq - 1))
    assert list(kept) == sorted(set(kept)) and all(0 < k <= limit for k in kept)
    for c in candidates:
        if 0 < c <= tokens and limit > 0:
            assert min(c, limit) in kept
    assert all(batch * (seq - 1) < u <= tokens for u in unrecordable)


@given(st.integers(1, 50000), st.booleans(), st.integers(1, 50000))
def test_encoder_bucket_properties(maximum: int, padding: bool, limit: int) -> None:
    """Generated buckets are sorted, unique, end at the max; the filter keeps a prefix and,
    with padding, ends at the limit when something was cut."""
    from graphfit.planner.engines import trtllm_ladders as lad

    for values in (lad.encoder_num_tokens(maximum, padding),
                   lad.encoder_seq_lens(maximum, padding)):
        assert list(values) == sorted(set(values)) and values[-1] == maximum
        kept = lad.filter_encoder_values(values, limit, padding)
        assert all(k <= limit for k in kept)
        cut = any(v > limit for v in values)
        if cut and padding:
            assert kept[-1] == limit
        if not padding:
            assert set(kept) <= set(values)


def test_reader_prefill_and_encoder_keys() -> None:
    from graphfit.inputs.config_file import mapping_settings

    # the prefill keys were only noted before the prefill component existed; they are now
    # read (tests/planner/test_engines_trtllm_prefill.py plans them)
    settings, _ = mapping_settings({"prefill_cuda_graph_backend": "breakable",
                                    "prefill_capture_num_tokens": [128, 64, 64]}, "x")
    got = {s.field: s.value for s in settings}
    assert got["prefill_cuda_graph_backend"] == "breakable"
    assert got["prefill_capture_num_tokens"] == (64, 128)
    _, notes = mapping_settings({"multimodal_config": {"encoder_cuda_graph": {
        "image": {"buckets": [[256, 1], [256, 1], [512, 2]]}}}}, "x")
    assert any("image 2 buckets" in n for n in notes)
    with pytest.raises(ConfigError, match="total_tokens must be >= num_contexts"):
        mapping_settings({"multimodal_config": {"encoder_cuda_graph": {
            "image": {"buckets": [[1, 2]]}}}}, "x")
    with pytest.raises(ConfigError, match="mutually exclusive"):
        mapping_settings({"multimodal_config": {"encoder_side_stream_max_ahead": 2,
                                                "encoder_cuda_graph": {
                                                    "image": {"buckets": [[8, 1]]}}}}, "x")
    settings, notes = mapping_settings({"cuda_graph_config": {"mode": "encode",
                                                              "max_num_token": 64}}, "x")
    got = {s.field: s.value for s in settings}
    assert got["cuda_graph_mode"] == "encode" and got["encode_num_tokens"][-1] == 64
    assert "encode_seq_lens" not in got and any("encode step eager" in n for n in notes)
    with pytest.raises(ConfigError, match="extra fields not permitted with mode decode"):
        mapping_settings({"cuda_graph_config": {"mode": "decode", "seq_lens": [8]}}, "x")
    settings, _ = mapping_settings({"max_beam_width": 4,
                                    "speculative_config": {"decoding_type": "PARD",
                                                           "max_draft_len": 3}}, "x")
    got = {s.field: s.value for s in settings}
    assert (got["max_beam_width"], got["parallel_draft"]) == (4, True)
    assert got["speculative_num_draft_tokens"] == 6
