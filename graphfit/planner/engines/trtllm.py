"""The TensorRT-LLM (PyTorch backend) engine model (docs/engines/trtllm.md).

Rules from NVIDIA/TensorRT-LLM main (tests/oracle/trtllm_reference.py pins the commits read;
`path@commit:lines`): CudaGraphConfig's defaults in
tensorrt_llm/llmapi/llm_args.py@0004396720:191-257 (`validate_base_cuda_graph_config`,
`_generate_cuda_graph_batch_sizes`) and the speculative configs of the same file; the batch-size
filter in tensorrt_llm/_torch/pyexecutor/engine/cuda_graph.py@c0edad93fd:23-52; the graph
runner in tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:138-884.

A generation request carries tokens_per_gen_step = 1 + max_total_draft_tokens tokens (a draft
tree of eagle_choices or a dynamic tree verifies more tokens than its depth); a batch of bs
requests is padded with dummy requests to the next captured batch size. The engine's input
buffers are persistent [max_num_tokens] / [max_batch_size] tensors shared with eager (context
and oversize) batches, which is why a graph batch whose padded tokens exceed max_num_tokens
goes short (#5076); the graph runner keeps its own static input_ids / position_ids for the
graphs alone. TensorRT-LLM fills padded rows from its dummy requests, so any fill is safe here.

Beyond one beam and linear drafts (tests/oracle/trtllm_reference.py `CITES`): beam search
(max_beam_width W: a request carries W x q tokens, the static rows are
min(max_graph_bs x W x q, max_num_tokens) while the batch-size filter divides max_num_tokens by
q alone, so the largest graphs can be captured short, which the proof reports; the
cache_indirection buffer), mrope models (`multimodal`: (3, 1, T) position ids), the decoding
types PARD (2 x max_draft_len tokens a request), DFlash and SA (1 + max_draft_len), the
decoder's speculative buffers (gather_ids_cuda and the rest), a dynamic-tree Eagle3 or MTP
worker's batch-indexed buffers and attention-DP padding (`adp_dispatch`).

Prefill graphs (`prefill_cuda_graph_backend` piecewise or breakable) are a second component,
`prefill`, keyed on tokens (graphfit.planner.engines.trtllm_prefill).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec
from graphfit.planner.core.enums import CUDAGraphMode, Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import (
    ComponentModel,
    EngineLadders,
    KeyedComponentModel,
    share_buffers,
)
from graphfit.planner.engines.batch import (
    BatchRunner,
    batch_components,
    explicit_batch_ladder,
    graph_input,
    resolve_common,
)
from graphfit.planner.engines.trtllm_cp import (
    check_context_parallel,
    no_capture_warning,
    skips_capture,
)
from graphfit.planner.engines.trtllm_encdec import encdec_component, encdec_graphs_of
from graphfit.planner.engines.trtllm_encoder import encoder_component
from graphfit.planner.engines.trtllm_features import (
    FeatureSpec,
    feature_component,
    feature_graphs_of,
)
from graphfit.planner.engines.trtllm_ladders import (
    TRTLLM_DEFAULT_MAX_BS,
    prefill_padding,
    trtllm_filter,
    trtllm_sizes,
)
from graphfit.planner.engines.trtllm_mm_encoder import MmEncoderGraphs, mm_component
from graphfit.planner.engines.trtllm_moe import check_moe_mapping, derived_sizes
from graphfit.planner.engines.trtllm_moe_a2a import one_sided as a2a_one_sided
from graphfit.planner.engines.trtllm_moe_a2a import shown as a2a_shown
from graphfit.planner.engines.trtllm_options import TrtllmOptions
from graphfit.planner.engines.trtllm_prefill import (
    COMPONENT,
    check_prefill,
    prefill_component,
    prefill_counts,
    prefill_warnings,
)

RELEASE = "main@c0edad93"  # no wheel release: main at the commit the reference pins
VERSION = f"TensorRT-LLM {RELEASE} (PyTorch backend)"
DEFAULT_MAX_BATCH_SIZE = 2048  # BaseLlmArgs.max_batch_size
DEFAULT_MAX_NUM_TOKENS = 8192  # BaseLlmArgs.max_num_tokens (EngineConfig's default too)
TREE_METHODS = frozenset({SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP})
# DFlash and SA (the standalone suffix automaton, graphfit's `suffix`) are TensorRT-LLM's too
OWN_METHODS = frozenset({SpecMethod.DFLASH, SpecMethod.SUFFIX})
CHAIN_METHODS = frozenset({SpecMethod.NGRAM, SpecMethod.DRAFT_MODEL}) | OWN_METHODS
DECODING_TYPES = {SpecMethod.EAGLE: "Eagle3", SpecMethod.EAGLE3: "Eagle3",
                  SpecMethod.MTP: "MTP", SpecMethod.NGRAM: "NGram",
                  SpecMethod.DRAFT_MODEL: "Draft_Target", SpecMethod.DFLASH: "DFlash",
                  SpecMethod.SUFFIX: "SA"}


def merge_schedule(sizes: list[int], thresholds: tuple[int, ...]) -> list[int]:
    """`DecodeCudaGraphConfig._merge_schedule_keys`: draft_len_schedule thresholds up to the
    largest batch size join the batch sizes."""
    return sorted(set(sizes) | {t for t in thresholds if t <= sizes[-1]})


def decoding_type(config: EngineSettings) -> str:
    """TensorRT-LLM's decoding_type for the config's method (PARD: a parallel-draft
    draft model)."""
    if config.parallel_draft:
        return "PARD"
    return DECODING_TYPES[config.spec_method]


def adp_dispatch(sizes: tuple[int, ...], batches: tuple[int, ...], *, padding: bool,
                 max_batch_size: int) -> tuple[int | None, ...]:
    """The graph batch every attention-DP rank replays for generation batches `batches` (one
    per rank, each >= 1), None = eager (`CUDAGraphRunner._get_padded_batch`,
    tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:828-884, and
    `maybe_get_cuda_graph`, tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:513-625).

    The ranks agree on one batch size: with padding each rank pads towards the LARGEST rank's
    batch, rounded up to a captured size (not above max_batch_size, nor when the largest
    batch exceeds the largest graph); then a graph replays only when every rank holds the
    same captured size, otherwise every rank runs eagerly. Every padded size is a captured
    size, so one rank's buffers hold it whenever they hold the largest graph.
    """
    if not batches or min(batches) < 1:
        raise ConfigError("adp_dispatch: one batch of >= 1 requests per rank")
    largest = max(batches)
    after = []
    for bs in batches:
        new = bs
        if padding and sizes and largest <= sizes[-1]:
            i = next(i for i, s in enumerate(sizes) if s >= largest)
            if sizes[i] != bs and sizes[i] <= max_batch_size:
                new = sizes[i]
        after.append(new)
    if len(set(after)) != 1 or after[0] not in sizes:
        return tuple(None for _ in batches)
    return tuple(after)


def attention_dp_ranks(config: EngineSettings) -> int:
    """The ranks one decode step's graph padding agrees over: tensor_parallel_size with
    enable_attention_dp at TP > 1, else 1 (`_get_padded_batch` all-gathers the ranks'
    (can_run_cuda_graph, batch_size) only then,
    tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:835-846)."""
    if config.enable_attention_dp and config.tensor_parallel_size > 1:
        return config.tensor_parallel_size
    return 1


def _check_ranks(config: EngineSettings, given: int, what: str) -> int:
    """The config's attention-DP rank count, after checking `given` per-rank values match
    it (one error line naming the two)."""
    ranks = attention_dp_ranks(config)
    if given != ranks:
        raise ConfigError(f"attention DP: {given} rank {what} given, the config has "
                          f"{ranks} rank(s) (tensor_parallel_size "
                          f"{config.tensor_parallel_size}, enable_attention_dp "
                          f"{str(config.enable_attention_dp).lower()})")
    return ranks


def with_idle_dummies(batches: tuple[int, ...]) -> tuple[int, ...]:
    """The generation batches the ranks all-gather when some hold no request: the executor
    gives an idle rank one dummy generation request whenever another rank holds one, so its
    batch is 1. With enable_attention_dp, `PyExecutor._pad_attention_dp_dummy_request`
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:1490-1520, called before
    every step's scheduling) adds one dummy request, with the step's draft tokens, to a rank
    holding no active request while the expected count is above 0; that count is the most
    any rank holds or the ranks' average rounded up (`_fetch_new_requests`,
    tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:1241-1246), so above 0 exactly
    when some rank holds a request. ConfigError when none does: then no step runs."""
    if any(b < 0 for b in batches):
        raise ConfigError("attention DP: a rank's batch is a request count >= 0")
    if batches and max(batches) < 1:
        raise ConfigError("attention DP: no rank holds a request, so no step runs (an idle "
                          "rank gets a dummy request only while another rank is busy)")
    return tuple(max(b, 1) for b in batches)


def with_idle_dummies_disaggregated(ready: tuple[int, ...], waiting: tuple[int, ...]
                                    ) -> tuple[int, ...]:
    """`with_idle_dummies` on a disaggregated server (context-only or generation-only), where
    a rank's generation requests whose KV cache is still arriving from the context server
    (`waiting`: in generation init or in transmission) are held but not active: the
    executor counts a rank's active requests without them
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:1499-1506) but all-gathers
    len(active_requests), waiting ones included, for the expected count
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:1186-1191), so a rank with no
    ready request gets one dummy whenever any rank holds a request, ready or waiting
    (1508-1520). That dummy is a generation request: `is_gen=not has_context_request`, and
    has_context_request is set only when the rank took a context-only request this step
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:1289-1295), which the rank
    then counts active, so it adds no dummy. `ready`: each rank's ready generation batch
    (its decode step's requests, new context-only requests excluded); ConfigError when no
    rank holds any request."""
    if len(waiting) != len(ready):
        raise ConfigError(f"attention DP: {len(waiting)} ranks' waiting counts for "
                          f"{len(ready)} batches")
    if any(b < 0 for b in (*ready, *waiting)):
        raise ConfigError("attention DP: a rank's batch is a request count >= 0")
    if ready and max(r + w for r, w in zip(ready, waiting, strict=True)) < 1:
        raise ConfigError("attention DP: no rank holds a request, so no step runs (an idle "
                          "rank gets a dummy request only while another rank holds one)")
    return tuple(max(b, 1) for b in ready)


def plan_adp_dispatch(config: EngineSettings, sizes: tuple[int, ...],
                      batches: tuple[int, ...], waiting: tuple[int, ...] | None = None
                      ) -> tuple[int | None, ...]:
    """`adp_dispatch` for a resolved config: one generation batch per attention-DP rank
    (exactly `attention_dp_ranks(config)` of them; 0 for an idle rank, which joins with the
    executor's dummy request, `with_idle_dummies`), the config's padding and max_batch_size
    (each rank's own limit: the plan is one rank's). `waiting`: on a disaggregated server,
    each rank's requests still receiving their KV cache (held, not active:
    `with_idle_dummies_disaggregated`); None outside disaggregated serving."""
    _check_ranks(config, len(batches), "batch(es)")
    if waiting is not None and attention_dp_ranks(config) > 1:
        ranks = with_idle_dummies_disaggregated(batches, waiting)
    elif waiting is not None:
        _check_ranks(config, len(waiting), "waiting count(s)")
        ranks = batches
    else:
        ranks = with_idle_dummies(batches) if attention_dp_ranks(config) > 1 else batches
    return adp_dispatch(sizes, ranks, padding=bool(config.cuda_graph_padding),
                        max_batch_size=config.max_num_seqs or DEFAULT_MAX_BATCH_SIZE)


def plan_prefill_padding(config: EngineSettings, sizes: tuple[int, ...], total_tokens: int,
                         context_requests: int, all_rank_tokens: tuple[int, ...] | None = None,
                         all_rank_context_requests: tuple[int, ...] | None = None
                         ) -> tuple[int, bool, tuple[int, ...] | None]:
    """`trtllm_ladders.prefill_padding` for a resolved config, with the ranks' lists checked
    against it: TensorRT-LLM all-gathers every rank's token count and context-request count
    over the tensor-parallel group only with enable_attention_dp (`get_all_rank_num_tokens`
    / `get_all_rank_ctx_requests`,
    tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:22-53; None
    otherwise), so with attention DP each list holds `attention_dp_ranks(config)` counts and
    this rank's own among them, and without it no list is given. One error line otherwise."""
    if not config.enable_attention_dp:
        if all_rank_tokens is not None or all_rank_context_requests is not None:
            raise ConfigError("prefill padding: ranks' counts given but enable_attention_dp "
                              "is off (TensorRT-LLM gathers none)")
        return prefill_padding(sizes, total_tokens, context_requests)
    if all_rank_tokens is None:
        raise ConfigError("prefill padding: enable_attention_dp gathers every rank's token "
                          "count; give one per rank")
    _check_ranks(config, len(all_rank_tokens), "token count(s)")
    if all_rank_context_requests is not None:
        _check_ranks(config, len(all_rank_context_requests), "context count(s)")
        if context_requests not in all_rank_context_requests:
            raise ConfigError(f"prefill padding: this rank's {context_requests} context "
                              f"request(s) are none of the ranks' {all_rank_context_requests}")
    if total_tokens not in all_rank_tokens:
        raise ConfigError(f"prefill padding: this rank's {total_tokens} tokens are none of the "
                          f"ranks' counts {all_rank_tokens}")
    return prefill_padding(sizes, total_tokens, context_requests, all_rank_tokens,
                           all_rank_context_requests)


def draft_loop_tokens(config: EngineSettings) -> int:
    """draft_tokens_cuda entries per request (`PyTorchModelEngine.__init__`,
    tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:413-423 sets max_draft_loop_tokens and
    lines 673-676 size it `max_draft_loop_tokens * max_batch_size`,
    tensorrt_llm/_torch/pyexecutor/engine/runners/decoder/runner.py@0ea8c1debd:376-380):
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
    per_request = q * config.max_beam_width
    if T < S:
        warnings.append(f"max_batch_size {S} is above max_num_tokens {T} (TensorRT-LLM warns "
                        f"too; at most {T // per_request} generation requests fit)")
    declared = Ladder(tuple(sizes), tuple(warnings))
    if config.cudagraph_mode is CUDAGraphMode.NONE or config.cuda_graph_mode == "encode":
        # encode: the sizes are the encoder's (the keyed `encoder` component), no decode graph
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


def dynamic_tree_buffers(config: EngineSettings) -> list[BufferSpec]:
    """The dynamic-tree worker's pre-allocated buffers, indexed by batch_idx in
    [0, max_batch_size) with no bounds check, hence sized with the GLOBAL max_batch_size
    (`Eagle3DecodingConfig._max_batch_size`, tensorrt_llm/llmapi/llm_args.py@0004396720:2527-2536,
    `MTPDecodingConfig._max_batch_size`, tensorrt_llm/llmapi/llm_args.py@0004396720:2804-2805):
    Eagle3's `Eagle3OneModelDynamicTreeWorker.__init__`
    (tensorrt_llm/_torch/speculative/eagle3_dynamic_tree.py@470bb72055:146-280, 22 buffers)
    and MTP's `MTPEagleDynamicTreeWorker.__init__`
    (tensorrt_llm/_torch/speculative/mtp_dynamic_tree.py@40043dacba:49-167, 18 of
    them, several int32 where Eagle3's are int64). K = dynamic_tree_max_topK, d =
    max_draft_len, L = K x d (the draft loop), q = tokens_per_gen_step. The lazily allocated
    hidden-state buffers and DynamicTreeOpsConverter's own are left out."""
    S, q, d = config.max_num_seqs, config.uniform_query_len, config.num_speculative_tokens
    K = config.speculative_eagle_topk or 1
    L, H, P = K * d, K + K * K * (d - 1), d + 1
    buf_dim = max(q, L)
    mtp = config.spec_method is SpecMethod.MTP
    i = "int32" if mtp else "int64"  # the token buffers' dtype
    why = "the dynamic-tree worker's per-request buffers (global max_batch_size rows)"
    shapes: list[tuple[str, str, tuple[int, ...]]] = [
        ("tree_draft_tokens", i, (L,)), ("tree_position_ids", i, (L,)),
        ("tree_history_draft_tokens", i, (H,)), ("tree_history_score", "float32", (H,)),
        ("tree_history_draft_tokens_parent", "int64", (max(K * (d - 1) + 1, K + 1),)),
        ("tree_mask", "int32", (L * L,)), ("tree_mask_init", "int32", (K, K)),
        ("tree_accepted_draft_indices", "int32", (d,)),
        ("tree_hs_read_map", "int64", (L,)), ("tree_accepted_tokens", "int32", (P,)),
        ("tree_num_accepted_tokens", "int32", ()), ("tree_target_tokens", "int64", (q,)),
        ("tree_candidates", i, (q,)), ("tree_target_predict", i, (q,)),
        ("tree_step0_input_ids", i, (q,)), ("tree_step0_position_ids", i, (q,)),
        ("tree_gather_ids", "int64", (q,)),
        ("tree_mask_repack", "int32", (buf_dim * ((buf_dim + 31) // 32),)),
    ]
    if not mtp:
        shapes += [("tree_accept_token", "int64", (P,)), ("tree_current_mask", "int32", (L, L)),
                   ("tree_new_pos_offset", "int32", (L,)), ("tree_arange_max_batch", "int64", ())]
    return [graph_input("target", name, dtype, Axis.REQUESTS, S, ZERO, trailing=trailing,
                        why=why) for name, dtype, trailing in shapes]


def decoder_buffers(config: EngineSettings) -> list[BufferSpec]:
    """`_allocate_decoder_buffers`
    (tensorrt_llm/_torch/pyexecutor/engine/runners/decoder/runner.py@0ea8c1debd:370-422): the
    persistent inputs graph replays and eager steps share."""
    S, T, W = config.max_num_seqs, config.max_num_batched_tokens, config.max_beam_width
    specs: list[BufferSpec] = [
        graph_input("target", "input_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "position_ids", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "previous_batch_indices", "int32", Axis.TOKENS, T, ZERO),
        graph_input("target", "seq_slots", "int32", Axis.REQUESTS, S, ZERO),
        graph_input("target", "num_cached_tokens", "int32", Axis.REQUESTS, S, ZERO),
    ]
    if config.spec_method is not SpecMethod.NONE:
        loop = draft_loop_tokens(config)  # draft_tokens_cuda is flat: loop entries a request
        specs += [
            graph_input("target", "draft_tokens", "int32", Axis.REQUESTS, S * loop, ZERO,
                        scale=loop),
            graph_input("target", "gather_ids", "int32", Axis.TOKENS, T, ZERO),
            graph_input("target", "previous_pos_indices", "int32", Axis.TOKENS, T, ZERO),
            graph_input("target", "previous_pos_id_offsets", "int32", Axis.TOKENS, T, ZERO),
            graph_input("target", "num_accepted_draft_tokens", "int32", Axis.REQUESTS, S,
                        ZERO),
            graph_input("target", "previous_kv_lens_offsets", "int32", Axis.REQUESTS, S, ZERO),
        ]
        if config.spec_method in TREE_METHODS and config.speculative_eagle_topk is not None:
            specs += dynamic_tree_buffers(config)
    if W > 1:
        specs.append(graph_input(
            "target", "cache_indirection", "int32", Axis.REQUESTS, S, ZERO,
            trailing=(W, config.max_model_len),
            why="cache_indirection_attention (max_batch_size, max_beam_width, max_seq_len)"))
    if config.multimodal:
        specs.append(graph_input("target", "mrope_position_ids", "int32", Axis.TOKENS, T,
                                 ZERO, leading=(3, 1), why="mrope_position_ids_cuda"))
    return specs


def trtllm_runners(config: EngineSettings, ladder: Ladder, static: Ladder | None = None
                   ) -> list[BatchRunner]:
    """One runner (the target; one-model drafters run inside its graph). A request carries
    q x max_beam_width tokens (`_get_num_tokens_for_key`). `static`: the sizes the graph
    runner's static tensors are allocated for, when they differ from those captured (a
    context-parallel rank that captures none still allocates them,
    graphfit.planner.engines.trtllm_cp)."""
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    width = q * config.max_beam_width
    specs = decoder_buffers(config)
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    static = ladder if static is None else static
    if graphs and static.sizes:
        rows = min(static.max_size * width, T)  # `_create_shared_static_tensors`
        why = "CUDAGraphRunner's static inputs, shared by every graph"
        mrope = (3, 1) if config.multimodal else ()
        specs += [graph_input("target", "graph_input_ids", "int32", Axis.TOKENS, rows, ZERO,
                              graph_only=True, why=why),
                  graph_input("target", "graph_position_ids", "int32", Axis.TOKENS, rows, ZERO,
                              leading=mrope, graph_only=True, why=why)]
        if config.multimodal:
            # indexed by sequence (batch x beams), allocated with the token rows: the token
            # demand bounds it from above
            specs.append(graph_input("target", "graph_mrope_delta_read_seq_slots", "int64",
                                     Axis.TOKENS, rows, ZERO, graph_only=True, why=why))
    return [BatchRunner("target", width, min(S, T // width), tuple(specs),
                        ladder.sizes if graphs else (), eager_tokens=T, request_limit=S)]


def _resolve_speculation(config: EngineSettings) -> None:
    """Tokens per request (1 + max_total_draft_tokens) against the draft config's rules."""
    method, d = config.spec_method, config.num_speculative_tokens
    q, topk = config.speculative_num_draft_tokens, config.speculative_eagle_topk
    if config.parallel_draft:
        if method is not SpecMethod.DRAFT_MODEL:
            raise ConfigError("parallel_draft: PARD drafts with a draft model (spec_method "
                              "draft_model)")
        if d < 1:
            raise ConfigError("num_speculative_tokens: PARD needs max_draft_len > 0")
        if topk is not None:
            raise ConfigError("speculative_eagle_topk: PARD drafts a chain")
        if q is not None and q != 2 * d:
            raise ConfigError(f"speculative_num_draft_tokens: PARD verifies 2 x max_draft_len "
                              f"= {2 * d} tokens per request, got {q}")
        return
    if config.max_beam_width > 1 and method is not SpecMethod.NONE:
        raise ConfigError("max_beam_width: beam search with speculative decoding is not "
                          "modelled for TensorRT-LLM")
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
        resolve_common(config, self.engine, OWN_METHODS)
        check_encode(config)
        if config.multimodal and config.mrope_dims != 3:
            raise ConfigError(f"mrope_dims: TensorRT-LLM's mrope position ids are (3, 1, T), "
                              f"got {config.mrope_dims}")
        _resolve_speculation(config)
        check_prefill(config)
        check_moe_mapping(config)
        check_context_parallel(config)
        if config.parallel_draft and config.speculative_num_draft_tokens is None:
            changes["speculative_num_draft_tokens"] = 2 * config.num_speculative_tokens
        if config.speculative_eagle_topk is not None and (
                config.speculative_num_draft_tokens is None):
            # a dynamic tree without max_total_draft_tokens verifies topK * max_draft_len
            changes["speculative_num_draft_tokens"] = (
                1 + config.speculative_eagle_topk * config.num_speculative_tokens)
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        if config.ladder is LadderPolicy.EXPLICIT:
            declared = explicit_batch_ladder(config)
            graphs = (config.cudagraph_mode is not CUDAGraphMode.NONE
                      and config.cuda_graph_mode != "encode")
            captured = declared if graphs else Ladder(())
        else:
            declared, captured = trtllm_ladder(config)
        extra = prefill_warnings(config)
        if extra:
            declared = Ladder(declared.sizes, declared.warnings + extra)
            captured = Ladder(captured.sizes, captured.warnings + extra)
        if skips_capture(config) and captured.sizes:
            captured = Ladder((), (*captured.warnings, no_capture_warning(config)))
        return EngineLadders(declared, captured, inputs=_inputs(config))

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        static = trtllm_ladder(config)[1] if skips_capture(config) else ladders.runtime
        decode = batch_components(config, trtllm_runners(config, ladders.runtime, static))
        prefill = prefill_component(config)
        if prefill is None:
            return decode
        # the prefill graphs read the decoder's own persistent token buffers: one tensor each
        return share_buffers((*decode, prefill), "target", COMPONENT)

    def keyed_components(self, config: EngineSettings, ladders: EngineLadders
                         ) -> tuple[KeyedComponentModel, ...]:
        """The encoder runner's graphs (`encoder`: encoder-only with `cuda_graph_config.mode:
        encode`, over the batch sizes the graph config resolved; an encoder-decoder model's
        `encoder_cuda_graph_config` in token or feature mode) and the multimodal encoders'
        (`mm_encoder.<modality>`, for the modalities whose inputs graphfit knows)."""
        return (*self._encoders(config, ladders), *mm_components(config))

    @staticmethod
    def _encoders(config: EngineSettings, ladders: EngineLadders
                  ) -> tuple[KeyedComponentModel, ...]:
        if config.encoder_graph_batch_sizes is not None:
            spec = config.encoder_feature_spec
            if spec is not None:  # the model class's encoder_graph_spec: feature mode
                return (feature_component(config, FeatureSpec.of(spec)),)
            return (encdec_component(config),)
        if config.cuda_graph_mode != "encode":
            return ()
        return (encoder_component(config, ladders.config.sizes),)


def check_encode(config: EngineSettings) -> None:
    """`cuda_graph_config.mode: encode` is the encoder-only runner's: its buckets need that
    mode, and graphfit plans no decoder beside it (no drafts, no beams, no prefill graphs:
    `encode_only` refuses prefill graphs, tensorrt_llm/llmapi/llm_args.py@0004396720:6253-6259)."""
    check_encdec(config)
    if config.cuda_graph_mode != "encode":
        for name in ("encode_num_tokens", "encode_seq_lens"):
            if getattr(config, name) is not None:
                raise ConfigError(f"{name}: encoder CUDA-graph buckets need cuda_graph_mode "
                                  f"encode")
        return
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        raise ConfigError("cuda_graph_mode: encode with graphs off (cuda_graph_config null)")
    for name, on in (("spec_method", config.spec_method is not SpecMethod.NONE),
                     ("max_beam_width", config.max_beam_width > 1),
                     ("prefill_cuda_graph_backend",
                      config.prefill_cuda_graph_backend != "disabled"),
                     ("draft_len_schedule", config.draft_len_schedule is not None)):
        if on:
            raise ConfigError(f"{name}: not with cuda_graph_config mode encode (graphfit "
                              f"plans it for an encoder-only model)")


def mm_components(config: EngineSettings) -> tuple[KeyedComponentModel, ...]:
    """The multimodal encoders' graphs of each modality whose inputs graphfit knows
    (`mm_encoder_inputs`), as keyed `mm_encoder.<modality>` components
    (graphfit.planner.engines.trtllm_mm_encoder); the other modalities stay reported."""
    graphs, inputs = config.mm_encoder_graphs, dict(config.mm_encoder_inputs or ())
    return tuple(mm_component(modality, MmEncoderGraphs(buckets, padding), inputs[modality])
                 for modality, buckets, padding in graphs or () if modality in inputs)


def check_encdec(config: EngineSettings) -> None:
    """`encoder_cuda_graph_config` is an encoder-decoder model's: its fields need it, it needs
    `encoder_max_batch_size` and is refused with `encode_only`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:5730-5747), and
    graphfit refuses it beside `cuda_graph_config` mode encode (which plans the model as
    encoder-only)."""
    if config.encoder_graph_batch_sizes is None:
        for name in ("encoder_graph_num_tokens", "encoder_graph_seq_lens"):
            if getattr(config, name) is not None:
                raise ConfigError(f"{name}: encoder-decoder encoder buckets need "
                                  f"encoder_cuda_graph_config (encoder_graph_batch_sizes)")
        if config.encoder_graph_padding:
            raise ConfigError("encoder_graph_padding: needs encoder_cuda_graph_config "
                              "(encoder_graph_batch_sizes)")
        return
    if config.encode_only:
        raise ConfigError("encoder_cuda_graph_config: not with encode_only (TensorRT-LLM "
                          "refuses it too: use cuda_graph_config mode encode)")
    if config.cuda_graph_mode == "encode":
        raise ConfigError("encoder_cuda_graph_config: not with cuda_graph_config mode encode "
                          "(that plans an encoder-only model; encoder_cuda_graph_config is "
                          "an encoder-decoder model's)")
    spec = config.encoder_feature_spec
    if spec is not None:  # feature mode: no token buckets needed (nor read)
        feature_graphs_of(config, FeatureSpec.of(spec))
        return
    encdec_graphs_of(config)  # refuses a missing encoder_max_batch_size or bucket list


def _inputs(config: EngineSettings) -> tuple[tuple[str, str], ...]:
    out = [("max_batch_size", str(config.max_num_seqs)),
           ("max_num_tokens", str(config.max_num_batched_tokens))]
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        out.append(("cuda_graph_config", "null"))
    elif config.cuda_graph_mode == "encode":
        out.append(("cuda_graph_config", f"mode encode, enable_padding "
                                         f"{str(config.cuda_graph_padding).lower()}"))
    else:
        out.append(("enable_padding", str(config.cuda_graph_padding).lower()))
    if config.max_beam_width > 1:
        out.append(("max_beam_width", str(config.max_beam_width)))
    if config.tensor_parallel_size > 1:
        out.append(("tensor_parallel_size", str(config.tensor_parallel_size)))
    if config.enable_attention_dp:
        out.append(("attention_dp_ranks", str(attention_dp_ranks(config))))
    if config.context_parallel_size > 1:
        out.append(("context_parallel_size", f"{config.context_parallel_size}, cp_type "
                                             f"{config.cp_type or 'absent'}: no graph "
                                             f"captured"))
    if config.multimodal:
        out.append(("mrope", "position ids (3, 1, T)"))
    sizes = derived_sizes(config)
    if a2a_one_sided(config, sizes):  # the one-sided all-to-all workspace (s51t, s54t)
        out.append(("moe_a2a_workspace", a2a_shown(
            sizes.ep, config.max_num_batched_tokens, config.moe_a2a_token,
            config.moe_a2a_workspace_mb, config.moe_a2a_force_method,
            config.moe_configurable, config.trtllm_moe_backend, config.moe_load_balancer,
            config.moe_comm_force_method, config.moe_eplb_experts,
            config.moe_auto_checkpoint, config.sm_version,
            (config.moe_disable_alltoallv, config.moe_can_use_deep_ep),
            config.moe_a2a_dtype)))
    if config.prefill_cuda_graph_backend != "disabled":
        kept, _ = prefill_counts(config)
        shown = (f"{len(kept)} token counts {kept[0]}..{kept[-1]}" if kept
                 else "no token count kept")
        out.append(("prefill_cuda_graph_backend",
                    f"{config.prefill_cuda_graph_backend}: {shown}"))
    if config.spec_method is not SpecMethod.NONE:
        q = config.uniform_query_len
        kind = decoding_type(config)
        total = config.num_speculative_tokens if config.parallel_draft else q - 1
        out.append(("speculative_config", f"{kind} max_draft_len "
                                          f"{config.num_speculative_tokens}, "
                                          f"max_total_draft_tokens {total}, "
                                          f"{q} tokens a request"))
    return tuple(out)


TRTLLM = TrtllmModel()
