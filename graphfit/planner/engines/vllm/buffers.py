"""vLLM 0.33's persistent buffers of the target runner and of each drafter.

The facts, summarised: docs/engines/vllm.md#persistent-buffers.

Each spec says which streams feed it, how graphfit's runtime fills its padded tail, which
fills are safe there, and what vLLM's own code allocates (`reference_capacity`, from the
file:line in `source`), so a plan shows the saving and an audit can replay vLLM's sizing.
Buffers that do not scale with a batch (vLLM fills them whole, e.g. MRV2 DFlash's sampling
slots [S*k]) are FIXED at vLLM's size.
"""

from __future__ import annotations

from math import gcd

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    KEEP,
    ONLY_COPY,
    ONLY_SENTINEL,
    ONLY_ZERO,
    PAD_SLOT,
    PAD_TRUE,
    REPEAT_LAST,
    ZERO,
    Axis,
    BufferSpec,
    Demand,
    FillKind,
    FillPolicy,
)
from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.vllm.enums import Runner

ONE = FillPolicy(FillKind.SENTINEL, 1)  # num_accepted_tokens: kernels index accepted - 1
NO_SAMPLE = FillPolicy(FillKind.SENTINEL, -1)  # MRV2 sample_idx_mapping: inert rows
BLOCK_TABLE_TOKEN_ALIGNMENT = 128  # v1/worker/block_table.py:29-41


def _on(stream: Stream, offset: int = 0) -> tuple[Demand, ...]:
    return (Demand(stream, offset),)


