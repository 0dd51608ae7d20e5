"""TensorRT-LLM's encoder CUDA graphs of an encoder-decoder model (`encoder_cuda_graph_config`,
token mode), keyed on (batch size, token bucket, longest-request bucket) like the encoder-only
runner's (graphfit.planner.engines.trtllm_encoder) but captured and dispatched differently.

Sources (NVIDIA/TensorRT-LLM; tests/oracle/trtllm_reference.py `CITES` and `LINES`):

* ladders: `EncoderConfigMixin.create`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:74-214) applies the
  encoder-only runner's three filters; a token encoder-decoder model without both bucket lists
  is an error, not an eager encoder (lines 102-112).
* captured keys: `_build_encoder_decoder_capture_layouts`
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1415-1440, called from
  `__init__` 1238-1258 before any key exists): every batch size x token bucket x length bucket
  whose `build_capture_sequence_lengths` layout exists, keyed (b, n, length bucket of the
  layout's longest request), the first layout of a key kept. `_encoder_capture_shapes` walks
  those keys and `_run_encoder_capture_pass` replays each key's layout
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:443-447 and 486-525),
  which resolves to that key (the smallest key that holds it).
* dispatch: with padding, `pad_batch` pads to the batch size of the smallest captured key
  (`_get_dynamic_capture_key` with batch padding,
  tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1442-1484; `pad_batch`
  1621-1684) whose token bucket holds the tokens plus one-token dummies and whose length
  bucket holds the longest request, and `get_graph_key` (1562-1606) picks that key again;
  without padding the key is (b, n, length bucket of the longest) and replays only when it is
  a captured key (`_resolve_graph_key` 1728-1748).
* fixed sequence slots (`use_fixed_sequence_slots`: an encoder-decoder checkpoint with
  `relative_attention_num_buckets`, T5;
  tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:204-210): a graph's
  requests sit at its capture layout's offsets, one slot each. `_get_dynamic_capture_key`
  skips a key whose layout has no slot for some request (dummies included; 1442-1484) and
  tries the next one; a request fits when, both sorted longest first, each length is at most
  its slot's (`_get_sequence_slot_mapping` 1486-1523: largest to largest). So the key
  depends on the sorted lengths, and with `fixed_slots` the dispatch's batch is the tuple
  of request lengths (any order), measured as (requests, tokens, longest). Without padding
  the key is (b, n, length bucket) with no slot check, and `prepare_encoder_decoder_inputs`
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1686-1726, raising at
  1709-1712; called on every replay,
  tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:375-383) raises
  ValueError for a batch whose lengths fit no slot of it: `slot_error` names those
  batches. The captured keys, and so the capacities, do not depend on slots.
  Without padding a batch replays (b, n, L) only with exactly n tokens, the sum of the
  layout's slots, so "each length within its slot" means "each length equal to its slot":
  every batch of that key but its capture layout raises. `slot_refusals` lists the keys
  for which another batch within the bounds exists, with one (the plan reports them as
  the engine's refusals, `EngineRefusal`).
* buffers (`_create_shared_static_tensors`, 1307-1384): `input_ids` (rows,) and
  `position_ids` (1, rows) int32 with rows = the encoder's max_num_tokens (encoder-decoder:
  1309-1312), and a pinned host `seq_lens` (largest batch size,) int32 (planned: the
  largest captured key's batch size). A graph of key (b, n, L) reads n token rows and b
  sequence lengths.
* fixed slots' boundaries: with fixed sequence slots `maybe_get_cuda_graph` gives each new
  key's graph attention metadata a device `capture_offsets_cuda`, the (b + 1,) int32
  cumulative offsets of the key's capture layout (`_get_capture_sequence_offsets`, the last
  offset checked to be the key's tokens), set as both `cu_q_seqlens` and `cu_kv_seqlens`
  and never rewritten: a replay scatters each request into its slot at those offsets
  (`_stage_encoder_decoder_inputs`) and gathers the output back
  (`restore_encoder_decoder_output`)
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1856-1865). graphfit plans
  one `capture_offsets_cuda` device buffer holding every captured key's offsets in a region
  of its own (keys in order), so the key's graph reads the rows up to its region's end and
  the capacity, like the engine's tensors, is the sum of b + 1 over the captured keys.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.keyed import BatchKey, KeyedDispatch, prove_keyed, split
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.core.verify import EngineRefusal
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.trtllm_encoder import (
    COMPONENT,
    SEQ_LENS_ROWS,
    EncoderKey,
    EncoderLadders,
    capture_layout,
    encoder_buffers,
    encoder_graphs,
    graph_requests,
)

FIXED_SLOTS_SUMMARY = ("fixed sequence slots (relative attention): a batch replays the first "
                       "captured key whose capture layout has a slot for each request, so "
                       "its key depends on the request lengths")
Lengths = tuple[int, ...]  # a batch's request lengths, longest first (fixed slots)


def admit_lengths(batch: object) -> Lengths:
    """A batch of request lengths (each >= 1, at least one), longest first: the order does
    not change the key (a request may take any slot)."""
    if not isinstance(batch, (tuple, list)) or not batch or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in batch):
        raise ConfigError(f"encoder batch: expected request lengths >= 1, got "
                          f"{excerpt(batch)}")
    return tuple(sorted(batch, reverse=True))


def measure_lengths(lengths: Lengths) -> BatchKey:
    """(requests, tokens, longest) of a batch of request lengths."""
    return (len(lengths), sum(lengths), max(lengths))


def other_split(slots: Lengths, low: int, cap: int) -> Lengths | None:
    """A batch of the slots' counts (requests, tokens), each request 1..`cap` tokens and the
    longest more than `low`, that is not the slots themselves (as a multiset), longest
    first; None when the slots are the only one. One token moved between two requests
    reaches another such batch whenever one exists (the reference test checks it against
    every batch); a capture layout has at most three distinct lengths, so this is cheap."""
    values = sorted(set(slots), reverse=True)
    for v in values:
        for w in values:
            if v == w and slots.count(v) < 2:
                continue
            moved = list(slots)
            moved.remove(v)
            moved.remove(w)
            moved += [v - 1, w + 1]
            batch = tuple(sorted(moved, reverse=True))
            if batch != slots and batch[-1] >= 1 and low < batch[0] <= cap:
                return batch
    return None


CAPTURE_OFFSETS = "capture_offsets_cuda"  # fixed slots' per-key boundaries (device)


def capture_offsets(layout: Sequence[int]) -> tuple[int, ...]:
    """`_get_capture_sequence_offsets`: 0, then the running sum of the layout's slots."""
    out = [0]
    for length in layout:
        out.append(out[-1] + length)
    return tuple(out)


