"""The TensorRT-LLM (PyTorch backend) engine model (docs/engines/trtllm.md).

Rules from NVIDIA/TensorRT-LLM main (tests/oracle/trtllm_reference.py pins the commits read):
llmapi/llm_args.py @0004396720 (defaults, CudaGraphConfig, speculative configs),
_torch/pyexecutor/engine/cuda_graph.py, model_engine.py and cuda_graph_runner.py @c0edad93fd.

A generation request carries tokens_per_gen_step = 1 + max_total_draft_tokens tokens (a draft
tree of eagle_choices or a dynamic tree verifies more tokens than its depth); a batch of bs
requests is padded with dummy requests to the next captured batch size. The engine's input
buffers are persistent [max_num_tokens] / [max_batch_size] tensors shared with eager (context
and oversize) batches, which is why a graph batch whose padded tokens exceed max_num_tokens
goes short (#5076); the graph runner keeps its own static input_ids / position_ids for the
graphs alone. TensorRT-LLM fills padded rows from its dummy requests, so any fill is safe here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec
from graphfit.planner.core.enums import CUDAGraphMode, Engine, LadderPolicy, SpecMethod, Unit
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
from graphfit.planner.engines.trtllm_options import TrtllmOptions

RELEASE = "main@c0edad93"  # no wheel release: main at the commit the reference pins
VERSION = f"TensorRT-LLM {RELEASE} (PyTorch backend)"
TRTLLM_DEFAULT_MAX_BS = 128  # CudaGraphConfig.max_batch_size 0 means 128
DEFAULT_MAX_BATCH_SIZE = 2048  # BaseLlmArgs.max_batch_size
DEFAULT_MAX_NUM_TOKENS = 8192  # BaseLlmArgs.max_num_tokens (EngineConfig's default too)
TREE_METHODS = frozenset({SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP})
CHAIN_METHODS = frozenset({SpecMethod.NGRAM, SpecMethod.DRAFT_MODEL})
DECODING_TYPES = {SpecMethod.EAGLE: "Eagle3", SpecMethod.EAGLE3: "Eagle3",
                  SpecMethod.MTP: "MTP", SpecMethod.NGRAM: "NGram",
                  SpecMethod.DRAFT_MODEL: "Draft_Target"}


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
    """`filter_cuda_graph_batch_sizes` (engine/cuda_graph.py): a pure generation batch of bs
    requests carries bs * tokens_per_request tokens.

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


def merge_schedule(sizes: list[int], thresholds: tuple[int, ...]) -> list[int]:
    """`DecodeCudaGraphConfig._merge_schedule_keys`: draft_len_schedule thresholds up to the
    largest batch size join the batch sizes."""
    return sorted(set(sizes) | {t for t in thresholds if t <= sizes[-1]})


def draft_loop_tokens(config: EngineSettings) -> int:
    """draft_tokens_cuda entries per request (model_engine.py `PyTorchModelEngine.__init__`):
    tokens_per_gen_step - 1, or topK * max_draft_len when a dynamic tree is wider."""
    loop = config.uniform_query_len - 1
    topk = config.speculative_eagle_topk
    if topk is not None:
        loop = max(loop, topk * config.num_speculative_tokens)
    return loop