def block_table_width(max_model_len: int, block_size: int) -> int:
    """cdiv(max_model_len, block_size) blocks, rounded up so the width is a multiple of 128
    tokens (`get_block_table_width`, v1/worker/block_table.py:29-41)."""
    blocks = -(-max_model_len // block_size)
    align = BLOCK_TABLE_TOKEN_ALIGNMENT // gcd(BLOCK_TABLE_TOKEN_ALIGNMENT, block_size)
    return -(-blocks // align) * align


def lookahead(config: EngineSettings) -> int:
    """`VllmConfig.num_lookahead_tokens` (config/vllm.py:626-653): the KV slots a drafter
    writes past the scheduled tokens, and DFlash/DSpark's query tokens per request."""
    method, k = config.spec_method, config.num_speculative_tokens
    if method is SpecMethod.DFLASH or (method is SpecMethod.DSPARK
                                       and not config.dspark_sample_from_anchor):
        return k + 1
    if method in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP, SpecMethod.DSPARK,
                  SpecMethod.DRAFT_MODEL):
        return k
    return 0  # ngram, ngram_gpu, suffix, extract_hidden_states: no draft KV slots


def target_buffer_specs(config: EngineSettings) -> list[BufferSpec]:
    """The target runner's inputs: token-axis [T] and request-axis [S] arrays."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    tokens, reqs = Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS
    width = block_table_width(config.max_model_len, config.block_size)
    if config.runner is Runner.V2:
        src = "v1/worker/gpu/input_batch.py:29-39 (InputBuffers)"
        multimodal = [  # graphfit's multimodal models use M-RoPE (the V1 runner's pair too)
            BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tokens), T, ZERO,
                       trailing=(H,), source="v1/worker/gpu/mm/encoder_runner.py:58-60"),
            BufferSpec("mrope_positions", "int64", Axis.TOKENS, _on(tokens, 1), T + 1, ZERO,
                       leading=(config.mrope_dims,),
                       source="v1/worker/gpu/mm/rope.py:52-54 (RopeState.positions)"),
        ] if config.multimodal else []
        return [*multimodal,
            BufferSpec("input_ids", "int32", Axis.TOKENS, _on(tokens), T, ZERO, source=src),
            BufferSpec("positions", "int64", Axis.TOKENS, _on(tokens), T, ZERO, source=src),
            BufferSpec("is_padding", "bool", Axis.TOKENS, _on(tokens), T, PAD_TRUE,
                       safe_fills=ONLY_SENTINEL, source=src),
            BufferSpec("query_start_loc", "int32", Axis.REQUESTS, _on(reqs, 1), S + 1,
                       REPEAT_LAST, safe_fills=ONLY_COPY, source=src),
            BufferSpec("seq_lens", "int32", Axis.REQUESTS, _on(reqs), S, ZERO,
                       safe_fills=ONLY_ZERO, source=src),
            BufferSpec("dcp_local_seq_lens", "int32", Axis.REQUESTS, _on(reqs), S, ZERO,
                       source=src),
            BufferSpec("slot_mapping", "int64", Axis.TOKENS, _on(tokens), T, PAD_SLOT,
                       safe_fills=ONLY_SENTINEL,
                       source="v1/worker/gpu/block_table.py:90 (slot_mappings, per group)"),
            BufferSpec("block_table", "int32", Axis.REQUESTS, _on(reqs), S, KEEP,
                       trailing=(width,), source="v1/worker/gpu/model_runner.py:664-674"),
        ]
    src = "v1/worker/gpu_model_runner.py"
    specs = [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(tokens), T, ZERO, source=f"{src}:774"),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(tokens), T, ZERO, source=f"{src}:778"),
        BufferSpec("is_padding", "bool", Axis.TOKENS, _on(tokens), T, PAD_TRUE,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:781"),
        BufferSpec("slot_mapping", "int64", Axis.TOKENS, _on(tokens), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL, source="v1/worker/block_table.py (per group)"),
        BufferSpec("req_indices", "int64", Axis.TOKENS, _on(tokens), T, ZERO,
                   source=f"{src}:801"),
        BufferSpec("is_token_ids", "bool", Axis.TOKENS, _on(tokens), T, ZERO,
                   source=f"{src}:820"),
        BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tokens), T, ZERO,
                   trailing=(H,), source=f"{src}:817 (always allocated)"),
        BufferSpec("query_pos", "int64", Axis.TOKENS, (Demand(tokens), Demand(reqs, 1)),
                   max(S + 1, T), ZERO, source=f"{src}:852-854"),
        BufferSpec("query_start_loc", "int32", Axis.REQUESTS, _on(reqs, 1), S + 1, REPEAT_LAST,
                   safe_fills=ONLY_COPY, source=f"{src}:784"),
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, _on(reqs), S, ZERO, safe_fills=ONLY_ZERO,
                   source=f"{src}:787"),
        BufferSpec("num_computed_tokens", "int32", Axis.REQUESTS, _on(reqs), S, ZERO,
                   source=f"{src}:793"),
        BufferSpec("num_accepted_tokens", "int32", Axis.REQUESTS, _on(reqs), S, ONE,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:827-835 (sliced at the padded "
                   "request count; padded rows must hold 1)"),
        BufferSpec("block_table", "int32", Axis.REQUESTS, _on(reqs), S, KEEP, trailing=(width,),
                   source="v1/worker/block_table.py:29-41, 236-245 (128-token aligned)"),
    ]
    if config.multimodal:
        specs.append(BufferSpec("mrope_positions", "int64", Axis.TOKENS, _on(tokens, 1), T + 1,
                                ZERO, leading=(config.mrope_dims,), source=f"{src}:846"))
    if config.spec_method is SpecMethod.NGRAM_GPU:
        M = config.max_model_len
        specs += [
            BufferSpec("ngram_token_ids", "int32", Axis.REQUESTS, _on(reqs), S, KEEP,
                       trailing=(M,), source=f"{src}:627-632"),
            BufferSpec("ngram_num_tokens_no_spec", "int32", Axis.REQUESTS, _on(reqs), S, KEEP,
                       source=f"{src}:624-626"),
        ]
    return specs


def _draft_hidden(config: EngineSettings) -> int:
    """The draft model's hidden size (its hidden_states rows' width); the target's if unset."""
    return config.draft_hidden_size or config.hidden_size