def offset_regions(captured: Iterable[EncoderKey]) -> dict[EncoderKey, tuple[int, int]]:
    """Each captured key's rows [start, end) in graphfit's one `capture_offsets_cuda`
    buffer: b + 1 rows each, keys in sorted order, back to back (the engine allocates one
    (b + 1,) tensor per key, so the buffer's rows are theirs)."""
    out, start = {}, 0
    for key in sorted(captured):
        out[key] = (start, start + key[0] + 1)
        start += key[0] + 1
    return out


def capture_offsets_buffer(rows: int) -> BufferSpec:
    """The fixed slots' boundaries, int32 on the device: every captured key's (b + 1,)
    offsets in its own region, written once at capture and read by its graph as the
    attention's cu_q_seqlens / cu_kv_seqlens."""
    return BufferSpec(CAPTURE_OFFSETS, "int32", Axis.REQUESTS,
                      (Demand(Stream.TARGET_REQUESTS, offset=1),), rows, ZERO,
                      source="each fixed-slot encoder graph's capture_offsets_cuda "
                             "(maybe_get_cuda_graph, one per captured key)")


SLOT_ERROR = "TensorRT-LLM raises ValueError (fixed sequence slots without enable_padding)"


def round_up(value: int, supported: Sequence[int]) -> int:
    """`_round_up`: the smallest element >= value, or 0."""
    i = bisect_left(supported, value)
    return supported[i] if i < len(supported) else 0


