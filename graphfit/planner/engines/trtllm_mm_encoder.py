"""TensorRT-LLM's multimodal-encoder CUDA graphs (`multimodal_config.encoder_cuda_graph`, one
`MultimodalEncoderCudaGraphConfig` per modality), keyed on (total tokens, contexts).

Sources (NVIDIA/TensorRT-LLM; tests/oracle/trtllm_reference.py `CITES` and `LINES`):

* buckets: (total_tokens, num_contexts) pairs, total_tokens >= num_contexts, sorted and
  de-duplicated; `enable_padding` defaults to true
  (tensorrt_llm/llmapi/llm_args.py@0004396720:501-552).
* `MultimodalEncoderGraphRunner`
  (tensorrt_llm/_torch/models/multimodal_encoder_graph.py@a1510015fc:193-377): one graph per
  bucket, captured at start-up (`capture_all`, 209-220) under the key (total_tokens + 1,
  num_contexts + 1) with padding (one dummy context absorbs the slack plus one reserved token)
  or the bucket itself without (`_padded_key_for_bucket`, 323-333); a batch of c contexts and
  n tokens replays the first bucket in (total_tokens, num_contexts) order with exactly c
  contexts and n <= total_tokens (== without padding), else runs eagerly (`_select_bucket`
  285-304, `_padded_seq_lengths` 306-321); each captured graph owns its static inputs of its
  key's token rows (`_capture_key`, 365-377), so the runner holds the sum of the keys' rows,
  not the largest.

The inputs themselves are the vision or audio model's (`input_specs`). For a modality whose
specs graphfit knows (the `mm_encoder_inputs` option, restated per architecture by
graphfit.inputs.trtllm_features) it plans the graphs as the keyed `mm_encoder.<modality>`
component (`mm_component`); for any other it reports the graphs and their rows (`graphfit
plan`'s note) but plans no buffer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.dtypes import DTYPE_SIZES
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.keyed import KeyedDispatch
from graphfit.planner.engines.base import KeyedComponentModel

MmKey = tuple[int, int]  # (total tokens, contexts)


@dataclass(frozen=True)
class MmEncoderGraphs:
    """One modality's buckets and padding policy."""

    buckets: tuple[MmKey, ...]
    padding: bool = True

    def __post_init__(self) -> None:
        if not self.buckets:
            raise ConfigError("multimodal encoder graphs: buckets must not be empty")
        if list(self.buckets) != sorted(set(self.buckets)) or any(
                c < 1 or t < c for t, c in self.buckets):
            raise ConfigError("multimodal encoder graphs: buckets must be sorted, unique "
                              "(total_tokens, num_contexts) pairs with total_tokens >= "
                              "num_contexts >= 1")

    def key_of(self, bucket: MmKey) -> MmKey:
        """`_padded_key_for_bucket`: the captured graph's (tokens, contexts)."""
        t, c = bucket
        return (t + 1, c + 1) if self.padding else bucket

    @property
    def captured(self) -> tuple[MmKey, ...]:
        """`capture_all`: each bucket's key, in bucket order, once."""
        return tuple(dict.fromkeys(self.key_of(b) for b in self.buckets))

    def capture_lengths(self, bucket: MmKey) -> list[int]:
        """`_dummy_padded_seq_lengths`: the context lengths a bucket is captured with."""
        t, c = bucket
        if not self.padding:
            return [t - (c - 1)] + [1] * (c - 1)
        return [1] * c + [self.key_of(bucket)[0] - c]

    def select(self, contexts: int, tokens: int) -> MmKey | None:
        """`_select_bucket`: the bucket a batch of `contexts` contexts and `tokens` tokens
        replays, or None (eager)."""
        for t, c in self.buckets:
            if c != contexts or tokens > t:
                continue
            if self.padding or tokens == t:
                return t, c
        return None

    def lookup(self, contexts: int, tokens: int) -> MmKey | None:
        """The captured key the batch replays (None: eager)."""
        bucket = self.select(contexts, tokens)
        return None if bucket is None else self.key_of(bucket)

    def padded_lengths(self, lengths: Sequence[int]) -> list[int]:
        """`_padded_seq_lengths`: the lengths the graph's metadata is refreshed with."""
        bucket = self.select(len(lengths), sum(lengths))
        if bucket is None:
            raise ConfigError(f"multimodal encoder graphs: {list(lengths)} replays no graph")
        if not self.padding:
            return list(lengths)
        return [*lengths, bucket[0] - sum(lengths) + 1]

    @property
    def rows_total(self) -> int:
        """Token rows TensorRT-LLM's static inputs hold over all graphs (one set per key)."""
        return sum(t for t, _ in self.captured)

    @property
    def rows_largest(self) -> int:
        """The largest graph's token rows (what one shared set of inputs would need)."""
        return max(t for t, _ in self.captured)

    def describe(self, modality: str) -> str:
        return (f"{modality} {len(self.buckets)} buckets: {len(self.captured)} graph(s) keyed "
                f"on (total tokens, contexts), padding {'on' if self.padding else 'off'}; each "
                f"graph's static inputs hold its own rows: {self.rows_total:,} token rows in "
                f"all, the largest {self.rows_largest:,}")