def _v1_base_drafter_specs(config: EngineSettings) -> list[BufferSpec]:
    """`SpecDecodeBaseProposer.__init__` (v1/spec_decode/llm_base_proposer.py:73-300)."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, _draft_hidden(config)
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    src = "v1/spec_decode/llm_base_proposer.py"
    method = config.spec_method
    specs = [BufferSpec("input_ids", "int32", Axis.TOKENS, _on(tok), T, ZERO,
                        source=f"{src}:198")]
    if config.multimodal and method in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP):
        # the draft of a multimodal target uses M-RoPE: [dims, max_positions + 1]
        specs.append(BufferSpec("mrope_positions", "int64", Axis.TOKENS, _on(tok, 1), T + 1,
                                ZERO, leading=(config.mrope_dims,), source=f"{src}:203-218"))
    else:
        specs.append(BufferSpec("positions", "int64", Axis.TOKENS, _on(tok), T, ZERO,
                                source=f"{src}:220-224"))
    specs += [
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(tok), T, ZERO, trailing=(H,),
                   source=f"{src}:225"),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(tok), Demand(req, 1)),
                   max(S + 1, T), KEEP, init="arange", source=f"{src}:233-236"),
    ]
    if method is SpecMethod.DRAFT_MODEL:  # one extra input slot per request
        specs += [
            BufferSpec("is_rejected_token_mask", "bool", Axis.TOKENS, _on(tok), T, ZERO,
                       source=f"{src}:246-250"),
            BufferSpec("is_masked_token_mask", "bool", Axis.TOKENS, _on(tok), T, ZERO,
                       source=f"{src}:253-255"),
        ]
    specs += [
        BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tok), T, ZERO,
                   trailing=(H,), source=f"{src}:257-261 (always allocated)"),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _on(req), S, KEEP,
                   source=f"{src}:263-268"),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _on(tok), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:275-277"),
    ]
    return specs


def _v1_extract_specs(config: EngineSettings) -> list[BufferSpec]:
    """`ExtractHiddenStatesProposer.__init__` (v1/spec_decode/extract_hidden_states.py:29-82):
    buffers of T + S rows."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    src = "v1/spec_decode/extract_hidden_states.py"
    return [
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(tok), T + S, ZERO,
                   trailing=(H,), source=f"{src}:71-75 (x the number of extracted layers)"),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _on(tok), T + S, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:78-80"),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _on(req), S, KEEP,
                   source=f"{src}:58-60"),
    ]


def _v1_dflash_specs(config: EngineSettings, config_max_capture: int) -> list[BufferSpec]:
    """V1 DFlash (v1/spec_decode/dflash.py:24-87): a query of q tokens per request attends to
    the context KV; vLLM sizes the query buffers max(S*q, max capture) (the #50065 fix).
    """
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, _draft_hidden(config)
    q = config.uniform_query_len
    query, ctx, req = Stream.DRAFT_QUERY, Stream.CONTEXT, Stream.DRAFTER_REQUESTS
    ref_padded = max(S * q, config_max_capture)
    src = "v1/spec_decode/dflash.py"
    base = "v1/spec_decode/llm_base_proposer.py"
    specs = [
        # the query ids live in the base class's [T] buffer
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(query), T, ZERO, source=f"{base}:198"),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(query), ref_padded, ZERO,
                   source=f"{src}:40-67"),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _on(query), ref_padded,
                   PAD_SLOT, safe_fills=ONLY_SENTINEL, source=f"{src}:52-56"),
        BufferSpec("context_positions", "int64", Axis.TOKENS, _on(ctx), T, ZERO,
                   source=f"{src}:57-61"),
        BufferSpec("context_slot_mapping", "int64", Axis.TOKENS, _on(ctx), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:47-51"),
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(ctx), T, ZERO,
                   trailing=(H,), source=f"{base}:225"),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(query, T + 1), Demand(req, 1)),
                   T + ref_padded + 1, KEEP, init="arange", source=f"{src}:68-70"),
        BufferSpec("is_rejected_token_mask", "bool", Axis.TOKENS, _on(ctx), T, ZERO,
                   source=f"{base}:246-250"),
        BufferSpec("is_masked_token_mask", "bool", Axis.TOKENS, _on(ctx), T, ZERO,
                   source=f"{base}:253-255"),
        BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(query), T, ZERO,
                   trailing=(H,), source=f"{base}:257-261 (always allocated)"),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _on(req), S, KEEP,
                   source=f"{base}:263-268"),
    ]
    return specs