@dataclass(frozen=True)
class EncDecGraphs(EncoderLadders):
    """The filtered ladders and bounds of one encoder-decoder encoder runner (token mode)."""

    fixed_slots: bool = False

    @property
    def static_rows(self) -> int:
        """TensorRT-LLM's `input_ids` / `position_ids` rows: the encoder's max_num_tokens
        (allocated only when graphs are on)."""
        return self.max_num_tokens if self.enabled else 0

    @cached_property
    def layouts(self) -> dict[EncoderKey, tuple[int, ...]]:
        """`_build_encoder_decoder_capture_layouts`: key -> its first capture layout."""
        out: dict[EncoderKey, tuple[int, ...]] = {}
        if not self.enabled:
            return out
        for b in self.batch_sizes:
            for n in self.token_buckets:
                for length in self.length_buckets:
                    layout = capture_layout(b, n, length)
                    if layout is None:
                        continue
                    bucket = round_up(max(layout), self.length_buckets)
                    if n <= self.max_graph_tokens and bucket > 0:
                        out.setdefault((b, n, bucket), layout)
        return out

    @property
    def captured(self) -> frozenset[EncoderKey]:
        return frozenset(self.layouts)

    @cached_property
    def _by_batch(self) -> dict[int, tuple[EncoderKey, ...]]:
        out: dict[int, list[EncoderKey]] = {}
        for key in sorted(self.captured):
            out.setdefault(key[0], []).append(key)
        return {b: tuple(keys) for b, keys in out.items()}

    @cached_property
    def _slots(self) -> dict[EncoderKey, Lengths]:
        """Each captured key's slot lengths, longest first."""
        return {key: tuple(sorted(layout, reverse=True)) for key, layout in self.layouts.items()}

    def fits_slots(self, key: EncoderKey, lengths: Lengths) -> bool:
        """`_get_sequence_slot_mapping` is not None: `lengths` (longest first) pair with
        the key's slots largest to largest, each within its slot."""
        slots = self._slots.get(key)
        return slots is not None and len(slots) == len(lengths) and all(
            s <= c for s, c in zip(lengths, slots, strict=True))

    def _dynamic(self, lengths: Lengths, batch_padding: bool) -> EncoderKey | None:
        """`_get_dynamic_capture_key` (with the slot check when `fixed_slots`)."""
        b, n, longest = measure_lengths(lengths)
        for padded in (self.batch_sizes if batch_padding else (b,)):
            if padded < b:
                continue
            required = n + padded - b
            padded_lengths = lengths + (1,) * (padded - b)  # dummies: still longest first
            for key in self._by_batch.get(padded, ()):
                _, kn, kl = key
                if (kn < required or kn > self.max_graph_tokens or kl < longest
                        or kl not in self.length_buckets or kn > padded * kl):
                    continue
                if self.fixed_slots and not self.fits_slots(key, padded_lengths):
                    continue
                return key
        return None

    def _resolved(self, lengths: Lengths) -> tuple[EncoderKey | None, Lengths]:
        """`pad_batch`, then `_resolve_graph_key` (None: eager), with the padded lengths."""
        b, n, longest = measure_lengths(lengths)
        if not self.enabled:
            return None, lengths
        dynamic = self.padding and bool(self.captured)
        if self.padding:
            if dynamic:
                found = self._dynamic(lengths, True)
                padded = found[0] if found is not None else 0
            else:
                padded = round_up(b, self.batch_sizes)
            if padded not in (0, b) and n + padded - b <= self.max_graph_tokens:
                lengths = lengths + (1,) * (padded - b)  # one-token dummies
                b, n = padded, n + padded - b
        if b not in self.batch_sizes:
            return None, lengths
        if dynamic:
            key = self._dynamic(lengths, False)
        else:
            bucket = round_up(longest, self.length_buckets)
            key = (b, n, bucket) if n <= self.max_graph_tokens and bucket > 0 else None
        return (key if key is not None and key in self.captured else None), lengths

    def _key(self, batch: BatchKey | Lengths) -> EncoderKey | None:
        """The engine's key of a batch: its request lengths with `fixed_slots`, else its
        (requests, tokens, longest) (any split of those replays the same key)."""
        if self.fixed_slots:
            return self._resolved(tuple(batch))[0]
        return self._resolved(split(batch))[0]  # type: ignore[arg-type]

    def lookup(self, batch: BatchKey | Lengths) -> EncoderKey | None:
        """The captured key a batch replays (the dispatch's batch form: module docstring)."""
        return self.dispatch.lookup(batch)

    def slot_error(self, lengths: Sequence[int]) -> bool:
        """True when TensorRT-LLM raises ValueError replaying this batch (fixed slots without
        padding: its key's layout has no slot for some request; `prepare_encoder_decoder_
        inputs`). With padding the key was chosen by the slot check, so never."""
        key, padded = self._resolved(admit_lengths(lengths))
        return self.fixed_slots and key is not None and not self.fits_slots(key, padded)

    @cached_property
    def slot_refusals(self) -> tuple[tuple[EncoderKey, Lengths], ...]:
        """(key, a batch that raises) for each captured key some batch within the bounds
        replays only to raise (fixed slots without padding: every batch of the key but its
        capture layout; module docstring), smallest key first."""
        if not self.fixed_slots or self.padding or not self.enabled:
            return ()
        out = []
        for key in sorted(self.captured):
            b, n, bucket = key
            if b > self.max_batch_size or n > self.max_num_tokens:
                continue
            example = other_split(self._slots[key], self._low(bucket),
                                  min(bucket, self.max_seq_len))
            if example is not None:
                out.append((key, example))
        return tuple(out)

    def refusals(self, component: str) -> tuple[EngineRefusal, ...]:
        """`slot_refusals` as the plan reports them."""
        return tuple(
            EngineRefusal(component, ",".join(map(str, key)),
                          f"every batch of {key[0]} request{'s' if key[0] > 1 else ''}, "
                          f"{key[1]} tokens, longest "
                          f"{self._low(key[2]) + 1}-{min(key[2], self.max_seq_len)} but its "
                          f"capture layout "
                          f"{list(self._slots[key])}", example, SLOT_ERROR)
            for key, example in self.slot_refusals)

    def _low(self, bucket: int) -> int:
        i = self.length_buckets.index(bucket)
        return self.length_buckets[i - 1] if i else 0

    @cached_property
    def witnesses(self) -> dict[EncoderKey, BatchKey | Lengths]:
        """Each captured key with its capture layout (which replays it), as the dispatch's
        batch: the layout's counts, or its lengths with fixed slots."""
        return {key: (admit_lengths(layout) if self.fixed_slots else measure_lengths(
            tuple(layout))) for key, layout in self.layouts.items()}

    @cached_property
    def dispatch(self) -> KeyedDispatch:
        if self.fixed_slots:
            regions = offset_regions(self.captured)

            def region_end(key: EncoderKey) -> int:  # a key's graph reads up to its region
                return regions[key][1] if key in regions else key[0] + 1

            # the boundaries buffer exists only with captured keys (component below)
            rows = {**SEQ_LENS_ROWS, CAPTURE_OFFSETS: region_end} if regions else SEQ_LENS_ROWS
            return KeyedDispatch(self._key, frozenset(self.captured), lambda key: key[1],
                                 buffer_rows=rows, admit=admit_lengths)
        return KeyedDispatch(self._key, frozenset(self.captured), lambda key: key[1],
                             buffer_rows=SEQ_LENS_ROWS)

    def prove(self, capacity: int | None = None) -> tuple[tuple[object, ...], int, int]:
        """`prove_keyed` of the token buffers at `capacity` (default TensorRT-LLM's rows),
        over every reachable (requests, tokens, longest). With fixed slots a batch's key is
        one of the captured keys whatever its split, so the captured keys' rows bound it
        (`needed_rows`); this proof covers the slot-free dispatch."""
        rows = self.static_rows if capacity is None else capacity
        free = self if not self.fixed_slots else replace(self, fixed_slots=False)
        return prove_keyed(free.dispatch, rows, self.max_batch_size, self.max_num_tokens,
                           self.max_seq_len)

    @property
    def needed_rows(self) -> int:
        return max((k[1] for k in self.captured), default=0)


