"""The persistent buffers of vLLM's target runner and of each drafter (domain.md §3).

Each spec says which batch streams feed it (`demands`), how its padded tail is filled, and
what vLLM 0.33's own formula allocates (`reference_capacity`), so a plan can show the saving
and an audit can replay vLLM's bugs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from graphfit.planner.config import EngineConfig
from graphfit.planner.enums import Runner, SpecMethod
from graphfit.planner.errors import ConfigError
from graphfit.planner.streams import Stream

PAD_SLOT_ID = -1  # vLLM's slot id for padded tokens: the KV-cache write skips it


class Axis(str, Enum):
    """The dimension that scales with the batch."""

    TOKENS = "tokens"
    REQUESTS = "requests"
    FIXED = "fixed"


class FillKind(str, Enum):
    """What the padded tail `[n, padded)` holds when a graph replays."""

    KEEP = "keep"  # leave whatever is there (only for rows nothing reads)
    ZERO = "zero"
    SENTINEL = "sentinel"  # a marker value, e.g. slot id -1 so no KV write happens
    COPY_REAL_ROWS = "copy-real-rows"  # repeat the last real row (keeps cumsums monotone)


@dataclass(frozen=True)
class FillPolicy:
    kind: FillKind = FillKind.ZERO
    value: float = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", FillKind(self.kind))

    def describe(self) -> str:
        if self.kind is FillKind.SENTINEL:
            return f"sentinel({self.value:g})"
        return str(self.kind.value)


ZERO = FillPolicy(FillKind.ZERO)
KEEP = FillPolicy(FillKind.KEEP)
REPEAT_LAST = FillPolicy(FillKind.COPY_REAL_ROWS)
PAD_SLOT = FillPolicy(FillKind.SENTINEL, PAD_SLOT_ID)
PAD_TRUE = FillPolicy(FillKind.SENTINEL, 1)


@dataclass(frozen=True)
class Demand:
    """Rows a buffer needs for one stream: the stream's padded size plus a constant."""

    stream: Stream
    offset: int = 0


@dataclass(frozen=True)
class BufferSpec:
    """One persistent buffer before sizing.

    `leading` dims come before the scaled axis (mrope's 3 rows), `trailing` after it (hidden).
    `init` is "arange" for index buffers the runtime fills once with 0, 1, 2, ...
    """

    name: str
    dtype: str
    axis: Axis
    demands: tuple[Demand, ...]
    reference_capacity: int
    fill: FillPolicy = ZERO
    leading: tuple[int, ...] = ()
    trailing: tuple[int, ...] = ()
    init: str = "zeros"
    source: str = ""

    def __post_init__(self) -> None:
        if self.axis is not Axis.FIXED and not self.demands:
            raise ConfigError(f"{self.name}: a scaled buffer needs at least one demand")
        if self.init not in ("zeros", "arange"):
            raise ConfigError(f"{self.name}: init must be zeros or arange")


def _tok(stream: Stream, offset: int = 0) -> tuple[Demand, ...]:
    return (Demand(stream, offset),)


def target_buffer_specs(config: EngineConfig) -> list[BufferSpec]:
    """GPU model runner inputs: token-axis [T] and request-axis [S] arrays."""
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    tokens, reqs = Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS
    blocks = -(-config.max_model_len // config.block_size)
    specs = [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _tok(tokens), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _tok(tokens), T, ZERO),
        BufferSpec("is_padding", "bool", Axis.TOKENS, _tok(tokens), T, PAD_TRUE),
        BufferSpec("slot_mapping", "int64", Axis.TOKENS, _tok(tokens), T, PAD_SLOT),
        BufferSpec("query_start_loc", "int32", Axis.REQUESTS, _tok(reqs, 1), S + 1, REPEAT_LAST),
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, _tok(reqs), S, ZERO),
        BufferSpec("block_table", "int32", Axis.REQUESTS, _tok(reqs), S, KEEP,
                   trailing=(blocks,)),
    ]
    if config.multimodal:
        specs += [
            BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _tok(tokens), T, ZERO,
                       trailing=(H,)),
            BufferSpec("mrope_positions", "int64", Axis.TOKENS, _tok(tokens, 1), T + 1, ZERO,
                       leading=(config.mrope_dims,)),
        ]
    return specs