def _v2_input_buffers(config: EngineSettings, stream: Stream) -> list[BufferSpec]:
    """A speculator's own `InputBuffers` (v1/worker/gpu/input_batch.py:29-39) and the
    per-request state of `DraftModelSpeculator.__init__` (spec_decode/speculator.py:149-168)."""
    S, T, k = config.max_num_seqs, config.max_num_batched_tokens, config.num_speculative_tokens
    req = Stream.DRAFTER_REQUESTS
    src = "v1/worker/gpu/input_batch.py:29-39"
    spec_src = "v1/worker/gpu/spec_decode/speculator.py"
    return [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(stream), T, ZERO, source=src),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(stream), T, ZERO, source=src),
        BufferSpec("is_padding", "bool", Axis.TOKENS, _on(stream), T, PAD_TRUE,
                   safe_fills=ONLY_SENTINEL, source=src),
        BufferSpec("query_start_loc", "int32", Axis.REQUESTS, _on(req, 1), S + 1, REPEAT_LAST,
                   safe_fills=ONLY_COPY, source=src),
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, _on(req), S, ZERO, safe_fills=ONLY_ZERO,
                   source=src),
        BufferSpec("dcp_local_seq_lens", "int32", Axis.REQUESTS, _on(req), S, ZERO, source=src),
        BufferSpec("idx_mapping", "int64", Axis.REQUESTS, _on(req), S, ZERO,
                   source=f"{spec_src}:154-156"),
        BufferSpec("temperature", "float32", Axis.REQUESTS, _on(req), S, ZERO,
                   source=f"{spec_src}:157-159"),
        BufferSpec("seeds", "int64", Axis.REQUESTS, _on(req), S, ZERO, source=f"{spec_src}:160"),
        BufferSpec("draft_tokens", "int64", Axis.REQUESTS, _on(req), S, ZERO, trailing=(k,),
                   source=f"{spec_src}:161-166"),
        BufferSpec("draft_token_confidence_probs", "float32", Axis.REQUESTS, _on(req), S, ZERO,
                   trailing=(k,), source=f"{spec_src}:170-172"),
    ]


def _v2_dflash_specs(config: EngineSettings, aux_staging: bool = True) -> list[BufferSpec]:
    """`DFlashSpeculator` (v1/worker/gpu/spec_decode/dflash/speculator.py:40-125, 282-287)
    on `DraftModelSpeculator`: no arange, no backup ids. Its query slot mapping is the
    target's shared BlockTables.slot_mappings (the target's `slot_mapping`)."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, _draft_hidden(config)
    k = config.num_speculative_tokens
    src = "v1/worker/gpu/spec_decode/dflash/speculator.py"
    specs = _v2_input_buffers(config, Stream.DRAFT_QUERY)
    specs += [
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(Stream.CONTEXT), T, ZERO,
                   trailing=(H,), source=f"{src}:55-57"),
        BufferSpec("context_positions", "int64", Axis.TOKENS, _on(Stream.CONTEXT), T, ZERO,
                   source=f"{src}:90-92"),
        BufferSpec("context_slot_mapping", "int64", Axis.TOKENS, _on(Stream.CONTEXT), T,
                   PAD_SLOT, safe_fills=ONLY_SENTINEL, source=f"{src}:282-287 (per group)"),
        BufferSpec("sample_indices", "int64", Axis.FIXED, (), S * k, ZERO,
                   source=f"{src}:108-110 (filled whole: prepare kernel pads to S*k)"),
        BufferSpec("sample_pos", "int64", Axis.FIXED, (), S * k, ZERO, source=f"{src}:111-113"),
        BufferSpec("sample_idx_mapping", "int64", Axis.FIXED, (), S * k, NO_SAMPLE,
                   source=f"{src}:117-119"),
        BufferSpec("sample_col", "int32", Axis.FIXED, (), S * k, KEEP, source=f"{src}:122-124"),
    ]
    layers = 1 if config.draft_aux_layers is None else config.draft_aux_layers
    if aux_staging and layers and config.cudagraph_mode.decode_mode is CUDAGraphMode.FULL:
        # the FULL graph's staged target aux hidden states, len(aux_layers) x hidden wide,
        # allocated from the configured mode, before vLLM resolves it; none when the draft
        # config names no aux layer
        specs.append(BufferSpec("aux_staging", config.dtype, Axis.FIXED, (),
                                min(S * (k + 1), T), ZERO,
                                trailing=(layers * config.hidden_size,),
                                source=f"{src}:96-106"))
    if config.spec_method is SpecMethod.DSPARK:
        dspark = "v1/worker/gpu/spec_decode/dspark/speculator.py"
        specs += [
            BufferSpec("anchor_idx", "int64", Axis.REQUESTS, _on(Stream.DRAFTER_REQUESTS), S,
                       KEEP, source=f"{dspark}:66-69 (arange x query per request)"),
            BufferSpec("step_cols", "int32", Axis.FIXED, (), k, KEEP, source=f"{dspark}:62-64"),
        ]
    return specs


def _v2_ar_specs(config: EngineSettings) -> list[BufferSpec]:
    """`TargetDependentARSpeculator` (EAGLE, EAGLE3, MTP: spec_decode/target_dependent_ar/
    speculator.py:33-57) on `DraftModelSpeculator`."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, _draft_hidden(config)
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    src = "v1/worker/gpu/spec_decode/target_dependent_ar/speculator.py"
    specs = _v2_input_buffers(config, tok)
    specs += [
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(tok), T, ZERO, trailing=(H,),
                   source=f"{src}:36-38"),
        BufferSpec("last_token_indices", "int64", Axis.REQUESTS, _on(req), S, ZERO,
                   source=f"{src}:40-42"),
        BufferSpec("sample_src_positions", "int64", Axis.REQUESTS, _on(req), S, ZERO,
                   source=f"{src}:43-45"),
    ]
    if config.multimodal:
        specs.append(BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tok), T, ZERO,
                                trailing=(H,), source=f"{src}:56-58 (multimodal drafts)"))
    return specs


