"""TensorRT-LLM's feature-mode encoder CUDA graphs: an encoder-decoder model whose encoder
takes one fixed-shape feature tensor per request (Whisper's padded waveform), keyed on the
batch size alone.

Sources (NVIDIA/TensorRT-LLM):

* mode: `EncoderConfigMixin.create`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:74-214): the model
  class's `encoder_graph_spec()` (lines 98-100) returns (feature_shape, feature_dtype,
  fixed_seq_len); the token buckets are validated only without one (102-112); for an
  encoder-decoder target model with `encoder_cuda_graph_config` at TP 1 the runner takes
  the spec (114-128; TP > 1 logs a warning and stays eager); the batch sizes are filtered
  with fixed_seq_len tokens per request against the encoder's token budget
  (`filter_cuda_graph_batch_sizes`, 130-140); no batch size left means eager (160-169), and
  a model with a spec but no feature mode (TP > 1) stays eager whatever its buckets
  (170-176); graphs are on when a config is given and shapes are available (180).
* keys: one per kept batch size b, (b, b x fixed_seq_len, fixed_seq_len), captured from b
  requests of fixed_seq_len (`EncoderCUDAGraphRunner.__init__`,
  tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1222-1251).
* dispatch (`_prepare_encoder_feature_graph_inputs`,
  tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:394-441): a request
  whose length is not fixed_seq_len (or whose feature is not (1, *feature_shape) of
  feature_dtype) keeps the whole batch eager; otherwise `pad_batch`
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1621-1684) pads b to the
  smallest kept batch size p >= b only when padding is on and p <= 9/8 b
  (`MAX_FEATURE_PADDING_RATIO`, 1206), each pad a full fixed_seq_len request; the batch
  replays (p, p x fixed_seq_len, fixed_seq_len) when p is kept, else runs eagerly.
* buffers (`_create_shared_static_tensors`, 1314-1353): a device `input_features`
  (largest batch size, *feature_shape) of feature_dtype, a pinned host `seq_lens` (largest
  batch size,) int32 filled with fixed_seq_len, and `FEATURE_MIRROR_SLOTS` (2, line 1209)
  pinned host mirrors of `input_features`, planned as one buffer `input_features_host` of
  leading dim 2; both host tensors are planned with host placement
  (`BufferSpec.placement`), counted in the plan's host bytes, not its device bytes. A
  graph of key (b, ...) reads b rows of the first two; a replay of it fills b rows of the
  next mirror slot (features, then zeros for the padding) and copies them to
  `input_features` eagerly before the replay (`_replay_features`,
  tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:2165-2205; the H2D is
  never captured, `_prepare_feature_capture`, 2129-2157), so each mirror slot needs b rows.
  Both host tensors are pinned (`BufferSpec.pinned`). Each captured key's graph attention
  metadata also owns a device `_seq_lens_cuda` (b,) int32, copied once from the host
  `seq_lens` at capture (2151-2155): planned as `seq_lens_cuda` (trtllm_encoder's
  `seq_lens_device_buffer`), staged by the host `seq_lens`; a one-slot pinned copy, so the
  runtime records it in the graph (the same values each replay: the lengths are fixed).

The spec itself is the model class's, restated per architecture by the inputs layer
(graphfit.inputs.trtllm_features) as the `encoder_feature_spec` option.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    ZERO,
    Axis,
    BufferSpec,
    Demand,
    FillKind,
    FillPolicy,
    Placement,
)
from graphfit.planner.core.dtypes import DTYPE_SIZES, itemsize
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.keyed import BatchKey, KeyedDispatch
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.trtllm_encdec import encoder_bounds
from graphfit.planner.engines.trtllm_encoder import (
    COMPONENT,
    SEQ_LENS_DEVICE,
    EncoderKey,
    graph_requests,
    seq_lens_device_buffer,
)
from graphfit.planner.engines.trtllm_ladders import trtllm_filter

# `EncoderCUDAGraphRunner.MAX_FEATURE_PADDING_RATIO` = 9 / 8
# (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1206), as integers: pad b
# to p only when 8 p <= 9 b
PAD_NUMERATOR, PAD_DENOMINATOR = 9, 8
# `FEATURE_MIRROR_SLOTS` (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1209)
MIRRORS = 2


@dataclass(frozen=True)
class FeatureSpec:
    """A model class's `encoder_graph_spec()`: each request's feature shape and dtype, and
    the encoder positions it produces (fixed_seq_len)."""

    shape: tuple[int, ...]
    dtype: str
    fixed_seq_len: int

    def __post_init__(self) -> None:
        if not isinstance(self.shape, tuple) or not self.shape or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in self.shape):
            raise ConfigError(f"encoder_feature_spec: feature shape must be integers >= 1, "
                              f"got {excerpt(self.shape)}")
        if not isinstance(self.dtype, str):
            raise ConfigError(f"encoder_feature_spec: dtype must be a name, got "
                              f"{excerpt(self.dtype)}")
        if self.dtype not in DTYPE_SIZES:
            raise ConfigError(f"encoder_feature_spec: dtype must be one of "
                              f"{', '.join(sorted(DTYPE_SIZES))}, got {excerpt(self.dtype)}")
        if isinstance(self.fixed_seq_len, bool) or not isinstance(self.fixed_seq_len, int) \
                or self.fixed_seq_len < 1:
            raise ConfigError(f"encoder_feature_spec: fixed_seq_len must be an integer >= 1, "
                              f"got {excerpt(self.fixed_seq_len)}")

    @classmethod
    def of(cls, value: object) -> FeatureSpec:
        """The option's [feature_shape, dtype, fixed_seq_len] (lists or tuples)."""
        if not isinstance(value, (list, tuple)) or len(value) != 3 or not isinstance(
                value[0], (list, tuple)):
            raise ConfigError(f"encoder_feature_spec: expected [feature_shape, dtype, "
                              f"fixed_seq_len], got {excerpt(value)}")
        return cls(tuple(value[0]), value[1], value[2])

    def describe(self) -> str:
        return (f"features {list(self.shape)} {self.dtype} a request, {self.fixed_seq_len} "
                "encoder positions each")


