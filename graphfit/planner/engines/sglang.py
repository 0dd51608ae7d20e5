"""The SGLang 0.5.23 engine model: decode / target-verify and EAGLE draft runners.

The facts, summarised: docs/engines/sglang.md.

Server arguments resolve as SGLang's resolution pipeline does (arg_groups/): the decode
max_bs defaults from GPU memory and TP (memory_hook.py:89-188), speculative decoding fills
max_running_requests = 48 and the EAGLE / NGRAM parameters (speculative_hook.py:1072-1321),
and every graph runner filters the resolved decode batch sizes with
`get_batch_sizes_to_capture` (model_executor/runner/base_cuda_graph_runner.py:65-110):
the request pool is ceil-aligned to the batch-size alignment and appended when the list
reaches past it, sizes that are not aligned or exceed it are dropped, and an empty list is an
AssertionError.

Graph runners (eagle_worker_v2.py:476-600): the target runner replays decode (width 1) or
target verify (width = speculative_num_draft_tokens); with an EAGLE-family algorithm the draft
runner replays the multi-step draft (width = topk, only when speculative_num_steps > 1) and the
draft-extend runner the accepted tokens (width = num_draft_tokens). Padded rows must not keep
stale values: positions (SGLang #10892, #24401), req_pool_indices and out_cache_loc are zeroed
(row/slot 0 is reserved), seq_lens gets the attention backend's fill value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import partial

from graphfit.planner.core.buffers import (
    KEEP,
    ONLY_SENTINEL,
    ONLY_ZERO,
    ZERO,
    Axis,
    BufferSpec,
    FillKind,
    FillPolicy,
)
from graphfit.planner.core.enums import CUDAGraphMode, Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder, check_size_count, round_up
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_adaptive as adaptive
from graphfit.planner.engines import (
    sglang_budget_floor,
    sglang_dcp,
    sglang_deepep_class,
    sglang_deepep_v2,
    sglang_dispatch_budget,
    sglang_dp_replicas,
    sglang_draft_deepep,
    sglang_draft_quant,
    sglang_dsa_backends,
    sglang_dsa_dcp,
    sglang_dsv4_plan,
    sglang_dwdp,
    sglang_elastic_ep,
    sglang_ep_rules,
    sglang_eplb_checks,
    sglang_first_dispatch,
    sglang_flashinfer_a2a,
    sglang_flashinfer_megamoe,
    sglang_gelu_target,
    sglang_kimi_megamoe,
    sglang_layernorm_sp,
    sglang_lora_runner,
    sglang_mamba_strategy,
    sglang_megamoe,
    sglang_moe_a2a,
    sglang_pplx_capture,
    sglang_quantization,
    sglang_rocm_draft_pick,
    sglang_server_checks,
    sglang_unified_memory,
    sglang_waterfill,
    sglang_waterfill_megamoe,
)
from graphfit.planner.engines import sglang_qwen3_vl as qwen3_vl
from graphfit.planner.engines.base import ComponentModel, EngineLadders, KeyedComponentModel
from graphfit.planner.engines.batch import (
    BatchRunner,
    batch_components,
    explicit_batch_ladder,
    graph_input,
    resolve_common,
)
from graphfit.planner.engines.sglang_dflash import RUNNER as DFLASH_RUNNER
from graphfit.planner.engines.sglang_dflash import dflash, resolve_dflash, sampler_buffers
from graphfit.planner.engines.sglang_draft_shape import (
    draft_dtype,
    draft_extend_hidden,
    draft_vocab,
)
from graphfit.planner.engines.sglang_dspark import RUNNER as DSPARK_RUNNER
from graphfit.planner.engines.sglang_dspark import (
    dspark,
    dspark_keyed,
    dspark_runner,
    resolve_dspark,
)
from graphfit.planner.engines.sglang_dspark_early import private_inputs
from graphfit.planner.engines.sglang_eagle_tokens import draft_global_num_tokens
from graphfit.planner.engines.sglang_lilicorr_weights import (
    head_buffers as lilicorr_head_buffers,
)
from graphfit.planner.engines.sglang_mamba_buffers import (
    draft_extend_track_buffers,
    mamba_track_buffers,
)
from graphfit.planner.engines.sglang_mamba_memory import resolve_memory_slots
from graphfit.planner.engines.sglang_mamba_mtp_draft import draft_conv_line
from graphfit.planner.engines.sglang_memory import default_decode_max_bs
from graphfit.planner.engines.sglang_minimax_kv import (
    hook_writes_megamoe,
    served_nvfp4,
    sparse_kv_line,
)
from graphfit.planner.engines.sglang_mlp_gather import mlp_tp_gather, resolved_dense_tp
from graphfit.planner.engines.sglang_mtp_graphs import mtp_graph_count
from graphfit.planner.engines.sglang_options import SglangOptions
from graphfit.planner.engines.sglang_pool import (
    kv_request_pool,
    mamba_memory_shown,
    request_pool,
)
from graphfit.planner.engines.sglang_prefill import default_chunked_prefill_size
from graphfit.planner.engines.sglang_prefill_plan import prefill_component, prefill_graphs
from graphfit.planner.engines.sglang_reserve import (
    VLM_NOTE,
    default_fraction,
    reserve_line,
    reserve_unfit,
    unfit_warning,
    vlm_adjusted,
)
from graphfit.planner.engines.sglang_seq_len_fill import (
    draft_decode_fill,
    draft_extend_fill,
    target_fill,
)
from graphfit.planner.engines.sglang_shared import draft_logits_rows, share_like_sglang
from graphfit.planner.engines.sglang_spec_dp import (
    check_coordination,
    dflash_draft_graphs,
    draft_gather,
)
from graphfit.planner.engines.sglang_spec_dp import shown as spec_dp_shown
from graphfit.planner.engines.sglang_spec_runners import (
    FROZEN_RUNNER,
    auto_multi_layer,
    frozen_buffers,
    frozen_kv_mtp,
    mtp_buffers,
    multi_layer_eagle,
)
from graphfit.planner.engines.sglang_spec_runners import (
    RUNNER as MTP_RUNNER,
)
from graphfit.planner.engines.sglang_tbo import tbo_split_buffer
from graphfit.planner.engines.sglang_uno import TARGET as UNO_TARGET
from graphfit.planner.engines.sglang_uno import TREE_DRAFT as UNO_TREE_DRAFT
from graphfit.planner.engines.sglang_uno import planned_runners as uno_planned_runners
from graphfit.planner.engines.sglang_uno import resolve_config as resolve_uno_config
from graphfit.planner.engines.sglang_uno import target_graphs as uno_target_graphs
from graphfit.planner.engines.sglang_uno import uno

RELEASE = "0.5.23"
VERSION = f"SGLang {RELEASE}"
SEQ_LEN_FILL = FillPolicy(FillKind.SENTINEL, 1)  # FlashInfer / FA3 / Triton backends' fill
# DecodeCudaGraphRunners built on the target model runner (UNO's tree draft runs the target
# model with its LoRA draft adapter): the target's decode backend pads their seq_lens
ON_TARGET = frozenset({"target", UNO_TREE_DRAFT})
MROPE_SECTIONS = 3  # mrope_positions is [3, tokens] whatever the model (buffers.py:158)
SPEC_MAX_RUNNING_REQUESTS = 48  # speculative_hook.py:1087-1092 (EAGLE family), :1298 (NGRAM)
POOL_ESTIMATE_FLOOR = 2048  # kv_cache_configurator.py:3123-3124: 2048..4096 without S
NGRAM_DRAFT_TOKENS = 12  # speculative_hook.py:1315-1321
NGRAM_BFS_BREADTH = 10  # --speculative-ngram-max-bfs-breadth default (topk for NGRAM)
TREE_DEFAULT_ARCHS = frozenset({"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"})
EAGLE_TREE_DEFAULTS = (5, 4, 8)  # (steps, topk, draft tokens), speculative_hook.py:1439-1459
EAGLE_CHAIN_DEFAULTS = (3, 1, 4)  # STANDALONE and every other architecture
EAGLE_FAMILY = frozenset({SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP,
                          SpecMethod.DRAFT_MODEL})
ALGORITHM_NAMES = {SpecMethod.EAGLE: "EAGLE", SpecMethod.EAGLE3: "EAGLE3",
                   SpecMethod.MTP: "NEXTN", SpecMethod.DRAFT_MODEL: "STANDALONE",
                   SpecMethod.NGRAM: "NGRAM", SpecMethod.DFLASH: "DFLASH",
                   SpecMethod.DSPARK: "DSPARK", SpecMethod.UNO: "UNO"}
def sglang_sizes(max_bs: int, *, speculative: bool, padding: bool = True) -> list[int]:
    """`generate_decode_cuda_graph_batch_sizes` (cuda_graph_hook.py:493-530): every size
    without padding, else the decode or the finer speculative list; cut at max_bs, which is
    appended."""
    # refused before it is enumerated: at most one size per 16 requests above 256 with padding
    check_size_count(max_bs if not padding else max_bs // 16, "cuda_graph_max_bs_decode")
    runs: tuple[Iterable[int], ...]
    if not padding:
        runs = (range(1, max_bs + 1),)
    elif speculative:
        runs = (range(1, 9), range(10, 33, 2), range(40, 65, 4), range(72, 257, 8),
                range(272, max_bs + 1, 16))
    else:
        runs = ((1, 2, 4, 8, 12), range(16, 257, 8), range(272, 512, 16),
                range(512, max_bs + 1, 32))
    return sorted({s for run in runs for s in run if s <= max_bs} | {max_bs})


def speculative(config: EngineSettings) -> bool:
    return config.spec_method is not SpecMethod.NONE


def gathered_buffer(config: EngineSettings) -> bool:
    """`require_gathered_buffer()` (utils/common.py:4159-4160): attention DP gathers the MLP
    input (`mlp_tp_gather`); a MoE all-to-all backend the attention input (sglang_moe_a2a)."""
    return mlp_tp_gather(config) or sglang_moe_a2a.attn_tp_gather(config)


def attn_tp_size(config: EngineSettings) -> int:
    """runtime_context.py:73-76."""
    return config.tp_size // config.attn_dp_size // config.attn_cp_size


def batch_alignment(config: EngineSettings, gathered: bool | None = None) -> int:
    """`get_cuda_graph_batch_size_alignment` (utils/common.py:4163-4175) on CUDA;
    `gathered`: the runner's own `require_gathered_buffer` (None: the config's)."""
    align = 2 if config.two_batch_overlap else 1
    if gathered_buffer(config) if gathered is None else gathered:
        align *= attn_tp_size(config)
    if align % config.attn_cp_size:
        align *= config.attn_cp_size
    return align


def runner_sizes(name: str, sizes: Iterable[int], width: int, config: EngineSettings,
                 gathered: bool | None = None) -> tuple[int, ...]:
    """`get_batch_sizes_to_capture` (base_cuda_graph_runner.py:65-110) for a runner of
    `width` tokens per request (the draft runners pass the default width 1); `gathered`: the
    runner's own `require_gathered_buffer` (None: the config's; DSPARK's dense draft under
    attention DP, graphfit.planner.engines.sglang_spec_dp)."""
    align = batch_alignment(config, gathered)
    pool = round_up(request_pool(config), align)
    listed = list(sizes)
    if max(listed) > pool:
        listed.append(pool)
    aligned_width = 1 if config.two_batch_overlap else width
    kept = tuple(sorted({s for s in listed if s * aligned_width % align == 0 and s <= pool}))
    if not kept:
        raise ConfigError(
            f"cuda_graph_bs_decode: no batch size of {sorted(set(listed))} is a multiple of "
            f"the alignment {align} within the request pool {pool}; SGLang's {name} graph "
            f"runner asserts (base_cuda_graph_runner.py:104)")
    return kept


def decode_list(config: EngineSettings) -> tuple[list[int], list[str], list[tuple[str, str]]]:
    """cuda_graph_config.decode.bs as SGLang resolves it, the notes, the inputs it shows."""
    S = config.max_num_seqs
    user = config.cudagraph_capture_sizes
    notes: list[str] = []
    if user is not None:
        sizes = list(user)
        given = config.max_cudagraph_capture_size
        if given is not None and given != sizes[-1]:
            notes.append(f"cuda_graph_max_bs_decode {given} replaced by max(cuda_graph_bs_decode)"
                         f" {sizes[-1]} (memory_hook.py:202-207)")
        return sizes, notes, [("cuda_graph_bs_decode", f"{len(sizes)} sizes up to {sizes[-1]}")]
    max_bs = config.max_cudagraph_capture_size
    shown = str(max_bs)
    if max_bs is not None and max_bs == S:
        default, _ = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
        if qwen3_vl.applies(config, min(default, S), locked=False):  # set by resolve
            notes.append(qwen3_vl.note(config, min(default, S)))
            shown = f"{max_bs} (Qwen3-VL on Hopper)"
    if max_bs is None:
        default, why = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
        max_bs = min(default, S)
        clamp = f", clamped to max_running_requests {S}" if max_bs < default else ""
        notes.append(f"decode max_bs {max_bs}: SGLang's default {default} for {why}{clamp} "
                     f"(memory_hook.py:89-188)")
        if qwen3_vl.applies(config, max_bs, locked=False) is None:
            notes.append(qwen3_vl.unknown_warning(config, max_bs))
        shown = f"{max_bs} (default)"
    sizes = sglang_sizes(max_bs, speculative=config.ladder is LadderPolicy.SGLANG_SPEC,
                         padding=config.cuda_graph_padding)
    return sizes, notes, [("cuda_graph_max_bs_decode", shown)]


def _ladder_inputs(config: EngineSettings, listed: list[tuple[str, str]],
                   declared: tuple[int, ...] = ()) -> tuple[tuple[str, str], ...]:
    out = [("max_running_requests", str(config.max_num_seqs)), *listed]
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        out.append(("cuda_graph_backend_decode", "disabled"))
    if not config.cuda_graph_padding:
        out.append(("disable_cuda_graph_padding", "true"))
    if frozen_kv_mtp(config):
        out.append(("frozen_kv_mtp", "the frozen draft loop (width topk), no draft-extend "
                                     "graphs"))
    if multi_layer_eagle(config):
        count = mtp_graph_count(config)  # graphfit.planner.engines.sglang_mtp_graphs
        out.append(("enable_multi_layer_eagle",
                     f"true: {count.per_size} draft-extend graph(s) per size ({count.why}), "
                     f"no draft-decode graphs"))
    if config.speculative_adaptive:
        out.append(adaptive.ladder_line(config, declared))
    if speculative(config):
        name = "FROZEN_KV_MTP" if frozen_kv_mtp(config) else ALGORITHM_NAMES[config.spec_method]
        out.append(("speculative", f"{name} steps "
                                   f"{config.num_speculative_tokens} topk "
                                   f"{config.speculative_eagle_topk} draft tokens "
                                   f"{config.speculative_num_draft_tokens}"))
    for name, value in (("tp_size", config.tp_size), ("attn_dp_size", config.attn_dp_size),
                        ("attn_cp_size", config.attn_cp_size)):
        if value > 1:
            # a block draft under attention DP: how each runner keys (sglang_spec_dp)
            keyed = spec_dp_shown(config) if name == "attn_dp_size" else None
            out.append((name, keyed or str(value)))
    if config.two_batch_overlap:
        out.append(("enable_two_batch_overlap", "true"))
    if config.gpu_memory_gb is not None:
        out.append(("gpu_memory_gb", f"{config.gpu_memory_gb:g}"))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Buffers (runner_utils/buffers.py:132-245, cuda_graph_buffer_registry.py:576-681,
# eagle_draft_cuda_graph_runner.py:155-262, eagle_draft_extend_cuda_graph_runner.py:145-265)
# --------------------------------------------------------------------------------------------

def _slots(runner: str, tokens: int, max_bs: int, *, steps: int = 1,
           mrope_fill: FillPolicy = ZERO, seq_fill: FillPolicy = SEQ_LEN_FILL
           ) -> list[BufferSpec]:
    """What every runner holds: token ids, positions, KV slots, request rows, lengths."""
    mrope_safe = ONLY_ZERO if mrope_fill is ZERO else None
    return [
        graph_input(runner, "input_ids", "int64", Axis.TOKENS, tokens, KEEP, None,
                    why="token ids of stale rows stay inside the vocabulary"),
        graph_input(runner, "positions", "int64", Axis.TOKENS, tokens, ZERO, ONLY_ZERO,
                    why="stale positions index rope/attention out of range (#10892, #24401)"),
        graph_input(runner, "out_cache_loc", "int64", Axis.TOKENS, tokens * steps, ZERO,
                    ONLY_ZERO, scale=steps,
                    why="KV slot 0 is the dummy slot; stale slots overwrite live KV"
                        + (f" (flat: {steps} slots per draft token)" if steps > 1 else "")),
        graph_input(runner, "mrope_positions", "int64", Axis.TOKENS, tokens, mrope_fill,
                    mrope_safe, leading=(MROPE_SECTIONS,), why="allocated for every model"),
        graph_input(runner, "req_pool_indices", "int64", Axis.REQUESTS, max_bs, ZERO, ONLY_ZERO,
                    why="request slot 0 is reserved; stale slots read freed requests"),
        graph_input(runner, "seq_lens", "int64", Axis.REQUESTS, max_bs, seq_fill,
                    ONLY_SENTINEL, why="padded requests must look like short sequences"),
        graph_input(runner, "seq_lens_cpu", "int64", Axis.REQUESTS, max_bs, seq_fill,
                    ONLY_SENTINEL, why="host copy of seq_lens (a CPU tensor in SGLang)"),
    ]


def global_num_tokens(runner: str, config: EngineSettings, mlp_gather: bool | None = None
                      ) -> list[BufferSpec]:
    """`global_num_tokens_gpu` / `global_num_tokens_for_logprob_gpu` (buffers.py:212-217;
    the draft runners' eagle_draft_cuda_graph_runner.py:235-246): one int32 per attention-DP
    rank when the MLP input is gathered across them (attention DP), else one; `mlp_gather`:
    the runner's own `require_mlp_tp_gather` (None: the config's)."""
    gathers = mlp_tp_gather(config) if mlp_gather is None else mlp_gather
    ranks = config.attn_dp_size if gathers else 1
    return [BufferSpec(name, "int32", Axis.FIXED, (), ranks, KEEP,
                       source=f"{runner}: buffers.py:212-217 (set to the padded token count "
                              f"before each replay)")
            for name in ("global_num_tokens_gpu", "global_num_tokens_for_logprob_gpu")]


def target_buffers(config: EngineSettings, width: int, max_bs: int, *, runner: str = "target",
                   hidden: int | None = None, mlp_gather: bool | None = None
                   ) -> tuple[BufferSpec, ...]:
    """The DecodeCudaGraphRunner's buffers; `runner`/`hidden`: the same runner class built
    on a draft model runner (DFLASH's draft, graphfit.planner.engines.sglang_dflash);
    `mlp_gather`: that runner's own `require_mlp_tp_gather` (`global_num_tokens`)."""
    tokens = max_bs * width
    # the model runner's backend fill (graphfit.planner.engines.sglang_seq_len_fill): the
    # target's decode backend; a DFLASH / DSPARK draft model runner's backend is one of
    # DRAFT_ATTENTION_BACKEND_CHOICES (aiter falls back to triton,
    # speculative/draft_worker_common.py:32-63, arg_groups/choices.py:103-111), all fill 1
    fill = target_fill(config) if runner in ON_TARGET else int(SEQ_LEN_FILL.value)
    specs = _slots(runner, tokens, max_bs, seq_fill=FillPolicy(FillKind.SENTINEL, fill))
    # custom_mask: ((max_bs * seq_len_fill + max_num_token) * width,) bool, ones
    # (buffers.py:171-174), i.e. (fill + width) * width entries per request row
    mask_per_request = (fill + width) * width
    # a DFLASH / DSPARK draft's runner sizes these from the draft's ModelConfig
    # (decode_cuda_graph_runner.py:474-478, model_config.py:1605;
    # graphfit.planner.engines.sglang_draft_shape)
    on_draft = runner in (DFLASH_RUNNER, DSPARK_RUNNER)
    specs += [
        graph_input(runner, "input_embeds", draft_dtype(config) if on_draft else config.dtype,
                    Axis.TOKENS, tokens, KEEP,
                    trailing=(hidden or config.hidden_size,), why="allocated for every model"),
        graph_input(runner, "next_token_logits_buffer", "float32", Axis.TOKENS, tokens, KEEP,
                    trailing=(draft_vocab(config) if on_draft else config.vocab_size,),
                    why="a view of the process-wide logits buffer (graph_shared_output.py)"),
        graph_input(runner, "custom_mask", "bool", Axis.REQUESTS, max_bs * mask_per_request,
                    KEEP, scale=mask_per_request,
                    why="tree attention mask, flat: (seq_len_fill + width) * width entries per "
                        "request (buffers.py:171-174); allocated for every config"),
    ]
    if runner == "target":
        specs += mamba_track_buffers(config, max_bs)
    specs += global_num_tokens(runner, config, mlp_gather)
    specs.append(tbo_split_buffer(runner))
    return tuple(specs)


def draft_buffers(config: EngineSettings, topk: int, steps: int, max_bs: int
                  ) -> tuple[BufferSpec, ...]:
    specs = _slots("drafter", max_bs * topk, max_bs, steps=steps, mrope_fill=KEEP,
                   seq_fill=FillPolicy(FillKind.SENTINEL, draft_decode_fill(config)))
    specs += [
        graph_input("drafter", "extend_seq_lens", "int32", Axis.REQUESTS, max_bs, KEEP),
        graph_input("drafter", "topk_p", "float32", Axis.REQUESTS, max_bs, ZERO, ONLY_ZERO,
                    trailing=(topk,)),
        graph_input("drafter", "topk_index", "int64", Axis.REQUESTS, max_bs, ZERO, ONLY_ZERO,
                    trailing=(topk,), why="stale ids may exceed the vocabulary"),
    ]
    if config.spec_method is not SpecMethod.DRAFT_MODEL:  # the draft's spec_hidden_size
        hidden = config.draft_hidden_size or config.hidden_size
        specs.append(graph_input("drafter", "hidden_states", draft_dtype(config), Axis.REQUESTS,
                                 max_bs, ZERO, ONLY_ZERO, trailing=(hidden,)))
    # per-request sampling parameters, allocated always and read only under rejection
    # sampling (eagle_draft_cuda_graph_runner.py:225-233, copied in at :676-690)
    specs += [
        graph_input("drafter", "temperatures", "float32", Axis.REQUESTS, max_bs, KEEP,
                    trailing=(1,), why="SGLang initialises it to ones; padded rows keep the "
                                       "last replay's values (eagle_draft_cuda_graph_runner."
                                       "py:225, 684)"),
        graph_input("drafter", "top_ks", "int32", Axis.REQUESTS, max_bs, KEEP,
                    why="SGLang initialises it to TOP_K_ALL; padded rows keep the last "
                        "replay's values (eagle_draft_cuda_graph_runner.py:233, 690)"),
    ]
    return tuple(specs)


def draft_extend_buffers(config: EngineSettings, width: int, max_bs: int
                         ) -> tuple[BufferSpec, ...]:
    tokens = max_bs * width
    accepted = FillPolicy(FillKind.SENTINEL, width)  # padded requests accept every draft
    specs = _slots("draft_extend", tokens, max_bs, mrope_fill=KEEP,
                   seq_fill=FillPolicy(FillKind.SENTINEL, draft_extend_fill(config)))
    specs += [
        graph_input("draft_extend", "extend_seq_lens", "int32", Axis.REQUESTS, max_bs,
                    accepted, ONLY_SENTINEL),
        graph_input("draft_extend", "num_correct_drafts", "int32", Axis.REQUESTS, max_bs,
                    accepted, ONLY_SENTINEL),
        graph_input("draft_extend", "num_accept_tokens", "int32", Axis.REQUESTS, max_bs,
                    accepted, ONLY_SENTINEL),
        graph_input("draft_extend", "select_index", "int64", Axis.REQUESTS, max_bs, KEEP,
                    why="initialised to each request's last row; stale rows stay in range"),
        # the draft's vocabulary (graphfit.planner.engines.sglang_draft_shape)
        graph_input("draft_extend", "next_token_logits_buffer", "float32", Axis.REQUESTS,
                    max_bs, KEEP, trailing=(draft_vocab(config),),
                    why="a view of the process-wide logits buffer (graph_shared_output.py)"),
    ]
    if config.spec_method is not SpecMethod.DRAFT_MODEL:
        # EAGLE3 reads its aux target layers; the others the draft's spec_hidden_size
        # (get_draft_input_from_target_hidden_dim, eagle_utils.py:237-276), in the draft's
        # dtype (graphfit.planner.engines.sglang_draft_shape)
        specs.append(graph_input("draft_extend", "hidden_states", draft_dtype(config),
                                 Axis.TOKENS, tokens, KEEP,
                                 trailing=(draft_extend_hidden(config),)))
    # the hybrid-mamba extra buffer's tracked slots (graphfit.planner.engines.
    # sglang_mamba_buffers)
    specs += draft_extend_track_buffers(config, "draft_extend", max_bs)
    return tuple(specs)


def sglang_runners(config: EngineSettings, ladder: Ladder) -> list[BatchRunner]:
    """The graph runners SGLang builds for this config, each with its own filtered ladder."""
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    pool = request_pool(config)
    width = config.uniform_query_len  # 1 for plain decode, num_draft_tokens for verify

    def sizes_for(name: str, runner_width: int) -> tuple[int, ...]:
        return runner_sizes(name, ladder.sizes, runner_width, config) if graphs else ()

    if uno(config):  # the LoRA self-draft's runners (graphfit.planner.engines.sglang_uno)
        return uno_planned_runners(config, pool, sizes_for, lambda name, w, top: target_buffers(
            config, w, top, runner=name))
    target = sizes_for("decode", width)
    runners = [BatchRunner("target", width, pool,
                           target_buffers(config, width, target[-1] if target else 0), target)]
    if dflash(config):
        # the draft model's own DecodeCudaGraphRunner, TARGET_VERIFY of the block
        # (graphfit.planner.engines.sglang_dflash)
        # a LiLiCorr head's weight-sized buffers (graphfit.planner.engines.
        # sglang_lilicorr_weights), folded sampler or not, and with the draft's graphs off
        # too: `load_weights` builds them (models/lilicorr.py:571-572), not the capture
        head = lilicorr_head_buffers(config, width)
        if dflash_draft_graphs(config):
            draft = sizes_for("DFLASH draft", width)
            top = draft[-1] if draft else 0
            buffers = target_buffers(config, width, top, runner=DFLASH_RUNNER,
                                     hidden=config.draft_hidden_size) + head
            if draft:
                buffers += sampler_buffers(config, width, max(ladder.sizes))
            runners.append(BatchRunner(DFLASH_RUNNER, width, pool, buffers, draft,
                                       persistent=frozenset(b.name for b in head)))
        elif head:  # attention DP: the draft runs eager, its head stays (sglang_spec_dp)
            runners.append(BatchRunner(DFLASH_RUNNER, width, pool, head,
                                       persistent=frozenset(b.name for b in head)))
    elif dspark(config):  # graphfit.planner.engines.sglang_dspark
        # the draft runner's own gather requirements: under attention DP its dense draft
        # keys and aligns by the local batch (graphfit.planner.engines.sglang_spec_dp)
        gather = draft_gather(config)

        def draft_sizes(name: str, runner_width: int) -> tuple[int, ...]:
            return (runner_sizes(name, ladder.sizes, runner_width, config, gather.any)
                    if graphs else ())

        runners.append(dspark_runner(config, ladder.sizes, draft_sizes,
                                     partial(target_buffers, mlp_gather=gather.mlp)))
    elif frozen_kv_mtp(config):
        # the frozen draft loop only (width topk, filtered with it), no draft-extend graphs
        # (frozen_kv_mtp_worker_v2.py:179-183, 380-399; frozen_kv_mtp_cuda_graph_runner.py:
        # 123-128)
        topk = config.speculative_eagle_topk or 1
        drafts = sglang_moe_a2a.for_drafts(config)  # the draft's all-to-all backend
        draft = runner_sizes("FROZEN_KV_MTP draft", ladder.sizes, topk, drafts) if graphs else ()
        runners.append(BatchRunner(FROZEN_RUNNER, topk, pool,
                                   frozen_buffers(drafts, topk, draft[-1] if draft else 0,
                                                  gathered=gathered_buffer(drafts)), draft))
    elif multi_layer_eagle(config):
        # one draft-extend runner per step sharing one buffer set, no draft-decode runner
        # (graphfit.planner.engines.sglang_spec_runners)
        draft = sizes_for("multi-layer EAGLE draft-extend", 1)
        runners.append(BatchRunner(MTP_RUNNER, width, pool,
                                   mtp_buffers(config, width, draft[-1] if draft else 0,
                                               gathered=gathered_buffer(config)), draft))
    elif config.spec_method in EAGLE_FAMILY:
        runners += _eagle_drafts(sglang_moe_a2a.for_drafts(config), ladder.sizes,
                                 config.num_speculative_tokens, width, "")
    if config.speculative_adaptive and graphs:
        # one more graph set per other candidate step (graphfit.planner.engines.
        # sglang_adaptive): target verify of width steps + 1 plus the EAGLE draft runners
        for steps, sizes, suffix in adaptive.graph_sets(config, ladder.sizes)[1:]:
            kept = runner_sizes("decode", sizes, steps + 1, config)
            runners.append(BatchRunner(f"target{suffix}", steps + 1, pool,
                                       target_buffers(config, steps + 1, kept[-1]), kept))
            runners += _eagle_drafts(sglang_moe_a2a.for_drafts(config), sizes, steps,
                                     steps + 1, suffix)
    return runners


def _eagle_drafts(config: EngineSettings, sizes: tuple[int, ...], steps: int, width: int,
                  suffix: str) -> list[BatchRunner]:
    """The EAGLE draft-decode (steps > 1) and draft-extend runners of one step count
    (eagle_worker_v2.py:476-600), filtered from `sizes` with width 1."""
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    pool = request_pool(config)
    draft = runner_sizes("EAGLE draft", sizes, 1, config) if graphs else ()
    top = draft[-1] if draft else 0
    topk = config.speculative_eagle_topk or 1
    out = []
    # their `global_num_tokens` entries (graphfit.planner.engines.sglang_eagle_tokens)
    if steps > 1:  # eagle_worker_v2.py:507: one step needs no draft-decode graph
        out.append(BatchRunner(f"drafter{suffix}", topk, pool,
                               draft_buffers(config, topk, steps, top)
                               + tuple(draft_global_num_tokens("drafter", config)), draft))
    out.append(BatchRunner(f"draft_extend{suffix}", width, pool,
                           draft_extend_buffers(config, width, top)
                           + tuple(draft_global_num_tokens("draft_extend", config)), draft))
    return out


# --------------------------------------------------------------------------------------------
# Resolution (speculative_hook.py, memory_hook.py, parallel checks)
# --------------------------------------------------------------------------------------------

def _resolve_speculation(config: EngineSettings) -> dict[str, object]:
    """SGLang's speculative defaults and adjustments (speculative_hook.py:1072-1321)."""
    method = config.spec_method
    steps, topk, drafts = (config.num_speculative_tokens or None, config.speculative_eagle_topk,
                           config.speculative_num_draft_tokens)
    if method is SpecMethod.NONE:
        # SGLang reads the speculative numbers only for a speculative algorithm
        return {"num_speculative_tokens": 0, "speculative_eagle_topk": None,
                "speculative_num_draft_tokens": None}
    if method is SpecMethod.DFLASH:
        return resolve_dflash(config)
    if method is SpecMethod.DSPARK:
        return resolve_dspark(config)
    if method is SpecMethod.UNO:
        return resolve_uno_config(config)  # graphfit.planner.engines.sglang_uno
    name = ALGORITHM_NAMES[method]
    if config.attn_dp_size > 1 and method in (SpecMethod.NGRAM, SpecMethod.DRAFT_MODEL):
        raise ConfigError(f"spec_method: SGLang's {name} does not support DP attention "
                          f"(attn_dp_size {config.attn_dp_size}); speculative_hook.py")
    if method is SpecMethod.NGRAM:
        # topk is the BFS breadth, draft tokens default to 12, steps to drafts // topk
        topk = topk or NGRAM_BFS_BREADTH
        drafts = drafts or NGRAM_DRAFT_TOKENS
        return {"speculative_eagle_topk": topk, "speculative_num_draft_tokens": drafts,
                "num_speculative_tokens": steps if steps is not None else drafts // topk}
    if steps is None:
        if topk is not None or drafts is not None:
            raise ConfigError(
                "speculative_num_steps: SGLang fills steps, topk and draft tokens together; "
                "give --speculative-num-steps too (speculative_hook.py:1178 asserts)")
        if method is SpecMethod.DRAFT_MODEL:
            steps, topk, drafts = EAGLE_CHAIN_DEFAULTS
        elif config.architecture is None:
            raise ConfigError(
                f"speculative_num_steps: SGLang picks {name}'s (steps, topk, draft tokens) "
                f"from the model class ({EAGLE_TREE_DEFAULTS} for Llama / Grok-1, "
                f"{EAGLE_CHAIN_DEFAULTS} otherwise); pass --speculative-num-steps, "
                f"--speculative-eagle-topk and --speculative-num-draft-tokens, or --model-path "
                f"DIR (its config.json) / --architecture")
        elif config.architecture in TREE_DEFAULT_ARCHS:
            steps, topk, drafts = EAGLE_TREE_DEFAULTS
        else:
            steps, topk, drafts = EAGLE_CHAIN_DEFAULTS
    if topk is None:
        raise ConfigError(
            "speculative_eagle_topk: required with --speculative-num-steps (SGLang 0.5.23 "
            "fails with a TypeError without it, speculative_hook.py:1277)")
    if topk == 1 and not config.frozen_kv_mtp:
        drafts = steps + 1  # silently adjusted (speculative_hook.py:1255-1266)
    elif drafts is None:
        raise ConfigError(
            "speculative_num_draft_tokens: required when speculative_eagle_topk > 1 (SGLang's "
            "decode graph runner fails without it)")
    return {"num_speculative_tokens": steps, "speculative_eagle_topk": topk,
            "speculative_num_draft_tokens": drafts}


def _check_frozen(config: EngineSettings) -> None:
    """FROZEN_KV_MTP: SGLang fills none of steps, topk and draft tokens
    (speculative_hook.py:990-1011 sets max_running_requests only) and does not adjust the
    draft tokens for topk 1; a missing one crashes its runners. The draft loop captures
    while any phase has graphs (`cuda_graph_fully_disabled`, frozen_kv_mtp_worker_v2.py:382,
    cuda_graph_config.py:224), with decode graphs off too: not modelled."""
    if config.spec_method is not SpecMethod.MTP:
        raise ConfigError("frozen_kv_mtp: FROZEN_KV_MTP is an MTP draft (spec_method mtp)")
    missing = [flag for flag, value in (
        ("--speculative-num-steps", config.num_speculative_tokens or None),
        ("--speculative-eagle-topk", config.speculative_eagle_topk),
        ("--speculative-num-draft-tokens", config.speculative_num_draft_tokens))
        if value is None]
    if missing:
        raise ConfigError(f"speculative_algorithm: SGLang's FROZEN_KV_MTP fills no default "
                          f"for {', '.join(missing)} and its graph runners crash without "
                          f"(speculative_hook.py:990-1011); give them")


def _resolve_requests(config: EngineSettings) -> dict[str, object]:
    """max_running_requests when not given: 48 with speculation, else the KV-sized pool."""
    if sglang_dsv4_plan.applies(config):  # DeepSeek-V4's 256, before the speculative 48
        found = sglang_dsv4_plan.resolve(config)
        default, _ = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
        if ("max_num_seqs" in found and config.cudagraph_capture_sizes is None
                and config.max_cudagraph_capture_size is None
                and default > sglang_dsv4_plan.DEFAULT_MAX_RUNNING_REQUESTS):
            # the memory hook ran before the model hook set 256 (pipeline.py:218, 225), so
            # cuda_graph_config.decode.bs keeps its default; the runners cut it at the pool
            found["max_cudagraph_capture_size"] = default
        return found
    if config.max_num_seqs is not None:
        return {}
    if speculative(config) and not uno(config):  # UNO keeps the KV-sized pool (sglang_uno)
        changes: dict[str, object] = {"max_num_seqs": SPEC_MAX_RUNNING_REQUESTS}
        if config.cudagraph_capture_sizes is None and config.max_cudagraph_capture_size is None:
            # the memory hook ran before S was set, so its default was not clamped to 48
            # (memory_hook.py:182-188 clamps only a known S): cuda_graph_config.decode.bs
            # keeps it. It shows when the aligned pool passes 48 (the runners cut the other
            # sizes, decode_cuda_graph_runner.py:386-390), and always for DFLASH / DSPARK,
            # whose folded draft samplers are sized from max(decode.bs) itself
            # (dflash_worker_v2.py:996, dspark_worker_v2.py:696-711)
            default, _ = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
            pool = round_up(max(1, SPEC_MAX_RUNNING_REQUESTS // config.attn_dp_size),
                            batch_alignment(config))
            if default > SPEC_MAX_RUNNING_REQUESTS and (
                    pool > SPEC_MAX_RUNNING_REQUESTS or dflash(config) or dspark(config)):
                changes["max_cudagraph_capture_size"] = default
        return changes
    if config.max_total_tokens is not None:  # the KV pool SGLang sizes (kv_cache_configurator
        # .py:3119-3133): known once the token capacity is (--max-total-tokens)
        pool = kv_request_pool(config.max_total_tokens, config.max_model_len, None,
                               config.attn_dp_size)
        return {"max_num_seqs": pool * config.attn_dp_size}
    top = max(config.cudagraph_capture_sizes or (config.max_cudagraph_capture_size or 0,))
    if top > POOL_ESTIMATE_FLOOR:
        raise ConfigError(
            f"max_num_seqs: without --max-running-requests SGLang sizes its request pool from "
            f"the KV cache (2048..4096 requests, kv_cache_configurator.py:3119), which decides "
            f"whether batch size {top} is captured; pass --max-running-requests")
    # the smallest pool SGLang picks (per attention-DP group); the graphs stop below it
    return {"max_num_seqs": POOL_ESTIMATE_FLOOR * config.attn_dp_size}


class SglangModel:
    """SGLang 0.5.23's decode graph runners, captured per batch size."""

    engine = Engine.SGLANG
    release = RELEASE
    version = VERSION
    unit = Unit.REQUESTS
    policies = (LadderPolicy.SGLANG, LadderPolicy.SGLANG_SPEC)
    options = SglangOptions
    requests_within_token_budget = False  # decode graphs know no token budget

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        # DWDP's asserts and declarations (handle_dwdp, pipeline.py:189): every later hook
        # reads the rewritten line (graphfit.planner.engines.sglang_dwdp)
        dwdp = sglang_dwdp.rewrite(config)
        if dwdp:
            return {**dwdp, **self._resolve(sglang_dwdp.view(config, dwdp))}
        return self._resolve(config)

    def _resolve(self, config: EngineSettings) -> dict[str, object]:
        changes: dict[str, object] = {}
        spec = speculative(config)
        if config.ladder is LadderPolicy.AUTO:
            changes["ladder"] = LadderPolicy.SGLANG_SPEC if spec else LadderPolicy.SGLANG
        if config.cuda_graph_padding is None:
            changes["cuda_graph_padding"] = True
        resolve_common(config, self.engine, frozenset({SpecMethod.DFLASH, SpecMethod.DSPARK,
                                                       SpecMethod.UNO}))
        if config.mrope_dims != MROPE_SECTIONS:
            raise ConfigError(f"mrope_dims: SGLang allocates mrope_positions as "
                              f"[{MROPE_SECTIONS}, tokens]")
        # handle_data_parallelism: replicas beside attention DP first (s70o), then its assert
        sglang_dp_replicas.check(config)
        parallel = config.attn_dp_size * config.attn_cp_size
        if config.tp_size % parallel:
            raise ConfigError(
                f"tp_size: {config.tp_size} is not attn_tp x attn_dp_size x attn_cp_size "
                f"(attn_dp_size {config.attn_dp_size}, attn_cp_size {config.attn_cp_size}; "
                f"SGLang asserts)")
        if config.frozen_kv_mtp:
            _check_frozen(config)
        dense_tp = resolved_dense_tp(config.architecture, config.moe_dense_tp_size)
        if dense_tp != config.moe_dense_tp_size:  # Qwen4-Exp's model override (s69c)
            changes["moe_dense_tp_size"] = dense_tp
        sglang_waterfill_megamoe.check(config)  # flashinfer_megamoe's runner, then deepep
        after = sglang_waterfill.after_a2a(config)  # the backend handle_a2a_moe resolved
        sglang_moe_a2a.check_dispatch(  # mori / pplx start-up checks (after the override)
            after, default_chunked_prefill_size(config.gpu_memory_gb))
        sglang_megamoe.check_compat(config)
        sglang_rocm_draft_pick.check(config)  # ROCm's NVFP4 EAGLE draft pick (s70n)
        sglang_quantization.check(config)  # ModelConfig / handle_moe_kernel_config
        sglang_draft_quant.check(config)  # the draft model loader's GPU / dtype checks
        sglang_eplb_checks.check(config)  # handle_eplb_and_dispatch
        sglang_mamba_strategy.check(config)  # handle_mamba_radix_cache on a non-mamba model
        quant = (sglang_quantization.resolved_flag(config)
                 if sglang_quantization.flag_known(config) else None)
        sglang_ep_rules.check(config, sglang_quantization.kernel_runner(  # moe_dp / PD / GPT-OSS
            config.moe_runner_backend, quant))
        sglang_elastic_ep.check(config)  # handle_elastic_ep before scale-up
        sglang_flashinfer_megamoe.check(config)  # handle_moe_kernel_config / handle_a2a_moe
        sglang_dsv4_plan.check(config)  # the decode radix cache (handle_pd_disaggregation)
        sglang_dsa_dcp.check(config)  # the family's DSA DCP override (s69r)
        sglang_dsa_backends.check(config)  # the model hook's DSA backends (s69m)
        given_s = config.max_num_seqs
        if (given_s is not None and config.cudagraph_capture_sizes is None
                and config.max_cudagraph_capture_size is None):
            default, _ = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
            if qwen3_vl.applies(config, min(default, given_s), locked=False):
                # the large-Hopper Qwen3-VL override (graphfit.planner.engines.sglang_qwen3_vl)
                changes["max_cudagraph_capture_size"] = given_s
        if config.mem_fraction_static is None:
            # SGLang's memory hook sees the config as given: before the speculative hook and
            # the scheduler fill max_running_requests (graphfit.planner.engines.sglang_reserve)
            fraction = default_fraction(config)
            if fraction is not None and fraction > 0:  # not positive: a warning (ladders)
                changes["mem_fraction_static"] = fraction
        static = changes.get("mem_fraction_static", config.mem_fraction_static)
        kept_on = config.speculative_adaptive and adaptive.fallback_reason(config) is None
        if config.speculative_adaptive and not kept_on:
            # SGLang turns it off and runs the static parameters (_maybe_disable_adaptive,
            # speculative_hook.py:1374-1389)
            changes["speculative_adaptive"] = False
        check_coordination(config)  # SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION (sglang_spec_dp)
        changes.update(adaptive.resolve_adaptive(config) if kept_on
                       else _resolve_speculation(config))
        if config.multi_layer_eagle and not multi_layer_eagle(config):
            # SGLang reads the switch only for the EAGLE worker family (spec_info.py:354)
            changes["multi_layer_eagle"] = False
        elif auto_multi_layer(config) and not config.multi_layer_eagle:
            changes["multi_layer_eagle"] = True  # the model's override turns it on
        changes.update(_resolve_requests(config))
        # a hybrid mamba model's state cache sized from memory (sglang_mamba_memory), after
        # the speculative defaults its joint solve reads
        changes.update(resolve_memory_slots(
            config, static if isinstance(static, float) else None, changes))
        if (config.disaggregation_mode == "prefill"
                and config.cudagraph_mode is CUDAGraphMode.FULL_AND_PIECEWISE):
            # a prefill server drops decode graphs unless a decode backend was given
            # (cuda_graph_hook.py:557-566); FULL_AND_PIECEWISE is the default: none given
            changes["cudagraph_mode"] = CUDAGraphMode.NONE
        decode_default = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)[0]
        chunk_default = default_chunked_prefill_size(config.gpu_memory_gb)
        # after speculative resolution, as pipeline.py:320-324, 374-375
        sglang_megamoe.check_line(config, changes, spec, decode_default, chunk_default,
                                  hook_writes_megamoe(config),  # MiniMax-M3 NVFP4 (s54m)
                                  served_nvfp4(config))
        sglang_deepep_v2.check(
            after, changes, speculative=spec,
            ngram=config.spec_method in (SpecMethod.NGRAM, SpecMethod.NGRAM_GPU),
            decode_graphs=config.cudagraph_mode is not CUDAGraphMode.NONE,
            decode_default=decode_default, chunk_default=chunk_default)
        sglang_flashinfer_a2a.check(
            after, changes, speculative=spec,
            decode_graphs=config.cudagraph_mode is not CUDAGraphMode.NONE,
            decode_default=decode_default, chunk_default=chunk_default)
        sglang_layernorm_sp.check(config, chunk_default)  # handle_layernorm_sp (s64k)
        if sglang_deepep_v2.prefill_off(after.moe_a2a_backend):
            # after the memory default, as SGLang's moe hook follows its memory hook
            changes["cuda_graph_backend_prefill"] = "disabled"
        if sglang_moe_a2a.normal_mode_off(  # on the backend Waterfill may have forced
                sglang_waterfill.resolved_a2a(config.moe_a2a_backend, config.enable_waterfill),
                config.deepep_mode):
            # after the memory default above, as SGLang's moe hook follows its memory hook
            changes["cudagraph_mode"] = CUDAGraphMode.NONE
            changes["cuda_graph_backend_prefill"] = "disabled"
        # after the speculative hook (pipeline.py:304-306, 338)
        sglang_unified_memory.check_config(config, changes)
        # check_server_args after the resolution hooks: LoRA, the lora_* draft runner (s63d),
        # the lora_* target runner (s65d)
        sglang_server_checks.check_before_lora(config, changes)  # :177-202 (s67b)
        sglang_lora_runner.check(config)
        # then chunked prefill / page, PD multiplexing (:243-262; s67b), two-batch overlap's
        # (:346; s66b)
        sglang_server_checks.check(config, changes)
        sglang_dcp.check(config)  # what graphfit plans under --dcp-size > 1
        if config.target_build_failure:  # s68d: the target's config, its layer 0's attention
            raise ConfigError(config.target_build_failure)
        # s69l: a Gemma 4 MoE target's runner, made before its dispatcher (layer.py:576, 595)
        sglang_gelu_target.check(config)
        sglang_dispatch_budget.check_target(config)  # the dispatcher's budget first (s55e)
        sglang_deepep_class.check_line(config)  # the model build (ep_moe/layer.py:168-178)
        # the draft's build after it: its dispatcher (s54e), then its DeepEPMoE body (s61e)
        sglang_draft_deepep.check(config)
        sglang_first_dispatch.check(config)  # a budget <= 0 at the first dispatch (s60k)
        sglang_budget_floor.check(config)  # the other five budgets <= 0 (s63k)
        sglang_kimi_megamoe.check(  # Kimi-K3's MegaMoE rows past the budget (s64k)
            config, changes, speculative=spec,
            decode_graphs=config.cudagraph_mode is not CUDAGraphMode.NONE,
            decode_default=decode_default, chunk_default=chunk_default)
        sglang_layernorm_sp.check_modelled(config)  # LayerNorm SP past its checks (s64k)
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        if (frozen_kv_mtp(config) and config.cudagraph_mode is CUDAGraphMode.NONE
                and prefill_graphs(config).on):
            raise ConfigError("cudagraph_mode: FROZEN_KV_MTP captures its draft loop while "
                              "prefill graphs are on, decode graphs off (frozen_kv_mtp_"
                              "worker_v2.py:382): not modelled; use --disable-cuda-graph or "
                              "keep decode graphs")
        if config.ladder is LadderPolicy.EXPLICIT:
            listed = list(explicit_batch_ladder(config).sizes)
            notes: list[str] = []
            shown = [("cuda_graph_bs_decode", f"{len(listed)} sizes (explicit)")]
        else:
            listed, notes, shown = decode_list(config)
        declared = Ladder(tuple(sorted(set(listed))), tuple(notes))
        graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
        captured = (runner_sizes("decode", listed, config.uniform_query_len, config)
                    if graphs else ())
        sglang_pplx_capture.check(config, captured)  # pplx's dispatch at capture (s66k)
        warnings = list(notes)
        if captured and captured != declared.sizes:
            pool = request_pool(config)
            warnings.append(
                f"the decode runner captures {_show(captured)} of the {len(declared.sizes)} "
                f"resolved batch sizes (alignment {batch_alignment(config)}, request pool "
                f"{pool}{' per attention-DP group' if config.attn_dp_size > 1 else ''})")
        prefill = prefill_graphs(config)
        if prefill.why_off and prefill.backend == "disabled":
            why = (sglang_unified_memory.why_prefill_off(config)  # the FULL fallback
                   if prefill.why_off == "disabled by the flags" else prefill.why_off)
            warnings.append(f"no prefill graphs: {why}")
        if prefill.on:
            shown = [*shown, ("cuda_graph_backend_prefill",
                              f"{prefill.backend}: {_show(prefill.captured)} tokens "
                              f"(chunked_prefill_size {prefill.chunked_prefill_size})")]
        else:
            shown = [*shown, ("cuda_graph_backend_prefill", "disabled")]
        if config.disaggregation_mode != "null":
            shown = [*shown, ("disaggregation_mode", config.disaggregation_mode)]
        reserve = reserve_line(config)
        if reserve is not None:
            shown = [*shown, ("mem_fraction_static", reserve)]
        elif reserve_unfit(config):
            warnings.append(unfit_warning(config))  # SGLang's figure, its start-up failure
        elif (config.mem_fraction_static is None and config.gpu_memory_gb is not None
              and vlm_adjusted(config)):
            shown = [*shown, ("mem_fraction_static", VLM_NOTE)]
        mamba = mamba_memory_shown(config)  # a hybrid mamba model's state cache
        shown = shown if mamba is None else [*shown, mamba]
        drafts = draft_conv_line(config)  # Inkling MTP heads' conv caches (issue 23 s47m)
        shown = shown if drafts is None else [*shown, drafts]
        sparse_kv = sparse_kv_line(config)  # MiniMax-M3's sparse KV pool (issue 23 s50p)
        shown = shown if sparse_kv is None else [*shown, sparse_kv]
        dsv4 = sglang_dsv4_plan.shown(config)  # DeepSeek-V4's KV pools
        shown = shown if dsv4 is None else [*shown, dsv4]
        dcp = sglang_dcp.shown(config)  # DCP's fi_a2a workspace (issue 23 s47d)
        shown = shown if dcp is None else [*shown, dcp]
        return EngineLadders(declared, Ladder(captured, tuple(warnings)),
                             inputs=_ladder_inputs(config, shown, declared.sizes))

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        runners = sglang_runners(config, ladders.config)
        sglang_pplx_capture.check_drafts(config, runners)  # a MoE draft's pplx capture (s67m)
        decode = batch_components(config, runners)
        # a draft vocabulary of its own is a (max_rows, vocab) tensor (sglang_shared)
        decode = draft_logits_rows(decode, config.vocab_size)
        if multi_layer_eagle(config):  # graphfit.planner.engines.sglang_mtp_graphs
            per_size = mtp_graph_count(config).per_size
            decode = tuple(replace(c, graphs_per_size=per_size) if c.name == MTP_RUNNER else c
                           for c in decode)
        if uno(config):  # linear UNO: "lora" and "nolora" graphs per size (sglang_uno)
            decode = tuple(replace(c, graphs_per_size=uno_target_graphs(config))
                           if c.name == UNO_TARGET else c for c in decode)
        # the runners (every adaptive set's, or the one set of a static line) share SGLang's
        # process-wide input pool and logits buffer (graphfit.planner.engines.sglang_shared)
        # (a DSPARK target's staged verify inputs stay its own: sglang_dspark_early)
        private = private_inputs(config)
        decode = share_like_sglang(decode, private) if private else share_like_sglang(decode)
        prefill = prefill_component(config, prefill_graphs(config))
        return decode if prefill is None else (*decode, prefill)

    def keyed_components(self, config: EngineSettings, ladders: EngineLadders
                         ) -> tuple[KeyedComponentModel, ...]:
        """The vision-encoder graphs (`vit`) when the config gives their tower and workload
        (SglangOptions.vit; graphfit.planner.engines.sglang_vit_keyed); DSPARK's compact
        verify graphs (`target_compact`, graphfit.planner.engines.sglang_dspark_epilogue)."""
        # DSPARK's compact verify graphs, keyed on token tiers (sglang_dspark_epilogue)
        compact = dspark_keyed(config, ladders.config.sizes, partial(
            _sizes_if_graphs, config, ladders.config.sizes))
        if config.vit is None:
            return compact
        from graphfit.planner.engines.sglang_vit_keyed import vit_component, vit_option

        return (*compact, vit_component(*vit_option(config.vit)))


def _sizes_if_graphs(config: EngineSettings, declared: tuple[int, ...], name: str,
                     width: int) -> tuple[int, ...]:
    """`runner_sizes` of a runner of `width`, none when graphs are off (as sglang_runners)."""
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        return ()
    return runner_sizes(name, declared, width, config)


def _show(sizes: tuple[int, ...]) -> str:
    if len(sizes) <= 8:
        return str(list(sizes))
    return f"{len(sizes)} sizes ({sizes[0]}..{sizes[-1]})"


SGLANG = SglangModel()
