"""TensorRT-LLM's token ladders outside decode graphs: prefill (breakable / piecewise) capture
counts and their padding rule, and the encoder CUDA-graph buckets.

The prefill graphs are planned as the `prefill` component (graphfit.planner.engines
.trtllm_prefill); the encoder graphs are not (their key is 2-D: docs/engines/trtllm-coverage.md),
but the lists TensorRT-LLM captures are pure functions of its config, restated here so the
reader can say what a config asks for and tests can compare them with
tests/oracle/trtllm_reference.py:

- `DEFAULT_PREFILL_CAPTURE_NUM_TOKENS`: `_DEFAULT_PREFILL_CAPTURE_NUM_TOKENS`
  (tensorrt_llm/llmapi/llm_args.py@0004396720:5512-5513), the list `TorchLlmArgs
  .normalize_prefill_cuda_graph_config` gives a backend that is on without a list.
- `piecewise_capture_num_tokens`: tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:207-248
  `_filter_piecewise_capture_num_tokens` (also `_filter_prefill_capture_num_tokens`, the
  breakable prefill graphs' filter).
- `prefill_padding`: `get_padding_params`,
  tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:84-145.
- `encoder_num_tokens` / `encoder_seq_lens`: `EncodeCudaGraphConfig`
  `_generate_cuda_graph_num_tokens` (tensorrt_llm/llmapi/llm_args.py@0004396720:387-422) /
  `_generate_cuda_graph_seq_lens` (tensorrt_llm/llmapi/llm_args.py@0004396720:424-459).
- `filter_encoder_values`: `_filter_cuda_graph_num_tokens`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@c0edad93fd:248-266) /
  `_filter_cuda_graph_seq_lens`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@c0edad93fd:269-287); later moved
  to the engine's `cuda_graph` module as `filter_cuda_graph_num_tokens` /
  `filter_cuda_graph_seq_lens` (imported by
  tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:43-49).
- `mm_encoder_buckets`: `MultimodalEncoderCudaGraphConfig._normalize`
  (tensorrt_llm/llmapi/llm_args.py@0004396720:545-552).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import check_size_count

# _DEFAULT_PREFILL_CAPTURE_NUM_TOKENS (tensorrt_llm/llmapi/llm_args.py@0004396720:5512-5513): 1..128
# (powers of two), then 256..3072 step 256
DEFAULT_PREFILL_CAPTURE_NUM_TOKENS = (*(2 ** i for i in range(8)), *range(256, 3073, 256))


def piecewise_capture_num_tokens(candidates: Sequence[int], max_num_tokens: int,
                                 max_batch_size: int, max_seq_len: int
                                 ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(kept, unrecordable): candidate token counts in (0, max_num_tokens], clamped to the
    ceiling min(max_num_tokens, max_batch_size x (max_seq_len - 1)) (every in-flight request
    leaves room for one decode token), sorted and de-duplicated; none when the ceiling is 0.
    `unrecordable`: the candidates above max_batch_size x (max_seq_len - 1) but within
    max_num_tokens (TensorRT-LLM warns about them)."""
    ceiling = max(0, max_batch_size * (max_seq_len - 1))
    limit = min(max_num_tokens, ceiling)
    kept = (sorted({min(c, limit) for c in candidates if 0 < c <= max_num_tokens})
            if limit > 0 else [])
    unrecordable = sorted({c for c in candidates if ceiling < c <= max_num_tokens})
    return tuple(kept), tuple(unrecordable)


def prefill_padding(sizes: Sequence[int], total_tokens: int, context_requests: int,
                    all_rank_tokens: Sequence[int] | None = None,
                    all_rank_context_requests: Sequence[int] | None = None
                    ) -> tuple[int, bool, tuple[int, ...] | None]:
    """(padded tokens, replays a prefill graph, every rank's tokens) for one forward of
    `total_tokens` tokens holding `context_requests` context requests, over the captured
    counts `sizes` (sorted; empty: no prefill graphs, the backend being disabled or nothing
    kept).

    One rank: a batch with at least one context request and at most the largest count pads to
    the smallest count >= its tokens (bisect_left); generation-only batches and larger ones
    are not padded and replay no prefill graph. Attention DP (`all_rank_tokens` given): when
    any rank holds a context request and the largest rank's tokens fit, every rank pads to the
    count above the LARGEST rank's tokens, a generation-only rank too; otherwise no rank
    replays one. Either way a padded count is a captured count.
    """
    if not sizes:
        return total_tokens, False, (tuple(all_rank_tokens) if all_rank_tokens is not None
                                     else None)
    largest = sizes[-1]
    if all_rank_tokens is not None:
        ranks = tuple(all_rank_tokens)
        context = context_requests != 0 or (all_rank_context_requests is not None and any(
            c != 0 for c in all_rank_context_requests))
        if context and max(ranks) <= largest:
            padded = sizes[bisect_left(sizes, max(ranks))]
            return padded, True, (padded,) * len(ranks)
        return total_tokens, False, ranks
    if context_requests != 0 and total_tokens <= largest:
        return sizes[bisect_left(sizes, total_tokens)], True, None
    return total_tokens, False, None


