"""SGLang 0.5.23's request pool when the KV cache may bind (`KVCacheConfigurator.
resolve_max_num_reqs`, mem_cache/kv_cache_configurator.py:3119-3133).

The pool (req_to_token_pool.size, the graph runners' request bound) per attention-DP group is
min(max_running_requests // attn_dp (at least 1), token_capacity // 2) when
--max-running-requests is given, else min(estimate, token_capacity // 2) with the estimate
int(token_capacity / context_length * 512) clamped to 2048..4096. Hybrid mamba / linear-attention
models cap it again by their state cache (:3135-3160): graphfit.planner.engines.sglang_mamba_pool,
applied by `request_pool`.

`request_pool(config)` is the pool every SGLang graph runner of the plan is bounded by: the
KV capacity binds only when --max-total-tokens (max_total_tokens) is given.
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_kv_requests import (  # re-exported
    ESTIMATE_MAX,
    ESTIMATE_MIN,
    REQUESTS_PER_CONTEXT,
    kv_request_pool,
)
from graphfit.planner.engines.sglang_mamba_pool import (
    MambaCache,
    cache_of,
    is_hybrid_mamba,
    mamba_request_pool,
)

__all__ = ["ESTIMATE_MAX", "ESTIMATE_MIN", "REQUESTS_PER_CONTEXT", "kv_request_pool",
           "mamba_cache", "mamba_memory_shown", "request_pool"]


def request_pool(config: EngineSettings) -> int:
    """Requests one scheduler holds (req_to_token_pool.size, every graph runner's request
    bound): max_running_requests per attention-DP group, and with --max-total-tokens the KV
    pool's bound too (`kv_request_pool`: SGLang caps its token capacity at max_total_tokens,
    kv_cache_configurator.py:3096-3105; a GPU too small to hold that many tokens would bind
    tighter, which graphfit cannot know). A DeepSeek-V4 model whose pools graphfit sizes from
    memory gets SGLang's pool over its full KV pool (graphfit.planner.engines.
    sglang_dsv4_plan). A hybrid mamba model's state cache caps it again
    when its size is fixed by the flags or graphfit restates its size from memory
    (sglang_mamba_pool, sglang_mamba_memory, kv_cache_configurator.py:3134)."""
    if config.max_total_tokens is None:
        pool = max(1, config.max_num_seqs // config.attn_dp_size)
        from graphfit.planner.engines.sglang_dsv4_plan import pools

        sized = pools(config)  # DeepSeek-V4's pools from memory (sglang_dsv4_plan)
        if sized is not None:
            pool = sized.request_pool
    else:
        pool = kv_request_pool(config.max_total_tokens, config.max_model_len,
                               config.max_num_seqs, config.attn_dp_size)
    if not is_hybrid_mamba(config.architecture, config.mamba_state_shape):
        return pool
    return mamba_request_pool(pool, mamba_cache(config), config.attn_dp_size,
                              config.max_num_seqs)


def mamba_cache(config: EngineSettings) -> MambaCache:
    """The config's mamba-cache flags (sglang_mamba_pool.cache_of)."""
    return cache_of(config)


def mamba_memory_shown(config: EngineSettings) -> tuple[str, str] | None:
    """The plan's line on a hybrid mamba model's state cache sized from memory
    (sglang_mamba_memory.memory_line); None for other models or a size the flags fix."""
    from graphfit.planner.engines.sglang_mamba_memory import memory_line

    if not is_hybrid_mamba(config.architecture, config.mamba_state_shape):
        return None
    line = memory_line(config)
    if line is None:
        return None
    if config.mamba_memory_slots is not None:  # what it caps (per attention-DP group)
        line += f"; request pool {request_pool(config)}"
    return ("max_mamba_cache_size", line)