def trtllm_ladder(config: EngineSettings) -> tuple[Ladder, Ladder]:
    """The configured batch sizes (CudaGraphConfig, schedule merged) and those the model
    engine keeps (none when graphs are off)."""
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
    if config.draft_len_schedule is not None:
        sizes = merge_schedule(sizes, config.draft_len_schedule)
    warnings: list[str] = []
    if T < S:
        warnings.append(f"max_batch_size {S} is above max_num_tokens {T} (TensorRT-LLM warns "
                        f"too; at most {T // q} generation requests fit)")
    declared = Ladder(tuple(sizes), tuple(warnings))
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        return declared, Ladder((), tuple(warnings))
    kept = trtllm_filter(sizes, S, T, q, padding=config.cuda_graph_padding)
    limit = min(S, T // q)
    if not kept:
        warnings.append(
            f"no CUDA graph fits: min(max_batch_size {S}, max_num_tokens {T} // {q} tokens per "
            f"request) = {limit}; every batch runs eagerly")
    elif kept != sizes:
        warnings.append(f"batch sizes above min(max_batch_size, max_num_tokens // {q}) = "
                        f"{limit} dropped")
    return declared, Ladder(tuple(kept), tuple(warnings))


def trtllm_runners(config: EngineSettings, ladder: Ladder) -> list[BatchRunner]:
    """One runner (the target; one-model drafters run inside its graph)."""
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    specs: list[BufferSpec] = [
        graph_input("target", "input_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "position_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "seq_slots", "int32", Axis.REQUESTS, S, ZERO),
        graph_input("target", "num_cached_tokens", "int32", Axis.REQUESTS, S, ZERO),
    ]
    if config.spec_method is not SpecMethod.NONE:
        loop = draft_loop_tokens(config)  # draft_tokens_cuda is flat: loop entries a request
        specs.append(graph_input("target", "draft_tokens", "int32", Axis.REQUESTS, S * loop,
                                 ZERO, scale=loop))
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    if graphs and ladder.sizes:
        rows = min(ladder.max_size * q, T)  # `_create_shared_static_tensors`
        why = "CUDAGraphRunner's static inputs, shared by every graph"
        specs += [graph_input("target", "graph_input_ids", "int32", Axis.TOKENS, rows, ZERO,
                              graph_only=True, why=why),
                  graph_input("target", "graph_position_ids", "int32", Axis.TOKENS, rows, ZERO,
                              graph_only=True, why=why)]
    return [BatchRunner("target", q, min(S, T // q), tuple(specs),
                        ladder.sizes if graphs else (), eager_tokens=T, request_limit=S)]


def _resolve_speculation(config: EngineSettings) -> None:
    """Tokens per request (1 + max_total_draft_tokens) against the draft config's rules."""
    method, d = config.spec_method, config.num_speculative_tokens
    q, topk = config.speculative_num_draft_tokens, config.speculative_eagle_topk
    if method is SpecMethod.NONE:
        if q is not None or topk is not None:
            name = "speculative_num_draft_tokens" if q is not None else "speculative_eagle_topk"
            raise ConfigError(f"{name}: needs a speculative_config (spec_method)")
        return
    if d < 1:
        raise ConfigError(f"num_speculative_tokens: {DECODING_TYPES[method]} needs "
                          f"max_draft_len > 0")
    if topk is not None:
        if method not in TREE_METHODS:
            raise ConfigError(f"speculative_eagle_topk: a dynamic tree is Eagle3's or MTP's, "
                              f"not {DECODING_TYPES[method]}'s")
        total = (q - 1) if q is not None else topk * d
        if not d <= total <= topk * d:
            raise ConfigError(
                f"speculative_num_draft_tokens: a dynamic tree verifies 1 + "
                f"max_total_draft_tokens tokens with max_total_draft_tokens in [{d}, "
                f"{topk * d}] (max_draft_len x dynamic_tree_max_topK), got {total}")
    elif q is not None and method in CHAIN_METHODS and q != d + 1:
        raise ConfigError(
            f"speculative_num_draft_tokens: {DECODING_TYPES[method]} verifies max_draft_len + 1"
            f" = {d + 1} tokens per request (max_total_draft_tokens = max_draft_len), got {q}")
    elif q is not None and q - 1 < d:
        raise ConfigError(f"speculative_num_draft_tokens: {q} tokens per request is below "
                          f"1 + max_draft_len = {d + 1}")


class TrtllmModel:
    """TensorRT-LLM's generation graphs, captured per batch size."""

    engine = Engine.TRTLLM
    release = RELEASE
    version = VERSION
    unit = Unit.REQUESTS
    policies = (LadderPolicy.TRTLLM,)
    options = TrtllmOptions
    requests_within_token_budget = False  # validate_runtime_args only warns

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        changes: dict[str, object] = {}
        if config.ladder is LadderPolicy.AUTO:
            changes["ladder"] = LadderPolicy.TRTLLM
        if config.max_num_seqs is None:
            changes["max_num_seqs"] = DEFAULT_MAX_BATCH_SIZE
        if config.draft_len_schedule is not None:
            if config.spec_method is SpecMethod.NONE:
                raise ConfigError("draft_len_schedule: needs a speculative_config")
            # validate_speculative_config: the thresholds join the batch sizes CudaGraphConfig
            # generated (with its own enable_padding), then padding is forced on
            if config.cudagraph_capture_sizes is None:
                generated = trtllm_sizes(config.max_cudagraph_capture_size
                                         or TRTLLM_DEFAULT_MAX_BS,
                                         padding=bool(config.cuda_graph_padding))
                changes["cudagraph_capture_sizes"] = tuple(
                    merge_schedule(generated, config.draft_len_schedule))
            changes["cuda_graph_padding"] = True
        elif config.cuda_graph_padding is None:
            changes["cuda_graph_padding"] = False
        resolve_common(config, self.engine)
        _resolve_speculation(config)
        if config.speculative_eagle_topk is not None and (
                config.speculative_num_draft_tokens is None):
            # a dynamic tree without max_total_draft_tokens verifies topK * max_draft_len
            changes["speculative_num_draft_tokens"] = (
                1 + config.speculative_eagle_topk * config.num_speculative_tokens)
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        if config.ladder is LadderPolicy.EXPLICIT:
            declared = explicit_batch_ladder(config)
            graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
            captured = declared if graphs else Ladder(())
        else:
            declared, captured = trtllm_ladder(config)
        return EngineLadders(declared, captured, inputs=_inputs(config))

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        return batch_components(config, trtllm_runners(config, ladders.runtime))


def _inputs(config: EngineSettings) -> tuple[tuple[str, str], ...]:
    out = [("max_batch_size", str(config.max_num_seqs)),
           ("max_num_tokens", str(config.max_num_batched_tokens))]
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        out.append(("cuda_graph_config", "null"))
    else:
        out.append(("enable_padding", str(config.cuda_graph_padding).lower()))
    if config.spec_method is not SpecMethod.NONE:
        q = config.uniform_query_len
        out.append(("speculative_config", f"{DECODING_TYPES[config.spec_method]} max_draft_len "
                                          f"{config.num_speculative_tokens}, "
                                          f"max_total_draft_tokens {q - 1}"))
    return tuple(out)


TRTLLM = TrtllmModel()
