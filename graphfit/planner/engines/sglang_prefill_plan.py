"""SGLang's prefill graph runner as a component of the plan.

`sglang_prefill` resolves SGLang's prefill graphs (backend, token ladder, captured counts,
replay rule, buffers). This module turns them into a `ComponentModel` named "prefill" that the
shared planning path sizes, proves and hands to graphfit's runtime like any other:

* dispatch: token-keyed. A prefill of n tokens replays the smallest captured count >= n,
  unless n is above the largest or the padding would more than double it
  (prefill_cuda_graph_runner.py:158, 1413-1421): a per-size floor of ceil(size / 2) tokens in
  the dispatch tables (`DispatchTables.min_tokens`). The full backend replays only batches of
  at most its request slots (:1363-1364: `DispatchTables.max_graph_requests`). Under CP's
  own graphs a one-request prefill of fewer than 2 x cp tokens runs eagerly (CP is off,
  `sglang_prefill_cp_bcg.floor`); `PrefillGraphs.replays_cp` is the bucket a batch of
  several requests replays (issue 23 s60r). Breakable
  graphs run attention eagerly between captured pieces, so they are PIECEWISE graphs keyed on
  tokens alone; the full backend's are FULL graphs.
* buffers: `PrefillInputBuffers.create` (runner_utils/buffers.py:286-372) with
  max_num_tokens = the largest captured count and max_bs = the request pool
  (prefill_cuda_graph_runner.py:371-372), plus the six static per-request fields (:601-606);
  token-axis ones are zero-padded (`build_prefill_registry`,
  cuda_graph_buffer_registry.py:943-990). With the hybrid-mamba extra buffer, the three
  mamba tracking inputs (buffers.py:309-321, switch :705-708): copied for the real requests
  (FOREACH_COPY, registry :989-992), the full backend zeroing the mask and indices past them
  (prefill_cuda_graph_runner.py:2106-2112).
* batches: extend batches of 1..chunked_prefill_size tokens (one attention-DP group's chunk),
  each of up to min(tokens, pool) requests, and the capture of every captured count. Prefill
  batches that run eagerly never touch the runner's buffers (they are the graph runner's own).
"""

from __future__ import annotations

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import (
    KEEP,
    ONLY_ZERO,
    ZERO,
    Axis,
    BufferSpec,
    Demand,
    FillPolicy,
)
from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel
from graphfit.planner.engines.sglang_mamba_buffers import mamba_extra_buffer
from graphfit.planner.engines.sglang_mamba_pool import uses_kda
from graphfit.planner.engines.sglang_moe_a2a import runtime_backend
from graphfit.planner.engines.sglang_multimodal import breakable_prefill_refused, sglang_multimodal
from graphfit.planner.engines.sglang_pool import request_pool
from graphfit.planner.engines.sglang_prefill import (
    FULL,
    MLA_ARCHITECTURES,
    PADDING_FACTOR,
    PrefillBuffer,
    PrefillGraphs,
    PrefillInputs,
    declared_max_tokens,
    deepseek_v4_breakable_off,
    family_prefill_off,
    full_prefill_by_default,
    prefill_buffers,
    resolve_prefill,
    resolved_backend,
    sharing_prefill_off,
)
from graphfit.planner.engines.sglang_prefill_cp_bcg import INPUT_EMBEDS, POSITIONS, strategy_of
from graphfit.planner.engines.sglang_prefill_cp_bcg import floor as cp_floor
from graphfit.planner.engines.sglang_tbo import tbo_split_buffer

COMPONENT = "prefill"
# the tracking inputs the full backend zeroes past the real requests
# (prefill_cuda_graph_runner.py:2106-2112)
TRACK_TAIL_ZEROED = frozenset({"mamba_track_indices", "mamba_track_mask"})
_TOKEN_FILLS: dict[str, FillPolicy] = {  # build_prefill_registry: PaddingPolicy.ZERO
    "input_ids": ZERO, "positions": ZERO, "out_cache_loc": ZERO, "mrope_positions": ZERO,
    "input_embeds": ZERO}