def encdec_graphs(batch_sizes: Sequence[int], num_tokens: Sequence[int],
                  seq_lens: Sequence[int], padding: bool, max_batch_size: int,
                  max_num_tokens: int, max_seq_len: int, fixed_slots: bool = False
                  ) -> EncDecGraphs:
    """`EncoderConfigMixin.create` for a token encoder-decoder model: both bucket lists are
    required, then the encoder-only runner's filters."""
    if not num_tokens or not seq_lens:
        missing = [n for n, v in (("num_tokens", num_tokens), ("seq_lens", seq_lens)) if not v]
        raise ConfigError(f"encoder_cuda_graph_config: {' and '.join(missing)} unset: "
                          f"TensorRT-LLM refuses a token encoder-decoder encoder without both")
    only = encoder_graphs(batch_sizes, num_tokens, seq_lens, padding, max_batch_size,
                          max_num_tokens, max_seq_len)
    return EncDecGraphs(only.batch_sizes, only.token_buckets, only.length_buckets, padding,
                        max_batch_size, max_num_tokens, max_seq_len, fixed_slots)


def encoder_bounds(config: EngineSettings) -> tuple[tuple[int, ...], int, int]:
    """(capture batch sizes, encoder_max_batch_size, encoder token budget) of a config with
    `encoder_cuda_graph_config`, shared by the encoder-decoder and the feature-mode encoder
    runners; refused as TensorRT-LLM refuses a config without encoder_max_batch_size."""
    if config.encoder_graph_batch_sizes is None:
        raise ConfigError("encoder graphs: no encoder_cuda_graph_config")
    if config.encoder_max_batch_size is None:
        raise ConfigError("encoder_cuda_graph_config requires encoder_max_batch_size "
                          "(TensorRT-LLM refuses it too)")
    tokens = config.encoder_max_num_tokens or config.max_num_batched_tokens
    return tuple(config.encoder_graph_batch_sizes), config.encoder_max_batch_size, tokens