def filter_feature_batch_sizes(sizes: Sequence[int], max_batch_size: int,
                               max_num_tokens: int, fixed_seq_len: int, padding: bool
                               ) -> tuple[int, ...]:
    """`filter_cuda_graph_batch_sizes(sizes, max_batch_size, max_num_tokens, fixed_seq_len,
    padding)` (tensorrt_llm/_torch/pyexecutor/engine/cuda_graph.py@c0edad93fd:23-52): the
    limit is min(max_batch_size, max_num_tokens // fixed_seq_len); with padding the limit
    itself is kept at the first larger size."""
    return tuple(trtllm_filter(sorted(set(sizes)), max_batch_size, max_num_tokens,
                               fixed_seq_len, padding=padding))


@dataclass(frozen=True)
class FeatureGraphs:
    """The feature-mode runner's kept batch sizes, spec and bounds."""

    batch_sizes: tuple[int, ...]
    spec: FeatureSpec
    padding: bool
    max_batch_size: int
    max_num_tokens: int
    max_seq_len: int

    def __post_init__(self) -> None:
        if list(self.batch_sizes) != sorted(set(self.batch_sizes)) or any(
                b < 1 for b in self.batch_sizes):
            raise ConfigError("feature encoder graphs: batch sizes must be sorted, unique "
                              "and >= 1")
        if self.batch_sizes and self.spec.fixed_seq_len > self.max_seq_len:
            raise ConfigError(f"encoder_feature_spec: each request holds "
                              f"{self.spec.fixed_seq_len} encoder positions > max_seq_len "
                              f"{self.max_seq_len}: no request fits the encoder graphs")

    @property
    def enabled(self) -> bool:
        return bool(self.batch_sizes)

    @property
    def rows(self) -> int:
        """TensorRT-LLM's rows of `input_features` and `seq_lens`: the largest kept size."""
        return self.batch_sizes[-1] if self.batch_sizes else 0

    def key_of(self, batch_size: int) -> EncoderKey:
        f = self.spec.fixed_seq_len
        return batch_size, batch_size * f, f

    @cached_property
    def captured(self) -> frozenset[EncoderKey]:
        return frozenset(self.key_of(b) for b in self.batch_sizes)

    def padded_size(self, batch_size: int) -> int:
        """`pad_batch` in feature mode: the smallest kept size >= b when padding is on and it
        is within 9/8 of b, else b itself."""
        if not self.padding:
            return batch_size
        i = bisect_left(self.batch_sizes, batch_size)
        if i == len(self.batch_sizes):
            return batch_size
        p = self.batch_sizes[i]
        return p if PAD_DENOMINATOR * p <= PAD_NUMERATOR * batch_size else batch_size

    def _key(self, batch: BatchKey) -> EncoderKey | None:
        """The key a batch of (requests, tokens, longest) replays, or None (eager): every
        request must hold exactly fixed_seq_len positions."""
        b, n, longest = batch
        f = self.spec.fixed_seq_len
        if not self.enabled or n != b * f or longest != f:
            return None
        p = self.padded_size(b)
        return self.key_of(p) if p in self.batch_sizes else None

    def lookup(self, batch: BatchKey) -> EncoderKey | None:
        return self.dispatch.lookup(batch)

    @cached_property
    def dispatch(self) -> KeyedDispatch:
        def requests(key: tuple[int, ...]) -> int:
            return key[0]
        return KeyedDispatch(self._key, self.captured, requests,
                             buffer_rows={name: requests for name in BUFFERS})

    @property
    def witnesses(self) -> dict[EncoderKey, BatchKey]:
        """Each key with the batch it is captured from: b requests of fixed_seq_len."""
        f = self.spec.fixed_seq_len
        return {self.key_of(b): (b, b * f, f) for b in self.batch_sizes}

    @property
    def mirror_bytes(self) -> int:
        """The bytes of the pinned host mirrors of `input_features` TensorRT-LLM allocates."""
        row = itemsize(self.spec.dtype)
        for dim in self.spec.shape:
            row *= dim
        return MIRRORS * self.rows * row