def _grow(sizes: list[int], start: int, limit: int) -> list[int]:
    """Powers of two from `start` while below `limit`, then sorted, unique, <= limit, with
    `limit` itself last."""
    p = start
    while p < limit:
        sizes.append(p)
        p *= 2
    out = sorted({s for s in sizes if s <= limit})
    if not out or out[-1] != limit:
        out.append(limit)
    return out


def encoder_num_tokens(max_num_token: int, padding: bool) -> tuple[int, ...]:
    """Total-token buckets generated from `max_num_token` (> 0): padding on 1..128 (powers of
    two) + 256..3072 step 256; off 1, 2, 4, 8, 16..64/16, 96..256/32, 384..1024/128,
    1280..3072/256; then powers of two from 4096 below the max, and the max itself."""
    if max_num_token < 1:
        raise ConfigError(f"max_num_token: must be >= 1, got {max_num_token}")
    if padding:
        sizes = [2 ** i for i in range(8)] + list(range(256, 3073, 256))
    else:
        sizes = ([2 ** i for i in range(5)] + list(range(16, 65, 16)) + list(range(96, 257, 32))
                 + list(range(384, 1025, 128)) + list(range(1280, 3073, 256)))
    return tuple(_grow(sizes, 4096, max_num_token))


def encoder_seq_lens(max_seq_len: int, padding: bool) -> tuple[int, ...]:
    """Per-request sequence-length buckets generated from `max_seq_len` (> 0): padding on
    1..64 (powers of two) + 128..1024/128; off 1..8, 16..64/8, 96..256/32, 320..512/64,
    640..1024/128; then powers of two from 2048 below the max, and the max itself."""
    if max_seq_len < 1:
        raise ConfigError(f"max_seq_len: must be >= 1, got {max_seq_len}")
    if padding:
        sizes = [2 ** i for i in range(7)] + list(range(128, 1025, 128))
    else:
        sizes = (list(range(1, 9)) + list(range(16, 65, 8)) + list(range(96, 257, 32))
                 + list(range(320, 513, 64)) + list(range(640, 1025, 128)))
    return tuple(_grow(sizes, 2048, max_seq_len))


def filter_encoder_values(values: Sequence[int], limit: int, padding: bool) -> tuple[int, ...]:
    """Keep the sorted buckets <= limit; at the first larger one, with padding, add the limit
    unless it is already last; stop there."""
    kept: list[int] = []
    for index, value in enumerate(values):
        if value <= limit:
            kept.append(value)
            continue
        if padding and (index == 0 or kept[index - 1] != limit):
            kept.append(limit)
        break
    return tuple(kept)


def mm_encoder_buckets(buckets: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """(total_tokens, num_contexts) pairs: at least one, each total_tokens >= num_contexts
    (both >= 1), returned sorted and unique."""
    if not buckets:
        raise ConfigError("buckets: at least one (total_tokens, num_contexts) pair")
    for total, contexts in buckets:
        if total < 1 or contexts < 1:
            raise ConfigError(f"buckets: ({total}, {contexts}): both must be >= 1")
        if total < contexts:
            raise ConfigError(f"buckets: ({total}, {contexts}): total_tokens must be >= "
                              f"num_contexts")
    return tuple(sorted(set(buckets)))


TRTLLM_DEFAULT_MAX_BS = 128  # CudaGraphConfig.max_batch_size 0 means 128


def trtllm_sizes(max_bs: int, *, padding: bool) -> list[int]:
    """`CudaGraphConfig._generate_cuda_graph_batch_sizes` for a max batch size."""
    check_size_count(max_bs // 64 if padding else 0, "cuda_graph_config.max_batch_size")
    if padding:
        sizes = [1, 2, 4, *range(8, 129, 8)]
        while sizes[-1] + 64 <= max_bs:
            sizes.append(sizes[-1] + 64)
    else:
        sizes = [*range(1, 32), 32, 64, 128]
        if max_bs > 1:
            sizes += [2 ** i for i in range(8, math.ceil(math.log2(max_bs)))]
    sizes = sorted({s for s in sizes if s <= max_bs})
    if not sizes or sizes[-1] != max_bs:
        sizes.append(max_bs)
    return sizes


def trtllm_filter(sizes: list[int], max_batch_size: int, max_num_tokens: int,
                  tokens_per_request: int, *, padding: bool) -> list[int]:
    """`filter_cuda_graph_batch_sizes`
    (tensorrt_llm/_torch/pyexecutor/engine/cuda_graph.py@c0edad93fd:23-52): a pure generation
    batch of bs requests carries bs * tokens_per_request tokens.

    The limit is min(max_batch_size, max_num_tokens // tokens_per_request); nothing fits when
    it is 0 (every batch runs eagerly). TensorRT-LLM before PR #5076 used max_num_tokens
    itself (pass tokens_per_request=1 to replay that).
    """
    limit = min(max_batch_size, max_num_tokens // tokens_per_request)
    if limit < 1:
        return []
    kept: list[int] = []
    for size in sizes:
        if size <= limit:
            kept.append(size)
            continue
        if padding and (not kept or kept[-1] != limit):
            kept.append(limit)  # users who pad to a larger size accept padding to the limit
        break
    return kept
