"""vLLM 0.33's persistent buffers of the target runner and of each drafter (domain.md §4).

Each spec says which streams feed it, how graphfit's runtime fills its padded tail, which
fills are safe there, and what vLLM's own formula allocates (`reference_capacity`), so a plan
shows the saving and an audit can replay vLLM's bugs.
"""

from __future__ import annotations

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
)
from graphfit.planner.core.enums import Runner, SpecMethod
from graphfit.planner.core.settings import EngineSettings


def _on(stream: Stream, offset: int = 0) -> tuple[Demand, ...]:
    return (Demand(stream, offset),)


def target_buffer_specs(config: EngineSettings) -> list[BufferSpec]:
    """GPU model runner inputs: token-axis [T] and request-axis [S] arrays."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    tokens, reqs = Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS
    blocks = -(-config.max_model_len // config.block_size)
    specs = [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(tokens), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(tokens), T, ZERO),
        BufferSpec("is_padding", "bool", Axis.TOKENS, _on(tokens), T, PAD_TRUE,
                   safe_fills=ONLY_SENTINEL),
        BufferSpec("slot_mapping", "int64", Axis.TOKENS, _on(tokens), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL),
        BufferSpec("query_start_loc", "int32", Axis.REQUESTS, _on(reqs, 1), S + 1, REPEAT_LAST,
                   safe_fills=ONLY_COPY),
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, _on(reqs), S, ZERO, safe_fills=ONLY_ZERO),
        BufferSpec("block_table", "int32", Axis.REQUESTS, _on(reqs), S, KEEP,
                   trailing=(blocks,)),
    ]
    if config.multimodal:
        specs += [
            BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tokens), T, ZERO,
                       trailing=(H,)),
            BufferSpec("mrope_positions", "int64", Axis.TOKENS, _on(tokens, 1), T + 1, ZERO,
                       leading=(config.mrope_dims,)),
        ]
    return specs


def _base_drafter_specs(config: EngineSettings) -> list[BufferSpec]:
    S, T = config.max_num_seqs, config.max_num_batched_tokens
    H = config.draft_hidden_size or config.hidden_size  # the draft model's width
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    specs = [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(tok), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(tok), T, ZERO),
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(tok), T, ZERO,
                   trailing=(H,)),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(tok), Demand(req, 1)),
                   max(S + 1, T), KEEP, init="arange"),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _on(tok), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _on(req), S, KEEP),
    ]
    if config.multimodal:
        specs.append(BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(tok), T, ZERO,
                                trailing=(H,)))
    return specs


def _dflash_specs(config: EngineSettings, config_max_capture: int) -> list[BufferSpec]:
    """DFlash: a query of q tokens per request attends to the context KV.

    vLLM 0.33 sizes the query buffers max(S*q, max capture) (the #50065 fix); the V2 model
    runner sizes them T.
    """
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    q = config.uniform_query_len
    query, ctx, req = Stream.DRAFT_QUERY, Stream.CONTEXT, Stream.DRAFTER_REQUESTS
    ref_padded = T if config.runner is Runner.V2 else max(S * q, config_max_capture)
    ref_positions = T + ref_padded
    specs = [
        # the query ids live in the base class's [T] buffer
        BufferSpec("input_ids", "int32", Axis.TOKENS, _on(query), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _on(query), ref_padded, ZERO),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _on(query), ref_padded,
                   PAD_SLOT, safe_fills=ONLY_SENTINEL),
        BufferSpec("context_positions", "int64", Axis.TOKENS, _on(ctx), T, ZERO),
        BufferSpec("context_slot_mapping", "int64", Axis.TOKENS, _on(ctx), T, PAD_SLOT,
                   safe_fills=ONLY_SENTINEL),
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _on(ctx), T, ZERO,
                   trailing=(H,)),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(query, T + 1), Demand(req, 1)),
                   ref_positions + 1, KEEP, init="arange"),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _on(req), S, KEEP),
    ]
    if config.multimodal:
        specs.append(BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _on(query), T,
                                ZERO, trailing=(H,)))
    return specs


def drafter_buffer_specs(config: EngineSettings, config_max_capture: int) -> list[BufferSpec]:
    """The drafter's buffers for the config's method; empty for ngram and no speculation."""
    method = config.spec_method
    if not method.has_drafter_model:
        return []
    if method is SpecMethod.DFLASH:
        return _dflash_specs(config, config_max_capture)
    return _base_drafter_specs(config)
