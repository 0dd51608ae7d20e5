"""Batch-size ladders for SGLang and TensorRT-LLM (domain.md §4).

Both engines capture one graph per batch size (requests), pad with bisect_left and run larger
batches eagerly. The lists below are the engines' own generators; `batch_ladder` applies the
filtering each runtime does afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from graphfit.planner.config import EngineConfig
from graphfit.planner.enums import Engine, LadderPolicy
from graphfit.planner.errors import ConfigError
from graphfit.planner.ladder import Ladder

SGLANG_DEFAULT_MAX_BS = 256  # SGLang derives it from GPU memory and TP (160-512); 80 GB, TP1
TRTLLM_DEFAULT_MAX_BS = 128  # CudaGraphConfig.max_batch_size 0 means 128


def sglang_sizes(max_bs: int, *, speculative: bool) -> list[int]:
    """SGLang's decode list (or its finer speculative list), cut at max_bs, max_bs appended."""
    runs: tuple[Iterable[int], ...]
    if speculative:
        runs = (range(1, 9), range(10, 33, 2), range(40, 65, 4), range(72, 257, 8),
                range(272, max_bs + 1, 16))
    else:
        runs = ((1, 2, 4, 8, 12), range(16, 257, 8), range(272, 512, 16),
                range(512, max_bs + 1, 32))
    return sorted({s for run in runs for s in run if s <= max_bs} | {max_bs})


def trtllm_sizes(max_bs: int, *, padding: bool) -> list[int]:
    """`CudaGraphConfig`'s generated batch sizes for a max batch size."""
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
    """The model engine's cut: a pure decode batch of bs requests carries bs * q tokens.

    The limit is min(max_batch_size, max_num_tokens // q); TensorRT-LLM before PR #5076 used
    max_num_tokens itself (pass tokens_per_request=1 to replay that).
    """
    limit = min(max_batch_size, max_num_tokens // tokens_per_request)
    kept: list[int] = []
    for size in sizes:
        if size <= limit:
            kept.append(size)
            continue
        if padding and limit >= 1 and (not kept or kept[-1] != limit):
            kept.append(limit)  # users who pad to a larger size accept padding to the limit
        break
    return kept


def _explicit(config: EngineConfig, sizes: tuple[int, ...]) -> Ladder:
    S = config.max_num_seqs
    if sizes[-1] > S:
        raise ConfigError(
            f"cudagraph_capture_sizes: batch size {sizes[-1]} exceeds max_num_seqs ({S})")
    return Ladder(sizes)


def _sglang(config: EngineConfig) -> Ladder:
    S = config.max_num_seqs
    user = config.cudagraph_capture_sizes
    warnings: list[str] = []
    if user is not None:
        sizes = list(user)
        given = config.max_cudagraph_capture_size
        if given is not None and given != sizes[-1]:
            warnings.append(f"cuda_graph_max_bs {given} replaced by max(cuda_graph_bs) "
                            f"{sizes[-1]} (SGLang does the same)")
    else:
        max_bs = config.max_cudagraph_capture_size or SGLANG_DEFAULT_MAX_BS
        if not config.cuda_graph_padding:
            sizes = list(range(1, max_bs + 1))
        else:
            sizes = sglang_sizes(max_bs, speculative=config.ladder is LadderPolicy.SGLANG_SPEC)
    if sizes[-1] > S:  # the runner caps at the request pool, keeping a graph for the pool size
        dropped = [s for s in sizes if s > S]
        sizes = [s for s in sizes if s <= S] + [S]
        if user is not None:
            warnings.append(f"batch sizes {dropped} exceed max_num_seqs {S}; captured {S}")
    return Ladder(tuple(sorted(set(sizes))), tuple(warnings))


def _trtllm(config: EngineConfig) -> Ladder:
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    user = config.cudagraph_capture_sizes
    given = config.max_cudagraph_capture_size
    if user is not None:
        if given is not None and given != user[-1]:
            raise ConfigError(
                f"max_cudagraph_capture_size: {given} must equal max(batch_sizes) {user[-1]} "
                f"(TensorRT-LLM rejects this too)")
        sizes = list(user)
    else:
        sizes = trtllm_sizes(given or TRTLLM_DEFAULT_MAX_BS, padding=config.cuda_graph_padding)
    kept = trtllm_filter(sizes, S, T, q, padding=config.cuda_graph_padding)
    if not kept:
        raise ConfigError(
            f"max_num_batched_tokens: {T} tokens cannot hold one decode request of q={q} "
            f"tokens within max_num_seqs {S}; no CUDA graph fits")
    warnings: tuple[str, ...] = ()
    if kept != sizes:
        warnings = (f"batch sizes above min(max_num_seqs, max_num_batched_tokens // q) = "
                    f"{min(S, T // q)} dropped",)
    return Ladder(tuple(kept), warnings)


def batch_ladder(config: EngineConfig) -> Ladder:
    """The batch sizes (requests) SGLang or TensorRT-LLM captures for this config."""
    if config.engine is Engine.VLLM:  # pragma: no cover - config_ladder routes vLLM elsewhere
        raise ConfigError("engine: vllm ladders are token ladders (graphfit.planner.ladder)")
    if config.ladder is LadderPolicy.EXPLICIT:
        if config.cudagraph_capture_sizes is None:  # pragma: no cover - EngineConfig rejects
            raise ConfigError("cudagraph_capture_sizes: the explicit ladder needs a list")
        return _explicit(config, config.cudagraph_capture_sizes)
    if config.engine is Engine.SGLANG:
        return _sglang(config)
    return _trtllm(config)
