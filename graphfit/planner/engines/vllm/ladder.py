"""vLLM 0.33's capture ladders (domain.md §1).

`config_ladder` computes the sizes as `VllmConfig._set_cudagraph_sizes` does at start-up (what a
drafter's `__init__` sees); `runtime_ladder` applies the V1 runner's later shrink-only
rounding to multiples of q. Keeping both matters: capacities sized from the first stay safe
under the second.
"""

from __future__ import annotations

from graphfit.planner.core.enums import LadderPolicy, PerformanceMode, Runner
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder, check_size_count, round_up
from graphfit.planner.core.settings import EngineSettings


def request_counts(max_reqs: int, ceiling: int) -> list[int]:
    """vLLM's request-count grid: 1, 2, 4, 8..248 step 8, 256.. step 16, and the max itself."""
    m = min(max_reqs, ceiling)
    counts = {c for c in (1, 2, 4) if c <= m}
    counts.update(range(8, min(m + 1, 256), 8))
    counts.update(range(256, m + 1, 16))
    counts.add(m)
    return sorted(counts)


def _default_grid(ceiling: int, config: EngineSettings) -> set[int]:
    check_size_count(len(range(256, ceiling + 1, 16)), "max_cudagraph_capture_size")
    if config.performance_mode is PerformanceMode.INTERACTIVITY:
        grid = set(range(1, min(ceiling, 32) + 1))
    else:
        grid = {s for s in (1, 2, 4) if s <= ceiling}
    if ceiling >= 8:
        grid.update(range(8, min(ceiling + 1, 256), 8))
    if ceiling >= 256:
        grid.update(range(256, ceiling + 1, 16))
    return grid


def computed_ladder(config: EngineSettings, *, uniform_decode_sizes: bool = True) -> Ladder:
    """vLLM 0.33 `_set_cudagraph_sizes` (uniform_decode_sizes=False: the legacy rule)."""
    S = config.max_num_seqs
    T = config.max_num_batched_tokens
    q = config.uniform_query_len
    D = config.ceiling_family.ceiling
    user_max = config.max_cudagraph_capture_size
    user_list = config.cudagraph_capture_sizes

    ceiling = user_max if user_max is not None else min(S * q * 2, D)
    decode_sizes: list[int] = []
    if user_max is None and uniform_decode_sizes:
        if q > 1:
            decode_sizes = [n * q for n in request_counts(S, D) if n * q <= ceiling]
        elif ceiling >= S:
            decode_sizes = [S]
    ceiling = max(min(T, ceiling), 1)

    warnings: list[str] = []
    if user_list is not None:
        sizes = sorted({s for s in user_list if s <= T})
        if not sizes:
            raise ConfigError(
                f"cudagraph_capture_sizes: no size is <= max_num_batched_tokens ({T})")
        dropped = [s for s in user_list if s > T]
        if dropped:
            warnings.append(f"capture sizes {dropped} exceed max_num_batched_tokens {T}; dropped")
    else:
        grid = _default_grid(ceiling, config)
        if ceiling >= T:
            grid.add(T)
        grid.update(s for s in decode_sizes if s <= T)
        sizes = sorted(grid)

    if user_max is not None and user_max != sizes[-1]:
        if user_list is not None:
            raise ConfigError(
                f"max_cudagraph_capture_size: {user_max} differs from the largest capture "
                f"size {sizes[-1]} (vLLM rejects this too)")
        warnings.append(
            f"max_cudagraph_capture_size {user_max} truncated to {sizes[-1]}, the last size")
    return Ladder(tuple(sizes), tuple(warnings))


def explicit_ladder(config: EngineSettings) -> Ladder:
    """The user's list exactly: nothing added, nothing rounded."""
    sizes = config.cudagraph_capture_sizes
    if sizes is None:  # pragma: no cover - EngineConfig rejects this
        raise ConfigError("cudagraph_capture_sizes: the explicit ladder needs a list")
    T = config.max_num_batched_tokens
    if sizes[-1] > T:
        raise ConfigError(
            f"cudagraph_capture_sizes: {sizes[-1]} exceeds max_num_batched_tokens ({T})")
    user_max = config.max_cudagraph_capture_size
    if user_max is not None and user_max != sizes[-1]:
        raise ConfigError(
            f"max_cudagraph_capture_size: {user_max} differs from the largest capture "
            f"size {sizes[-1]}")
    return Ladder(sizes)


def config_ladder(config: EngineSettings) -> Ladder:
    """The capture sizes as vLLM's config computes them, before the runner adjusts."""
    if config.ladder is LadderPolicy.EXPLICIT:
        return explicit_ladder(config)
    if config.ladder is LadderPolicy.VLLM_LEGACY:
        return computed_ladder(config, uniform_decode_sizes=False)
    return computed_ladder(config)


def runtime_ladder(config: EngineSettings, ladder: Ladder) -> Ladder:
    """The V1 runner's shrink-only adjustment for spec decode with FULL decode graphs.

    Every size is rounded up to a multiple of q; sizes that would exceed the old max are
    dropped, so the max never grows. vLLM applies this after the drafter was built.
    """
    q = config.uniform_query_len
    if (config.ladder is LadderPolicy.EXPLICIT or config.runner is not Runner.V1 or q == 1
            or not config.cudagraph_mode.has_full_decode):
        return ladder
    old_max = ladder.max_size
    sizes = sorted({round_up(s, q) for s in ladder.sizes if round_up(s, q) <= old_max})
    if not sizes:
        if q > old_max:
            raise ConfigError(
                f"max_cudagraph_capture_size: {old_max} is below the decode query length "
                f"{q}; no FULL decode graph fits")
        sizes = [q]
    warnings = ladder.warnings
    if tuple(sizes) != ladder.sizes:
        warnings = (*warnings, f"sizes rounded to multiples of q={q} (shrink-only)")
    return Ladder(tuple(sizes), warnings)
