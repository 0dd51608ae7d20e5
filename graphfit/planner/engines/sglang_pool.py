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

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_mamba_pool import (
    MambaCache,
    cache_of,
    is_hybrid_mamba,
    mamba_request_pool,
)

ESTIMATE_MIN, ESTIMATE_MAX = 2048, 4096
REQUESTS_PER_CONTEXT = 512


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name}: must be a positive integer, got {value!r}")
    return value


def kv_request_pool(token_capacity: int, context_length: int,
                    max_running_requests: int | None = None, attn_dp_size: int = 1) -> int:
    """Requests one scheduler's pool holds for a KV cache of `token_capacity` tokens."""
    _positive("token_capacity", token_capacity)
    _positive("context_length", context_length)
    _positive("attn_dp_size", attn_dp_size)
    if max_running_requests is not None:
        _positive("max_running_requests", max_running_requests)
        return min(max(1, max_running_requests // attn_dp_size), token_capacity // 2)
    estimate = int(token_capacity / context_length * REQUESTS_PER_CONTEXT)
    estimate = max(min(estimate, ESTIMATE_MAX), ESTIMATE_MIN)
    return min(estimate, token_capacity // 2)


def request_pool(config: EngineSettings) -> int:
    """Requests one scheduler holds (req_to_token_pool.size, every graph runner's request
    bound): max_running_requests per attention-DP group, and with --max-total-tokens the KV
    pool's bound too (`kv_request_pool`: SGLang caps its token capacity at max_total_tokens,
    kv_cache_configurator.py:3096-3105; a GPU too small to hold that many tokens would bind
    tighter, which graphfit cannot know). A hybrid mamba model's state cache caps it again
    when its size is fixed by the flags or graphfit restates its size from memory
    (sglang_mamba_pool, sglang_mamba_memory, kv_cache_configurator.py:3134)."""
    if config.max_total_tokens is None:
        pool = max(1, config.max_num_seqs // config.attn_dp_size)
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