def encdec_graphs_of(config: EngineSettings) -> EncDecGraphs:
    """The encoder-decoder encoder runner of a config with `encoder_cuda_graph_config`:
    bounds encoder_max_batch_size, encoder_max_num_tokens (or max_num_tokens) and
    max_seq_len (graphfit's max_model_len)."""
    sizes, max_batch_size, tokens = encoder_bounds(config)
    return encdec_graphs(sizes, config.encoder_graph_num_tokens or (),
                         config.encoder_graph_seq_lens or (), config.encoder_graph_padding,
                         max_batch_size, tokens, config.max_model_len,
                         config.encoder_fixed_slots)


def encdec_component(config: EngineSettings) -> KeyedComponentModel:
    """The `encoder` keyed component of an encoder-decoder model: `input_ids` (rows,) and
    `position_ids` (1, rows) int32, TensorRT-LLM's rows the encoder's max_num_tokens."""
    graphs = encdec_graphs_of(config)
    buffers = encoder_buffers(graphs.static_rows, graphs.seq_lens_rows,
                              "EncoderCUDAGraphRunner's static inputs, encoder-decoder "
                              "(_create_shared_static_tensors)",
                              graph_requests(graphs.dispatch.captured))
    if graphs.fixed_slots and graphs.captured:
        ends = offset_regions(graphs.captured).values()
        buffers = (*buffers, capture_offsets_buffer(max(end for _, end in ends)))
    ladders = graphs.ladders
    witnesses: dict[tuple[int, ...], BatchKey | Lengths] = dict(graphs.witnesses.items())
    return KeyedComponentModel(COMPONENT, graphs.dispatch,
                               (graphs.max_batch_size, graphs.max_num_tokens,
                                graphs.max_seq_len), buffers, witnesses, ladders,
                               measure=measure_lengths if graphs.fixed_slots else None,
                               summary=(FIXED_SLOTS_SUMMARY if graphs.fixed_slots else ""),
                               refusals=graphs.refusals(COMPONENT))