def prefill_inputs(config: EngineSettings, *, sized: bool = True) -> PrefillInputs:
    """What SGLang's prefill-graph resolution reads, from graphfit's config (the request pool
    and context length bound the capture batch, cuda_graph_setup.py:578-603; `sized=False`
    leaves the pool out, for a start-up check that runs before the request limit is known)."""
    return PrefillInputs(
        backend=config.cuda_graph_backend_prefill,
        max_tokens=declared_max_tokens(config.architecture, config.cuda_graph_max_bs_prefill),
        tokens=config.cuda_graph_bs_prefill, chunked_prefill_size=config.chunked_prefill_size,
        max_total_tokens=config.max_total_tokens, pp_size=config.pp_size,
        gpu_memory_gb=config.gpu_memory_gb, tp_size=config.tp_size,
        attn_dp_size=config.attn_dp_size, attn_cp_size=config.attn_cp_size,
        two_batch_overlap=config.two_batch_overlap,
        disaggregation_mode=config.disaggregation_mode,
        mla=config.architecture in MLA_ARCHITECTURES,
        kda_breakable_off=uses_kda(config.architecture, config.mamba_state_shape),
        deepseek_v4_breakable_off=deepseek_v4_breakable_off(config.architecture),
        full_by_default=full_prefill_by_default(config.architecture),
        multimodal_breakable_off=breakable_prefill_refused(
            config.multimodal, config.architecture),
        request_pool=request_pool(config) if sized else None,
        context_length=config.max_model_len,
        full_max_requests=config.full_prefill_max_req, moe_a2a_backend=config.moe_a2a_backend,
        dcp=config.dcp_size > 1, runtime_a2a_backend=runtime_backend(config),
        cp_bcg=cp_bcg_strategy(config),
        family_prefill_off=family_prefill_off(  # issue 23 s60p
            config.prefill_cp_family, config.cuda_graph_backend_prefill, cp_bcg_strategy(config)),
        sharing_prefill_off=sharing_prefill_off(  # issue 23 s63p
            config.architecture, config.cp_tp_group_sharing),
        disable_attn_tp_gather=config.disable_attn_tp_gather,  # issue 23 s68l
        moe_dense_tp_size=config.moe_dense_tp_size)  # issue 23 s69c


def cp_bcg_strategy(config: EngineSettings) -> str | None:
    """The prefill-CP strategy when SGLang captures CP's own breakable prefill graphs
    (graphfit.planner.engines.sglang_prefill_cp_bcg.strategy_of; issue 23 s54g), else None."""
    return strategy_of(config)


def prefill_backend(config: EngineSettings) -> str:
    """The prefill backend SGLang's resolution leaves for `config` (sglang_prefill.
    resolved_backend), without the request pool."""
    return resolved_backend(prefill_inputs(config, sized=False))


def prefill_graphs(config: EngineSettings) -> PrefillGraphs:
    """SGLang's prefill graphs for `config`."""
    return resolve_prefill(prefill_inputs(config))


