"""TensorRT-LLM's encoder-only CUDA graphs (`EncodeCudaGraphConfig`), keyed on
(batch size, total-token bucket, longest-request bucket).

Sources (NVIDIA/TensorRT-LLM; tests/oracle/trtllm_reference.py `CITES` and `LINES`):

* ladders: `EncoderConfigMixin.create`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:74-214; the filters
  are lines 130-158, the on/off rule 178-180) filters the config's `batch_sizes` with
  `filter_cuda_graph_batch_sizes(.., max_batch_size, max_num_tokens, 1, padding)`,
  `num_tokens` with `filter_cuda_graph_num_tokens(.., max_num_tokens, padding)` and
  `seq_lens` with `filter_cuda_graph_seq_lens(.., max_seq_len, padding)`; graphs are on when
  a config is given and both token lists keep a value.
* captured keys: `EncoderMixin._encoder_capture_shapes`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:443-466) walks batch
  size x seq-len bucket x token bucket, skipping shapes no batch fills; each shape becomes one
  layout (`EncoderCUDAGraphRunner.build_capture_sequence_lengths`,
  tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1396-1413, called by
  `_run_encoder_capture_pass`,
  tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:486-525) whose key
  (`get_graph_key`) is captured.
* dispatch (`EncoderCUDAGraphRunner.pad_batch`,
  tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1621-1684, and in the same
  file `_resolve_graph_key` 1728-1748, `maybe_get_cuda_graph` 1779-1870, `get_graph_key`
  1562-1606, `_get_valid_graph_key` 1542-1560): with padding the batch is padded to the next
  captured batch size with one-token dummies (unless that passes the largest token bucket);
  the key is (padded batch, the smallest token bucket >= the tokens and the smallest length
  bucket >= the longest request such that bucket tokens <= batch x bucket length and bucket
  length <= bucket tokens); without padding only an exact key replays; an uncaptured key runs
  eagerly.
* buffers: `_create_shared_static_tensors`
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1307-1384, token mode
  1355-1381): `input_ids` (rows,) and `position_ids` (1, rows) int32 with rows = min(largest
  token bucket, max_num_tokens), and a pinned host `seq_lens` (largest batch size,) int32,
  planned too (capacity: the largest captured key's batch size). A graph of key (b, n, L)
  reads n token rows and b requests. Host tensors are pinned when `prefer_pinned()`
  (1362-1380; planned `pinned`), `_arange_max` is pageable (1383-1384): the runner records
  its host-to-device copies in the graph only from pinned memory
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1289-1292).
* the graphs' device sequence lengths: `maybe_get_cuda_graph` creates each new key's graph
  attention metadata (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1835-1870,
  `create_cuda_graph_metadata(padded_batch_size, .., encode_only=True)` 1839-1845), kept in
  `graph_metadata[key]` for the graph's life; that metadata's `_seq_lens_cuda` (b,) int32
  device tensor is read by the graph and refilled from the host `seq_lens` slice it is bound
  to (1852-1855) by a copy captured in the graph (token mode, `capture_h2d`, 2118-2125) or
  copied once at capture (feature mode, 2151-2155). graphfit plans one `seq_lens_cuda`
  (largest batch size,) device buffer every graph reads its first b rows of, staged by the
  host `seq_lens`; its reference rows are the engine's, one tensor per captured key: the sum
  of the captured keys' batch sizes.

Encoder-decoder and feature-mode encoders (fixed sequence slots, `capture_keys` built from
layouts) and multimodal-encoder buckets are not modelled here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    PAD_TRUE,
    ZERO,
    Axis,
    BufferSpec,
    Demand,
    FillPolicy,
    Placement,
)
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.keyed import BatchKey, KeyedDispatch, prove_keyed
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.trtllm_ladders import filter_encoder_values

EncoderKey = tuple[int, int, int]


def valid_graph_key(batch: int, tokens: int, longest: int, token_buckets: Sequence[int],
                    length_buckets: Sequence[int]) -> EncoderKey:
    """`_get_valid_graph_key`: walk both bucket lists up from the first bucket >= each value
    until bucket tokens <= batch x bucket length and bucket length <= bucket tokens; (batch,
    0, 0) when a list runs out."""
    i, j = bisect_left(token_buckets, tokens), bisect_left(length_buckets, longest)
    while i < len(token_buckets) and j < len(length_buckets):
        n, length = token_buckets[i], length_buckets[j]
        if n > batch * length:
            j += 1
        elif length > n:
            i += 1
        else:
            return batch, n, length
    return batch, 0, 0


def capture_layout(batch: int, tokens: int, longest: int) -> tuple[int, ...] | None:
    """`build_capture_sequence_lengths`: one request of `longest` tokens (or fewer when the
    rest must each keep one), the rest spread evenly; None when no batch has that shape."""
    if batch <= 0 or tokens < batch or tokens > batch * longest:
        return None
    if batch == 1:
        return (tokens,)
    if tokens >= longest + batch - 1:
        base, extra = divmod(tokens - longest, batch - 1)
        return (longest, *([base + 1] * extra), *([base] * (batch - 1 - extra)))
    return (tokens - batch + 1, *([1] * (batch - 1)))


@dataclass(frozen=True)
class EncoderLadders:
    """The filtered ladders and bounds an `EncoderCUDAGraphRunner` reads, shared by the
    encoder-only runner (`EncoderGraphs`) and the encoder-decoder one
    (graphfit.planner.engines.trtllm_encdec.EncDecGraphs): both come out of
    `EncoderConfigMixin.create`'s filters, so their validation and bounds are one rule."""

    batch_sizes: tuple[int, ...]
    token_buckets: tuple[int, ...]
    length_buckets: tuple[int, ...]
    padding: bool
    max_batch_size: int
    max_num_tokens: int
    max_seq_len: int

    def __post_init__(self) -> None:
        for name in ("batch_sizes", "token_buckets", "length_buckets"):
            values = getattr(self, name)
            if list(values) != sorted(set(values)) or any(v < 1 for v in values):
                raise ConfigError(f"encoder graphs: {name} must be sorted, unique and >= 1")
        for name in ("max_batch_size", "max_num_tokens", "max_seq_len"):
            if getattr(self, name) < 1:
                raise ConfigError(f"encoder graphs: {name} must be >= 1")

    @property
    def enabled(self) -> bool:
        return bool(self.token_buckets and self.length_buckets)

    @property
    def max_graph_tokens(self) -> int:
        return self.token_buckets[-1] if self.token_buckets else 0

    @property
    def seq_lens_rows(self) -> int:
        """TensorRT-LLM's host `seq_lens` rows: the largest kept batch size (graphs on)."""
        return self.batch_sizes[-1] if self.enabled and self.batch_sizes else 0

    @property
    def ladders(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The kept ladders under the config's names (a keyed component's `ladders`)."""
        return (("batch_sizes", self.batch_sizes), ("num_tokens", self.token_buckets),
                ("seq_lens", self.length_buckets))


@dataclass(frozen=True)
class EncoderGraphs(EncoderLadders):
    """The filtered ladders and bounds of one encoder-only runner."""

    @property
    def static_rows(self) -> int:
        """TensorRT-LLM's `input_ids` / `position_ids` rows (encoder-only): none while its
        graphs are off, when the runner creates no static tensor (the seq_lens citation:
        tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1217-1380)."""
        return min(self.max_graph_tokens, self.max_num_tokens) if self.enabled else 0

    def capture_shapes(self) -> Iterator[EncoderKey]:
        """`_encoder_capture_shapes` (encoder-only): the shapes warmed up and captured."""
        tokens, lengths = self.token_buckets, self.length_buckets
        for b in sorted(self.batch_sizes, reverse=True):
            if b > self.max_batch_size:
                continue
            for j in reversed(range(len(lengths))):
                length, previous_length = lengths[j], lengths[j - 1] if j else 0
                for i in reversed(range(len(tokens))):
                    n, previous_n = tokens[i], tokens[i - 1] if i else 0
                    if (n < previous_length + b or previous_n >= b * length
                            or n > b * length or length > n):
                        continue
                    yield b, n, length

    def _key(self, batch: BatchKey) -> EncoderKey | None:
        """`maybe_get_cuda_graph` after `pad_batch`, before the captured check."""
        b, n, longest = batch
        if not self.enabled:
            return None
        if self.padding:
            i = bisect_left(self.batch_sizes, b)
            padded = self.batch_sizes[i] if i < len(self.batch_sizes) else 0
            if padded not in (0, b) and n + padded - b <= self.max_graph_tokens:
                b, n = padded, n + padded - b  # one-token dummies: the longest stays
        if b not in self.batch_sizes:
            return None
        key = valid_graph_key(b, n, longest, self.token_buckets, self.length_buckets)
        padded_any = key[1] != n or key[2] != longest
        if (not self.padding and padded_any) or key[1] == 0 or key[2] == 0:
            return None
        return key

    @cached_property
    def witnesses(self) -> dict[EncoderKey, BatchKey]:
        """Each captured key, with the (requests, tokens, longest) of the first capture layout
        that captures it: a batch the engine itself runs, so one that replays the key."""
        out: dict[EncoderKey, BatchKey] = {}
        for shape in self.capture_shapes():
            layout = capture_layout(*shape)
            if layout is None:
                continue
            batch = (len(layout), sum(layout), max(layout))
            key = self._key(batch)
            if key is not None:
                out.setdefault(key, batch)
        return out

    @property
    def captured(self) -> frozenset[EncoderKey]:
        """The keys of the captured layouts."""
        return frozenset(self.witnesses)

    def lookup(self, batch: BatchKey) -> EncoderKey | None:
        """The captured key a batch of (requests, tokens, longest) replays, or None."""
        key = self._key(batch)
        return key if key is not None and key in self.captured else None

    @cached_property
    def dispatch(self) -> KeyedDispatch:
        return KeyedDispatch(self._key, frozenset(self.captured), lambda key: key[1],
                             buffer_rows=SEQ_LENS_ROWS)

    def prove(self, capacity: int | None = None) -> tuple[tuple[object, ...], int, int]:
        """`prove_keyed` of the static token buffer at `capacity` (default: TensorRT-LLM's
        rows) over every batch of at most max_batch_size requests, max_num_tokens tokens and
        requests of at most max_seq_len tokens."""
        rows = self.static_rows if capacity is None else capacity
        return prove_keyed(self.dispatch, rows, self.max_batch_size, self.max_num_tokens,
                           self.max_seq_len)

    @property
    def needed_rows(self) -> int:
        """The most token rows a captured graph reads (graphfit's capacity)."""
        return max((k[1] for k in self.captured), default=0)


def encoder_graphs(batch_sizes: Sequence[int], num_tokens: Sequence[int],
                   seq_lens: Sequence[int], padding: bool, max_batch_size: int,
                   max_num_tokens: int, max_seq_len: int) -> EncoderGraphs:
    """`EncoderConfigMixin.create`'s filters on the config's (sorted) lists."""
    # filter_cuda_graph_batch_sizes(.., max_batch_size, max_num_tokens, 1, padding): one
    # token a request, so its limit is min(max_batch_size, max_num_tokens), the same walk as
    # the bucket filters (the reference test compares it with the engine's filter)
    bs = filter_encoder_values(sorted(set(batch_sizes)), min(max_batch_size, max_num_tokens),
                               padding) if batch_sizes else ()
    nt = filter_encoder_values(sorted(set(num_tokens)), max_num_tokens, padding)
    sl = filter_encoder_values(sorted(set(seq_lens)), max_seq_len, padding)
    return EncoderGraphs(tuple(bs), nt, sl, padding, max_batch_size, max_num_tokens,
                         max_seq_len)


COMPONENT = "encoder"


def padded_requests(key: tuple[int, ...]) -> int:
    """The host `seq_lens` rows a graph of `key` reads: its padded request count (key[0])."""
    return key[0]


SEQ_LENS_DEVICE = "seq_lens_cuda"  # the graphs' device copy of the host seq_lens

# the request-axis buffers' own rows rule (KeyedDispatch.buffer_rows); the token buffers read
# the key's padded tokens (key[1])
SEQ_LENS_ROWS = {"seq_lens": padded_requests, SEQ_LENS_DEVICE: padded_requests}


def seq_lens_buffer(rows: int, fill: FillPolicy = PAD_TRUE) -> BufferSpec:
    """The runner's pinned host `seq_lens` (largest batch size,) int32: each graph's attention
    metadata reads its first b entries, one-token dummies padded with 1
    (`_create_shared_static_tensors`, `pad_batch`); the staging copy of `seq_lens_cuda`."""
    return BufferSpec("seq_lens", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                      rows, fill,
                      source="EncoderCUDAGraphRunner's pinned host seq_lens "
                             "(_create_shared_static_tensors)", placement=Placement.HOST,
                      stages=SEQ_LENS_DEVICE, pinned=True)


def graph_requests(captured: Iterable[tuple[int, ...]]) -> int:
    """The engine's `_seq_lens_cuda` rows over all its graphs: one (b,) tensor per captured
    key (its graph attention metadata's), b = key[0]."""
    return sum(padded_requests(key) for key in captured)


def seq_lens_device_buffer(reference_rows: int, fill: FillPolicy = PAD_TRUE) -> BufferSpec:
    """The graphs' device sequence lengths, (largest batch size,) int32 in graphfit's plan (a
    graph of key (b, ..) reads b rows, refilled from the host `seq_lens`); the engine
    allocates one (b,) `_seq_lens_cuda` per captured key (`reference_rows`: their sum;
    tensorrt_llm/_torch/attention_backend/interface.py@51ea5c9637:299-304 and the setter's
    allocation, 174-196). One buffer serves every key because each replay refills the rows its
    graph reads before reading them (tests/oracle/test_trtllm_shared_seq_lens_reference.py)."""
    return BufferSpec(SEQ_LENS_DEVICE, "int32", Axis.REQUESTS,
                      (Demand(Stream.TARGET_REQUESTS),), reference_rows, fill,
                      source="each encoder graph's attention metadata _seq_lens_cuda "
                             "(create_cuda_graph_metadata, one per captured key)")


HOST_COPY = "{}_host"  # a host staging copy's name: the device buffer's, suffixed
ARANGE_BUFFER = "arange_max"


def encoder_buffers(rows: int, seq_lens_rows: int, why: str, graph_rows: int
                    ) -> tuple[BufferSpec, ...]:
    """An `EncoderCUDAGraphRunner`'s static `input_ids` (rows,) and `position_ids` (1, rows)
    int32 (a graph of key (b, n, L) reads n rows), their pinned host staging copies of the
    same shapes (`shared_static_tensors_cpu`, planned as `input_ids_host` /
    `position_ids_host`, host placement: a replay fills n rows there and copies them to the
    device tensors), its host `seq_lens` and the host `arange_max` (rows,) int32 the replay
    builds position ids from (`_create_shared_static_tensors`,
    tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1355-1384): the same
    buffers for the encoder-only and the encoder-decoder runner, which differ only in
    `rows`."""
    host = why + ", pinned host staging copy (shared_static_tensors_cpu)"
    return (
        BufferSpec("input_ids", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), rows,
                   ZERO, source=why),
        BufferSpec("position_ids", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), rows,
                   ZERO, leading=(1,), source=why),
        seq_lens_buffer(seq_lens_rows),
        BufferSpec(HOST_COPY.format("input_ids"), "int32", Axis.TOKENS,
                   (Demand(Stream.GRAPH_TOKENS),), rows, ZERO, source=host,
                   placement=Placement.HOST, stages="input_ids", pinned=True),
        BufferSpec(HOST_COPY.format("position_ids"), "int32", Axis.TOKENS,
                   (Demand(Stream.GRAPH_TOKENS),), rows, ZERO, leading=(1,), source=host,
                   placement=Placement.HOST, stages="position_ids", pinned=True),
        # `_arange_max`: a host (pageable) arange the replay slices to build the packed
        # position_ids in place
        BufferSpec(ARANGE_BUFFER, "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), rows,
                   ZERO, init="arange", source=why + ", host arange (_arange_max)",
                   placement=Placement.HOST),
        seq_lens_device_buffer(graph_rows))