def _base_drafter_specs(config: EngineConfig) -> list[BufferSpec]:
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    tok, req = Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS
    specs = [
        BufferSpec("input_ids", "int32", Axis.TOKENS, _tok(tok), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _tok(tok), T, ZERO),
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _tok(tok), T, ZERO,
                   trailing=(H,)),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(tok), Demand(req, 1)),
                   max(S + 1, T), KEEP, init="arange"),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _tok(tok), T, PAD_SLOT),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _tok(req), S, KEEP),
    ]
    if config.multimodal:
        specs.append(BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _tok(tok), T, ZERO,
                                trailing=(H,)))
    return specs


def _dflash_specs(config: EngineConfig, config_max_capture: int) -> list[BufferSpec]:
    """DFlash: a query of q tokens per request attends to the context KV.

    vLLM 0.33 sizes the query buffers max(S*q, max capture) (the #50065 fix); the V2 model
    runner sizes them T, short whenever S*q > T (#53970).
    """
    S, T, H = config.max_num_seqs, config.max_num_batched_tokens, config.hidden_size
    q = config.uniform_query_len
    query, ctx, req = Stream.DRAFT_QUERY, Stream.CONTEXT, Stream.DRAFTER_REQUESTS
    ref_padded = T if config.runner is Runner.V2 else max(S * q, config_max_capture)
    ref_positions = T + ref_padded
    specs = [
        # the query ids live in the base class's [T] buffer
        BufferSpec("input_ids", "int32", Axis.TOKENS, _tok(query), T, ZERO),
        BufferSpec("positions", "int64", Axis.TOKENS, _tok(query), ref_padded, ZERO),
        BufferSpec("slot_mapping_buffer", "int64", Axis.TOKENS, _tok(query), ref_padded,
                   PAD_SLOT),
        BufferSpec("context_positions", "int64", Axis.TOKENS, _tok(ctx), T, ZERO),
        BufferSpec("context_slot_mapping", "int64", Axis.TOKENS, _tok(ctx), T, PAD_SLOT),
        BufferSpec("hidden_states", config.dtype, Axis.TOKENS, _tok(ctx), T, ZERO,
                   trailing=(H,)),
        BufferSpec("arange", "int32", Axis.TOKENS, (Demand(query, T + 1), Demand(req, 1)),
                   ref_positions + 1, KEEP, init="arange"),
        BufferSpec("backup_next_token_ids", "int32", Axis.REQUESTS, _tok(req), S, KEEP),
    ]
    if config.multimodal:
        specs.append(BufferSpec("inputs_embeds", config.dtype, Axis.TOKENS, _tok(query), T,
                                ZERO, trailing=(H,)))
    return specs


def drafter_buffer_specs(config: EngineConfig, config_max_capture: int) -> list[BufferSpec]:
    """The drafter's buffers for the config's method; empty for ngram and no speculation."""
    method = config.spec_method
    if not method.has_drafter_model:
        return []
    if method is SpecMethod.DFLASH:
        return _dflash_specs(config, config_max_capture)
    return _base_drafter_specs(config)


def stream_reach(config: EngineConfig, stream: Stream) -> int:
    """The largest unpadded size a stream can carry (its batches are 1..reach)."""
    S, T = config.max_num_seqs, config.max_num_batched_tokens
    if stream is Stream.DRAFTER_TOKENS:
        # the draft model re-reads every scheduled token plus one sampled token per
        # sequence (#32591): up to T + S tokens, not T
        return T + S if config.spec_method is SpecMethod.DRAFT_MODEL else T
    if stream is Stream.DRAFT_QUERY:
        return S * config.uniform_query_len
    if stream.on_requests:
        return S
    return T