def _v2_draft_model_specs(config: EngineSettings) -> list[BufferSpec]:
    """`StandaloneARSpeculator` (spec_decode/standalone_ar/speculator.py:41-98): the expanded
    step-0 batch (accepted + correction + rejected slots) in [T + S] buffers; no graphs."""
    S, T = config.max_num_seqs, config.max_num_batched_tokens
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    src = "v1/worker/gpu/spec_decode/standalone_ar/speculator.py"
    specs = _v2_input_buffers(config, tok)
    specs += [
        BufferSpec("expanded_input_ids", "int32", Axis.TOKENS, _on(tok), T + S, ZERO,
                   source=f"{src}:57-60"),
        BufferSpec("expanded_positions", "int64", Axis.TOKENS, _on(tok), T + S, ZERO,
                   source=f"{src}:61-63"),
        BufferSpec("expanded_slot_mappings", "int64", Axis.TOKENS, _on(tok), T + S, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL, source=f"{src}:94-98 (per group)"),
        BufferSpec("last_token_indices", "int64", Axis.REQUESTS, _on(req), S, ZERO,
                   source=f"{src}:47-49"),
        BufferSpec("arange_gpu", "int32", Axis.REQUESTS, _on(req, 1), S + 1, KEEP,
                   init="arange", source=f"{src}:51-53"),
    ]
    return specs


def _v2_extract_specs(config: EngineSettings) -> list[BufferSpec]:
    """`ExtractHiddenStatesSpeculator` (v1/worker/gpu/spec_decode/extract_hidden_states.py:
    21-58): no graphs."""
    T, H = config.max_num_batched_tokens, config.hidden_size
    tok = Stream.DRAFTER_TOKENS
    specs = _v2_input_buffers(config, tok)
    specs.append(BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(tok), T, ZERO,
                            trailing=(H,), source="v1/worker/gpu/spec_decode/"
                            "extract_hidden_states.py:52-58 (x the number of extracted layers)"))
    return specs


