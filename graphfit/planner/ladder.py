"""Capture ladders: which batch sizes get a CUDA graph.

`config_ladder` computes the sizes as vLLM's config does at start-up (what a drafter's
`__init__` sees); `resolve_runtime_ladder` applies the V1 runner's later shrink-only
adjustment. Keeping both matters: capacities sized from the first stay safe under the second.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.config import EngineConfig
from graphfit.planner.enums import Engine, LadderPolicy, PerformanceMode, Runner
from graphfit.planner.errors import ConfigError


@dataclass(frozen=True)
class Ladder:
    """Sorted, unique capture sizes; `max_size` is always the last one."""

    sizes: tuple[int, ...]
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.sizes:
            raise ConfigError("cudagraph_capture_sizes: the ladder is empty")
        if any(a >= b for a, b in zip(self.sizes, self.sizes[1:])):
            raise ConfigError("cudagraph_capture_sizes: the ladder must be sorted and unique")
        if self.sizes[0] < 1:
            raise ConfigError("cudagraph_capture_sizes: sizes must be >= 1")

    @property
    def max_size(self) -> int:
        return self.sizes[-1]


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def request_counts(max_reqs: int, ceiling: int) -> list[int]:
    """vLLM's request-count grid: 1, 2, 4, 8..248 step 8, 256.. step 16, and the max itself."""
    m = min(max_reqs, ceiling)
    counts = {c for c in (1, 2, 4) if c <= m}
    counts.update(range(8, min(m + 1, 256), 8))
    counts.update(range(256, m + 1, 16))
    counts.add(m)
    return sorted(counts)


def _default_grid(ceiling: int, config: EngineConfig) -> set[int]:
    if config.performance_mode is PerformanceMode.INTERACTIVITY:
        grid = set(range(1, min(ceiling, 32) + 1))
    else:
        grid = {s for s in (1, 2, 4) if s <= ceiling}
    if ceiling >= 8:
        grid.update(range(8, min(ceiling + 1, 256), 8))
    if ceiling >= 256:
        grid.update(range(256, ceiling + 1, 16))
    return grid


def vllm_config_ladder(config: EngineConfig, *, uniform_decode_sizes: bool = True) -> Ladder:
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


def explicit_ladder(config: EngineConfig) -> Ladder:
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


def config_ladder(config: EngineConfig) -> Ladder:
    """The capture sizes as the engine's config computes them, before the runner adjusts."""
    if config.engine is not Engine.VLLM:
        # SGLang / TensorRT-LLM: batch-size ladders (requests), see planner/engines/
        from graphfit.planner.engines.ladders import batch_ladder

        return batch_ladder(config)
    if config.ladder is LadderPolicy.EXPLICIT:
        return explicit_ladder(config)
    if config.ladder is LadderPolicy.VLLM_LEGACY:
        return vllm_config_ladder(config, uniform_decode_sizes=False)
    return vllm_config_ladder(config)


def resolve_runtime_ladder(config: EngineConfig, ladder: Ladder) -> Ladder:
    """The V1 runner's shrink-only adjustment for spec decode with FULL decode graphs.

    Every size is rounded up to a multiple of q; sizes that would exceed the old max are
    dropped, so the max never grows. vLLM applies this after the drafter was built.
    """
    q = config.uniform_query_len
    if (config.ladder is LadderPolicy.EXPLICIT or config.runner is not Runner.V1 or q == 1
            or not config.cudagraph_mode.has_full_decode or config.engine is not Engine.VLLM):
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