def prefill_tables(graphs: PrefillGraphs, pool: int) -> DispatchTables:
    """Token-keyed tables: every captured count, its 2x padding floor, the full backend's
    request slots; uniform decodes never reach this runner (mode NONE)."""
    sizes = graphs.captured
    mode = CUDAGraphMode.FULL if graphs.backend == FULL else CUDAGraphMode.PIECEWISE
    mixed = tuple(Dispatch(mode, s, None) for s in sizes)
    floors = tuple(-(-s // PADDING_FACTOR) for s in sizes)
    if graphs.cp_bcg is not None:  # fewer than 2 x cp tokens: CP is off, eager (issue 23 s60r)
        floors = tuple(max(f, cp_floor(graphs.cp_size)) for f in floors)
    limit = graphs.request_slots if graphs.backend == FULL else None
    return DispatchTables(sizes, mixed, (NO_GRAPH,) * len(sizes), 1, pool, True, floors,
                          limit)


def _spec(buf: PrefillBuffer, tokens: int, full: bool) -> BufferSpec:
    """A runner buffer as a BufferSpec: its axis is the one whose extent is the token or the
    request bound (mrope's 3 sections and hidden size stay fixed dims)."""
    name = buf.name
    if name == "num_token_non_padded":
        return BufferSpec(name, buf.dtype, Axis.FIXED, (), 1, KEEP,
                          source="prefill: set to the real token count at each replay "
                                 "(cuda_graph_buffer_registry.py:996-1010)")
    if name == "full_cg_seq_lens_cpu":
        return BufferSpec(name, buf.dtype, Axis.FIXED, (), buf.shape[0], KEEP,
                          source="prefill: host seq_lens of the full backend's fixed request "
                                 "slots (prefill_cuda_graph_runner.py:550-554)")
    if name in (INPUT_EMBEDS, POSITIONS):
        return BufferSpec(name, buf.dtype, Axis.TOKENS, (Demand(Stream.TARGET_TOKENS),),
                          tokens, ZERO, (), buf.shape[1:],
                          source="prefill: PrefillCPBCGInput's CP-local input (layers/cp/bcg/"
                                 "bcg.py:90-109), zeroed over the bucket's local rows before "
                                 "each copy (bcg.py:248-253)")
    if name in _TOKEN_FILLS:
        leading = buf.shape[:1] if name == "mrope_positions" else ()
        trailing = buf.shape[1:] if name == "input_embeds" else ()
        return BufferSpec(name, buf.dtype, Axis.TOKENS, (Demand(Stream.TARGET_TOKENS),),
                          tokens, _TOKEN_FILLS[name], leading, trailing,
                          source="prefill: PrefillInputBuffers.create (buffers.py:286-372), "
                                 "zero-padded (cuda_graph_buffer_registry.py:943-990)")
    if name in TRACK_TAIL_ZEROED:
        return BufferSpec(name, buf.dtype, Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                          buf.shape[0], ZERO if full else KEEP,
                          safe_fills=ONLY_ZERO if full else None,
                          source="prefill: mamba tracking input (buffers.py:309-321), copied "
                                 "for the real requests (registry FOREACH_COPY, cuda_graph_"
                                 "buffer_registry.py:989-992); the full backend zeroes its "
                                 "padded slots, a stale mask row would write an earlier "
                                 "request's checkpoint (prefill_cuda_graph_runner.py:2106-2112)")
    if name == "mamba_track_seqlens":
        return BufferSpec(name, buf.dtype, Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                          buf.shape[0], KEEP,
                          source="prefill: mamba tracking input (buffers.py:309-321), copied "
                                 "for the real requests only (registry FOREACH_COPY, "
                                 "cuda_graph_buffer_registry.py:989-992); its padded slots "
                                 "are read under a zero mask (prefill_cuda_graph_runner.py:"
                                 "2106-2112)")
    if name == "extend_start_loc":  # SGLang's full backend sets its tail to the real
        # token count, a value no fixed fill holds; nothing graphfit runs reads it stale
        return BufferSpec(name, buf.dtype, Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                          buf.shape[0], KEEP,
                          source="prefill: static per-request input; SGLang's full backend "
                                 "fills its padded slots with the real token count "
                                 "(prefill_cuda_graph_runner.py:2103)")
    return BufferSpec(name, buf.dtype, Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),),
                      buf.shape[0], ZERO, safe_fills=ONLY_ZERO if full else None,
                      source="prefill: a static per-request input, copied in for the real "
                             "requests (prefill_cuda_graph_runner.py:2085-2091); the full "
                             "backend's graph reads every slot, so SGLang zeroes the padded "
                             "ones (:2092-2105)")


def prefill_component(config: EngineSettings, graphs: PrefillGraphs
                      ) -> ComponentModel | None:
    """The prefill runner as a plan component (None when SGLang builds none)."""
    if not graphs.on or not graphs.captured:
        return None
    pool = request_pool(config)
    # the runner's is_multimodal is SGLang's ModelConfig's (prefill_cuda_graph_runner.py:337):
    # off for an architecture served text-only by default (Gemma 3, Llama 4, ...)
    buffers = prefill_buffers(graphs, pool, hidden_size=config.hidden_size, dtype=config.dtype,
                              multimodal=sglang_multimodal(config.multimodal,
                                                           config.architecture),
                              mamba_track=mamba_extra_buffer(config),
                              cp_bcg=cp_bcg_strategy(config) is not None)
    tokens = graphs.max_tokens
    specs = (*(_spec(b, tokens, graphs.backend == FULL) for b in buffers),
             tbo_split_buffer(COMPONENT))
    streams = frozenset({Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS})
    longest = max(graphs.chunked_prefill_size, tokens)
    families = (
        BatchFamily("prefill", streams, 1, 1, longest, Requests.UP_TO_TOKENS,
                    eager_writes=False),
        BatchFamily("capture", streams, 1, 1, tokens, Requests.UP_TO_TOKENS,
                    eager_writes=False, points=graphs.captured),
    )
    return ComponentModel(COMPONENT, Unit.TOKENS, prefill_tables(graphs, pool), specs,
                          families)