def feature_graphs_of(config: EngineSettings, spec: FeatureSpec) -> FeatureGraphs:
    """The feature-mode encoder of a config with `encoder_cuda_graph_config` and a feature
    spec: bounds encoder_max_batch_size, encoder_max_num_tokens (or max_num_tokens) and
    max_seq_len (graphfit's max_model_len). At tensor_parallel_size > 1 no batch size is
    kept: TensorRT-LLM logs that feature-mode graphs need TP 1 and keeps the encoder eager
    (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:123-126; with the
    spec still set the graphs are off whatever the buckets, 170-176)."""
    sizes, max_batch_size, tokens = encoder_bounds(config)
    kept = () if config.tensor_parallel_size > 1 else filter_feature_batch_sizes(
        sizes, max_batch_size, tokens, spec.fixed_seq_len, config.encoder_graph_padding)
    return FeatureGraphs(kept, spec, config.encoder_graph_padding, max_batch_size, tokens,
                         config.max_model_len)


FEATURE_SUMMARY = "feature mode ({spec}): one graph per batch size{mirrors}"
# the host staging copy of `input_features` (its leading dim: the MIRRORS rotated slots)
MIRROR_BUFFER = "input_features_host"
BUFFERS = ("input_features", "seq_lens", MIRROR_BUFFER, SEQ_LENS_DEVICE)


def feature_component(config: EngineSettings, spec: FeatureSpec) -> KeyedComponentModel:
    """The `encoder` keyed component in feature mode: `input_features` (rows, *shape) of the
    spec's dtype and the host `seq_lens` (rows,) int32 filled with fixed_seq_len, TensorRT-
    LLM's rows the largest kept batch size."""
    graphs = feature_graphs_of(config, spec)
    fixed = FillPolicy(FillKind.SENTINEL, spec.fixed_seq_len)
    why = "EncoderCUDAGraphRunner's feature-mode static inputs (_create_shared_static_tensors)"
    buffers = (
        BufferSpec("input_features", spec.dtype, Axis.REQUESTS,
                   (Demand(Stream.TARGET_REQUESTS),), graphs.rows, ZERO,
                   trailing=spec.shape, source=why),
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                   graphs.rows, fixed, source=why + ", pinned host",
                   placement=Placement.HOST, stages=SEQ_LENS_DEVICE, pinned=True),
        # `_feature_mirrors`: MIRRORS pinned host copies of input_features, each (rows,
        # *shape); a replay of key (p, ...) fills p rows of the next one (the requests'
        # features, zeros for the padding) and copies them to the device buffer outside the
        # graph (`_replay_features`)
        BufferSpec(MIRROR_BUFFER, spec.dtype, Axis.REQUESTS,
                   (Demand(Stream.TARGET_REQUESTS),), graphs.rows, ZERO,
                   leading=(MIRRORS,), trailing=spec.shape,
                   source=(f"EncoderCUDAGraphRunner._feature_mirrors: {MIRRORS} pinned host "
                           "slots, rotated; the staging copy _replay_features fills and "
                           "copies to input_features before each replay"),
                   placement=Placement.HOST, stages="input_features", pinned=True),
        # each captured key's graph attention metadata's `_seq_lens_cuda`, copied once from
        # the host seq_lens at capture (`_prepare_feature_capture`)
        seq_lens_device_buffer(graph_requests(graphs.captured), fixed),
    )
    tp = config.tensor_parallel_size
    summary = (FEATURE_SUMMARY.format(spec=spec.describe(), mirrors="") if tp == 1 else
               f"feature mode ({spec.describe()}): eager at tensor_parallel_size {tp} "
               f"(TensorRT-LLM's feature-mode encoder graphs need TP 1)")
    return KeyedComponentModel(
        COMPONENT, graphs.dispatch,
        (graphs.max_batch_size, graphs.max_num_tokens, graphs.max_seq_len), buffers,
        dict(graphs.witnesses), (("batch_sizes", graphs.batch_sizes),), summary=summary)