def encoder_graphs_of(config: EngineSettings, batch_sizes: Sequence[int]) -> EncoderGraphs:
    """The encoder-only runner's graphs for a config with `cuda_graph_config.mode: encode`:
    `batch_sizes` as the graph config validates them (given, or generated for its
    max_batch_size), buckets as `EncodeCudaGraphConfig` leaves them, bounds max_batch_size,
    max_num_tokens and max_seq_len (graphfit's max_model_len)."""
    return encoder_graphs(batch_sizes, config.encode_num_tokens or (),
                          config.encode_seq_lens or (), bool(config.cuda_graph_padding),
                          config.max_num_seqs, config.max_num_batched_tokens,
                          config.max_model_len)


def encoder_component(config: EngineSettings, batch_sizes: Sequence[int]
                      ) -> KeyedComponentModel:
    """The `encoder` keyed component: its static `input_ids` (rows,) and `position_ids`
    (1, rows), int32, TensorRT-LLM's rows the largest kept token bucket (min(largest bucket,
    max_num_tokens)); a graph of key (b, n, L) reads n rows."""
    graphs = encoder_graphs_of(config, batch_sizes)
    buffers = encoder_buffers(graphs.static_rows, graphs.seq_lens_rows,
                              "EncoderCUDAGraphRunner's static inputs "
                              "(_create_shared_static_tensors)",
                              graph_requests(graphs.captured))
    ladders = graphs.ladders
    witnesses: dict[tuple[int, ...], BatchKey] = {
        key: batch for key, batch in graphs.witnesses.items()}
    return KeyedComponentModel(COMPONENT, graphs.dispatch,
                               (graphs.max_batch_size, graphs.max_num_tokens,
                                graphs.max_seq_len), buffers, witnesses, ladders)
