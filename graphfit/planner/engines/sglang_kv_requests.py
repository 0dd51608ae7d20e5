"""SGLang 0.5.23's request pool over a KV pool of known token capacity
(`KVCacheConfigurator.resolve_max_num_reqs`, mem_cache/kv_cache_configurator.py:3119-3133),
apart from graphfit.planner.engines.sglang_pool so the pool restatements that size the KV
pool themselves (graphfit.planner.engines.sglang_dsv4_pool) can use it without a cycle."""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

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
