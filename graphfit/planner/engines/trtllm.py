"""The TensorRT-LLM (PyTorch backend) engine model (domain.md §7).

A generation batch of bs requests carries bs * (1 + max_draft_len) tokens and is padded with
dummy requests to the next captured batch size. The input buffers are the engine's persistent
[max_num_tokens] / [max_batch_size] tensors, shared with eager (context and oversize) batches,
which is why a graph batch whose padded tokens exceed max_num_tokens goes short (#5076).
TensorRT-LLM fills padded rows from its dummy requests, so any fill is taken as safe here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from graphfit.planner.core.buffers import ZERO, Axis
from graphfit.planner.core.enums import Engine, LadderPolicy, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder, check_size_count
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel, EngineLadders
from graphfit.planner.engines.batch import (
    BatchRunner,
    batch_components,
    explicit_batch_ladder,
    graph_input,
    resolve_common,
)

TRTLLM_DEFAULT_MAX_BS = 128  # CudaGraphConfig.max_batch_size 0 means 128


def trtllm_sizes(max_bs: int, *, padding: bool) -> list[int]:
    """`CudaGraphConfig`'s generated batch sizes for a max batch size."""
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


def trtllm_ladder(config: EngineSettings) -> Ladder:
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


def trtllm_runners(config: EngineSettings) -> list[BatchRunner]:
    """One runner (the target; one-model drafters run inside its graph)."""
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    k = config.num_speculative_tokens
    specs = [
        graph_input("target", "input_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "position_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "seq_slots", "int32", Axis.REQUESTS, S, ZERO),
        graph_input("target", "num_cached_tokens", "int32", Axis.REQUESTS, S, ZERO),
    ]
    if k:
        specs.append(graph_input("target", "draft_tokens", "int32", Axis.REQUESTS, S, ZERO,
                                 trailing=(k,)))
    return [BatchRunner("target", q, min(S, T // q), tuple(specs), eager_tokens=T)]


class TrtllmModel:
    """TensorRT-LLM's generation graphs, captured per batch size."""

    engine = Engine.TRTLLM
    version = "TensorRT-LLM (PyTorch backend)"
    unit = Unit.REQUESTS
    policies = (LadderPolicy.TRTLLM,)

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        changes: dict[str, object] = {}
        if config.ladder is LadderPolicy.AUTO:
            changes["ladder"] = LadderPolicy.TRTLLM
        if config.cuda_graph_padding is None:
            changes["cuda_graph_padding"] = False
        resolve_common(config, self.engine)
        if config.speculative_eagle_topk is not None:
            raise ConfigError("speculative_eagle_topk: SGLang-only (set engine sglang)")
        if config.speculative_num_draft_tokens is not None:
            raise ConfigError("speculative_num_draft_tokens: SGLang-only (set engine sglang)")
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        if config.ladder is LadderPolicy.EXPLICIT:
            ladder = explicit_batch_ladder(config)
        else:
            ladder = trtllm_ladder(config)
        return EngineLadders(ladder, ladder)

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        return batch_components(config, ladders.runtime, trtllm_runners(config))


TRTLLM = TrtllmModel()