# --------------------------------------------------------------------------------------------
# Planned: a modality whose encoder model's `input_specs` graphfit knows
# (graphfit.inputs.trtllm_features MM_INPUTS, the `mm_encoder_inputs` option)
# --------------------------------------------------------------------------------------------

InputSpec = tuple[str, tuple[int, ...], str]  # (name, non-token dims, dtype)


def mm_input_specs(value: object, modality: str) -> tuple[InputSpec, ...]:
    """One modality's `EncoderGraphTensorSpec`s as [[name, shape, dtype], ...], validated:
    each input has token rows (the key's total tokens) and these dims after them."""
    if not isinstance(value, (list, tuple)) or not value:
        raise ConfigError(f"mm_encoder_inputs: {modality}: expected [[name, shape, dtype], "
                          f"...], got {excerpt(value)}")
    out: list[InputSpec] = []
    for item in value:
        if not isinstance(item, (list, tuple)) or len(item) != 3 or not isinstance(
                item[0], str) or not item[0] or not isinstance(item[1], (list, tuple)) \
                or not isinstance(item[2], str):
            raise ConfigError(f"mm_encoder_inputs: {modality}: expected [name, shape, dtype], "
                              f"got {excerpt(item)}")
        shape = tuple(item[1])
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in shape):
            raise ConfigError(f"mm_encoder_inputs: {modality}.{item[0]}: dims must be "
                              f"integers >= 1, got {excerpt(item[1])}")
        if item[2] not in DTYPE_SIZES:
            raise ConfigError(f"mm_encoder_inputs: {modality}.{item[0]}: dtype "
                              f"{excerpt(item[2])} is not one graphfit knows")
        out.append((item[0], shape, item[2]))
    if len({name for name, _, _ in out}) != len(out):
        raise ConfigError(f"mm_encoder_inputs: {modality}: input names must be unique")
    return tuple(out)


def mm_component(modality: str, graphs: MmEncoderGraphs, inputs: Sequence[InputSpec]
                 ) -> KeyedComponentModel:
    """The keyed `mm_encoder.<modality>` component: one buffer per input, a graph of key
    (tokens, contexts) reading `tokens` rows of each. TensorRT-LLM materializes one set of
    inputs per captured key (`_capture_key`), so its rows are the keys' sum
    (`rows_total`); graphfit plans one set shared by the graphs, sized for the largest key.
    A batch is (contexts, tokens), within the largest bucket's."""
    def tokens(key: MmKey) -> int:
        return key[0]

    def admit(batch: object) -> tuple[int, int]:
        if not isinstance(batch, (tuple, list)) or len(batch) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in batch) \
                or not 1 <= batch[0] <= batch[1]:
            raise ConfigError(f"{modality} encoder batch: expected (contexts, tokens) with "
                              f"1 <= contexts <= tokens, got {excerpt(batch)}")
        return batch[0], batch[1]

    def rule(batch: tuple[int, int]) -> MmKey | None:
        return graphs.lookup(*batch)

    witnesses: dict[MmKey, tuple[int, int]] = {}
    for t, c in graphs.buckets:  # each key with the first bucket that captures it
        witnesses.setdefault(graphs.key_of((t, c)), (c, t))
    dispatch = KeyedDispatch(rule, frozenset(graphs.captured), tokens, admit=admit)
    why = ("MultimodalEncoderGraphRunner's per-key static inputs (_capture_key: one set per "
           "captured key; graphfit shares one)")
    buffers = tuple(BufferSpec(name, dtype, Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),),
                               graphs.rows_total, ZERO, trailing=shape, source=why)
                    for name, shape, dtype in inputs)
    bounds = (max(c for _, c in graphs.buckets), max(t for t, _ in graphs.buckets))
    return KeyedComponentModel(
        f"{MM_COMPONENT}.{modality}", dispatch, bounds, buffers, witnesses,
        (("total_tokens", tuple(t for t, _ in graphs.buckets)),
         ("num_contexts", tuple(c for _, c in graphs.buckets))),
        bound_names=("contexts", "tokens"), key_names=("total_tokens", "contexts"),
        summary=graphs.describe(modality))


MM_COMPONENT = "mm_encoder"
