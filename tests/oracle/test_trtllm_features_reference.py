"""TensorRT-LLM's feature-mode encoder graphs (an encoder-decoder model whose class has
`encoder_graph_spec()`, e.g. Whisper): graphfit's keyed component == the engine's runner.

The reference (tests/oracle/trtllm_reference.py `FeatureRunnerRef`,
`ref.cite_fact("feature_mode_create")`, `["feature_mode_runner"]`, `["feature_mode_pad"]`,
`["feature_mode_replay"]`) restates `EncoderConfigMixin.create`, the runner's feature keys,
`pad_batch` (9/8 rule), `get_graph_key` / `_resolve_graph_key` and the request contract on
lists of request lengths. Over generated configs and every batch within the bounds (all
requests of fixed_seq_len, or one of them shorter or longer): the kept batch sizes, captured
keys and static tensors are the engine's, every batch replays the engine's key, and the plan's
capacities are the rows the largest graph reads (one row less fails).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.inputs.trtllm_features import WHISPER_POSITIONS, WHISPER_SAMPLES
from graphfit.planner.engines.trtllm_features import (
    MIRROR_BUFFER,
    FeatureSpec,
    filter_feature_batch_sizes,
)
from tests.oracle import trtllm_reference as ref

Spec = tuple[tuple[int, ...], str, int]


@st.composite
def feature_configs(draw: st.DrawFn) -> tuple[list[int], bool, int, int, Spec]:
    padding = draw(st.booleans())
    fixed = draw(st.integers(1, 6))
    max_bs = draw(st.integers(1, 12))
    tokens = draw(st.integers(1, 80))
    sizes = draw(st.lists(st.integers(1, 14), min_size=1, max_size=7, unique=True))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=2)))
    dtype = draw(st.sampled_from(["float32", "bfloat16", "float16"]))
    return sizes, padding, max_bs, tokens, (shape, dtype, fixed)


def _config(sizes: list[int], padding: bool, max_bs: int, tokens: int, spec: Spec,
            max_seq_len: int = 64) -> EngineConfig:
    return EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 256,
        "max_model_len": max_seq_len, "options": {
            "encoder_graph_batch_sizes": sizes, "encoder_graph_padding": padding,
            "encoder_max_batch_size": max_bs, "encoder_max_num_tokens": tokens,
            "encoder_feature_spec": [list(spec[0]), spec[1], spec[2]]}})


@settings(max_examples=80, deadline=None)
@given(feature_configs())
def test_plan_encoder_is_the_engines_feature_runner(cfg: tuple[list[int], bool, int, int,
                                                               Spec]) -> None:
    sizes, padding, max_bs, tokens, spec = cfg
    theirs = ref.feature_runner_ref(sizes, padding, max_bs, tokens, spec)
    kept = filter_feature_batch_sizes(sizes, max_bs, tokens, spec[2], padding)
    assert list(kept) == theirs.supported_batch_sizes
    p = plan(_config(*cfg))
    comp = p.keyed["encoder"]
    assert set(comp.graph_keys) == theirs.capture_keys
    # the witnesses are the capture layouts (b requests of fixed_seq_len)
    for key in comp.graph_keys:
        assert list(comp.probe(key)) == theirs.capture_sequence_lengths[key]
    tensors = theirs.static_tensors()
    for buf in comp.buffers:  # TensorRT-LLM's rows are graphfit's (the largest kept size)
        if buf.name == "seq_lens_cuda":  # one engine tensor per key, not a static tensor:
            continue  # tests/oracle/test_trtllm_placement_reference.py checks it
        # the host mirrors are planned stacked (input_features_host, leading dim 2):
        # tests/oracle/test_trtllm_parallel_reference.py checks them
        lead = 1 if buf.name == MIRROR_BUFFER else 0
        name = "mirror0" if lead else buf.name
        shape, dtype = tensors[name] if tensors else ((0, *buf.shape[1 + lead:]), buf.dtype)
        assert (buf.reference_capacity, *buf.shape[1 + lead:]) == shape and buf.dtype == dtype
        assert buf.capacity == (shape[0] if comp.graph_keys else 0)
    fixed = spec[2]
    for b in range(1, max_bs + 1):  # every batch size, all of the contract's length or not
        for odd in (None, fixed - 1, fixed + 1):
            seq = [fixed] * b if odd is None or odd < 1 else [fixed] * (b - 1) + [odd]
            if sum(seq) > tokens or max(seq) > 64:
                continue
            mine = comp.lookup((len(seq), sum(seq), max(seq)))
            assert mine == theirs.replay_key(seq), (seq, mine)
    assert p.verify().ok and p.verify_engine().ok
    if comp.graph_keys:  # one row less: the largest graph's capture batch goes short
        caps = {b.key: b.capacity - 1 for b in comp.buffers}
        short = p.verify(capacities=caps)
        assert not short.ok and {r.buffer for r in short.ranges()} == {
            b.name for b in comp.buffers}


def test_padding_stops_at_nine_eighths() -> None:
    """`cite_fact("feature_mode_pad")`: with batch sizes [1, 2, 4, 8, 9], 8 and 9 replay their
    own graphs, 3 does not pad to 4 (4 > 3 x 9/8) and runs eagerly, and no batch pads to 8;
    without padding only kept sizes replay."""
    spec: Spec = ((4,), "float32", 3)
    args = ([1, 2, 4, 8, 9], True, 9, 100, spec)
    theirs = ref.feature_runner_ref(*args)
    comp = plan(_config(*args)).keyed["encoder"]
    for b, key in ((3, None), (4, (4, 12, 3)), (7, None), (8, (8, 24, 3)), (9, (9, 27, 3))):
        assert comp.lookup((b, 3 * b, 3)) == theirs.replay_key([3] * b) == key, b


def test_tp_above_one_and_no_batch_size_left_stay_eager() -> None:
    """`cite_fact("feature_mode_create")`: TP > 1 keeps the encoder eager (graphfit's plan
    too: tests/oracle/test_trtllm_parallel_reference.py compares it over generated lines); a
    token budget below one request of fixed_seq_len leaves no batch size, so no graph and no
    buffer rows."""
    spec: Spec = ((4,), "float32", 30)
    assert not ref.feature_runner_ref([1, 2], True, 4, 100, spec, tp_size=2).enabled
    tp2 = _config([1, 2], True, 4, 100, spec)
    eager = plan(tp2.replace(options=replace(tp2.options, tensor_parallel_size=2)))
    assert not eager.keyed["encoder"].graph_keys
    theirs = ref.feature_runner_ref([1, 2], False, 4, 29, spec)
    comp = plan(_config([1, 2], False, 4, 29, spec)).keyed["encoder"]
    assert not theirs.enabled and not comp.graph_keys
    assert all(b.capacity == 0 for b in comp.buffers)


def test_whisper_spec_is_the_runner_named_contract() -> None:
    """The runner's own config names Whisper's feature contract, a [480000] fp32 waveform
    (`cite_fact("feature_mode_runner")`, lines 1183-1190); graphfit's Whisper defaults are
    that shape and WhisperConfig's 1500 positions."""
    assert (WHISPER_SAMPLES, WHISPER_POSITIONS) == (480000, 1500)
    assert FeatureSpec((WHISPER_SAMPLES,), "float32", WHISPER_POSITIONS).describe().startswith(
        "features [480000] float32")


def test_a_request_longer_than_max_seq_len_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_seq_len"):
        plan(_config([1, 2], True, 4, 1000, ((4,), "float32", 100), max_seq_len=64))