def ngram_blocks(max_model_len: int) -> int:
    """`NgramGPUSpeculator`'s scratch blocks per request (ngram/speculator.py:183-192)."""
    L = max_model_len
    if L >= 1024:
        block = 256
    elif L >= 256:
        block = 128
    elif L >= 64:
        block = 64
    else:
        block = max(16, 1 << max(L - 1, 0).bit_length())
    return -(-L // block)


def _v2_ngram_specs(config: EngineSettings) -> list[BufferSpec]:
    """`NgramGPUSpeculator` (v1/worker/gpu/spec_decode/ngram/speculator.py:164-207), MRV2's
    speculator for ngram and ngram_gpu: request-axis scratch and drafts, no graphs."""
    S, k = config.max_num_seqs, config.num_speculative_tokens
    req = Stream.DRAFTER_REQUESTS
    src = "v1/worker/gpu/spec_decode/ngram/speculator.py"
    return [
        BufferSpec("scratch", "int64", Axis.REQUESTS, _on(req), S, ZERO,
                   trailing=(ngram_blocks(config.max_model_len),), source=f"{src}:194-196"),
        BufferSpec("drafts", "int64", Axis.REQUESTS, _on(req), S, ZERO, trailing=(k,),
                   source=f"{src}:199-203"),
    ]


def suffix_blocks(max_model_len: int) -> int:
    """The V2 `SuffixSpeculator`'s scratch blocks per request (0.34:
    suffix/speculator.py:521-528): blocks of 256 tokens from 1024, 128 from 256, else one
    power-of-two block of at least 16."""
    L = max_model_len
    if L >= 1024:
        block = 256
    elif L >= 256:
        block = 128
    else:
        block = max(16, 1 << max(L - 1, 0).bit_length())
    return -(-L // block)


# 0.34 suffix decoding's defaults (config/speculative.py:584-592) and table constants
# (suffix/speculator.py:50, 58)
SUFFIX_CORPUS_TOKENS = 1 << 20
SUFFIX_BUCKET_SLOTS = 8
SUFFIX_LEN_BUCKETS = 9
UNSET = FillPolicy(FillKind.SENTINEL, -1)


def _v2_suffix_specs(config: EngineSettings) -> list[BufferSpec]:
    """vLLM 0.34's V2 `SuffixSpeculator` (suffix/speculator.py:499-596): per-request drafts
    and statistics, and a corpus of finished responses with its hash table (fixed sizes,
    vLLM's defaults: 2**20 corpus tokens, 10000 cached requests)."""
    S, k = config.max_num_seqs, config.num_speculative_tokens
    req = _on(Stream.DRAFTER_REQUESTS)
    src = "v1/worker/gpu/spec_decode/suffix/speculator.py"
    buckets = 1 << max(max(16, SUFFIX_CORPUS_TOKENS // 4) - 1, 0).bit_length()
    return [
        BufferSpec("scratch", "int64", Axis.REQUESTS, req, S, ZERO,
                   trailing=(suffix_blocks(config.max_model_len),), source=f"{src}:529-531"),
        BufferSpec("corpus", "int32", Axis.FIXED, (), SUFFIX_CORPUS_TOKENS, UNSET,
                   source=f"{src}:536-554"),
        BufferSpec("table", "int64", Axis.FIXED, (), 2, UNSET,
                   trailing=(buckets, SUFFIX_BUCKET_SLOTS), source=f"{src}:555-560"),
        BufferSpec("corpus_head", "int64", Axis.FIXED, (), 1, ZERO, source=f"{src}:561"),
        BufferSpec("doc_seq", "int64", Axis.FIXED, (), 1, ZERO, source=f"{src}:562"),
        BufferSpec("ingest_out", "int64", Axis.FIXED, (), 2, ZERO, source=f"{src}:565"),
        BufferSpec("drafts", "int64", Axis.REQUESTS, req, S, ZERO, trailing=(k,),
                   source=f"{src}:569-573"),
        BufferSpec("num_valid", "int32", Axis.REQUESTS, req, S, ZERO, source=f"{src}:575-577"),
        BufferSpec("draft_token_confidence_probs", "float32", Axis.REQUESTS, req, S, ZERO,
                   trailing=(k,), source=f"{src}:582-586"),
        BufferSpec("accept_stats", "int64", Axis.FIXED, (), 2 * SUFFIX_LEN_BUCKETS, ZERO,
                   trailing=(k, 2), source=f"{src}:587-591"),
        BufferSpec("last_bucket", "int32", Axis.REQUESTS, req, S, UNSET,
                   source=f"{src}:592-594"),
        BufferSpec("last_valid", "int32", Axis.REQUESTS, req, S, ZERO, source=f"{src}:595-597"),
    ]


def drafter_buffer_specs(config: EngineSettings, config_max_capture: int,
                         aux_staging: bool = True) -> list[BufferSpec]:
    """The drafter's buffers for the config's method and runner (empty: no drafter).
    `aux_staging`: the release's MRV2 DFlash stages the target's aux hidden states (0.33+)."""
    method = config.spec_method
    if config.runner is Runner.V2:
        if method in (SpecMethod.DFLASH, SpecMethod.DSPARK):
            return _v2_dflash_specs(config, aux_staging)
        if method in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP):
            return _v2_ar_specs(config)
        if method is SpecMethod.DRAFT_MODEL:
            return _v2_draft_model_specs(config)
        if method is SpecMethod.EXTRACT_HIDDEN_STATES:
            return _v2_extract_specs(config)
        if method in (SpecMethod.NGRAM, SpecMethod.NGRAM_GPU):
            return _v2_ngram_specs(config)
        if method is SpecMethod.SUFFIX:  # on V2 from 0.34 (0.33 rejects suffix on V2)
            return _v2_suffix_specs(config)
        return []
    if method is SpecMethod.DFLASH:
        return _v1_dflash_specs(config, config_max_capture)
    if method is SpecMethod.EXTRACT_HIDDEN_STATES:
        return _v1_extract_specs(config)
    if method in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP, SpecMethod.DRAFT_MODEL):
        return _v1_base_drafter_specs(config)
    return []  # ngram, suffix (CPU); ngram_gpu's V1 buffers belong to the runner
