"""vLLM 0.33's capture ladders (docs/engines/vllm.md#capture-ladder).

`config_ladder` computes the sizes as `VllmConfig._set_cudagraph_sizes` does at start-up (what a
drafter's `__init__` sees); `runtime_ladder` applies the V1 runner's later shrink-only
rounding to multiples of q (`adjust_cudagraph_sizes_for_spec_decode`), which runs only when
the RESOLVED mode keeps FULL decode graphs. Keeping both matters: capacities sized from the
first stay safe under the second.
"""

from __future__ import annotations

import operator

from graphfit.planner.core.enums import CUDAGraphMode, LadderPolicy
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.ladder import Ladder, check_size_count, round_up
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.vllm.enums import PerformanceMode, Runner


def _count(name: str, value: object) -> int:
    """`value` as an int >= 1 within MAX_INT (operator.index: ints and integer scalars)."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        number = None
    if isinstance(value, bool) or number is None or not 1 <= number <= MAX_INT:
        raise ConfigError(f"{name}: must be an integer in 1..{MAX_INT}, got {excerpt(value)}")
    return number


def request_counts(max_reqs: int, ceiling: int) -> list[int]:
    """vLLM's request-count grid: 1, 2, 4, 8..248 step 8, 256.. step 16, and the max itself.

    Both arguments are integers >= 1 (an integer-valued object such as a one-element tensor
    is taken as its int, so the grid holds ints only); a grid of more than MAX_CAPTURE_SIZES
    counts is refused before it is built (request_counts(10**18, 2**63) answers at once)."""
    max_reqs = _count("max_reqs", max_reqs)
    ceiling = _count("ceiling", ceiling)
    m = min(max_reqs, ceiling)
    check_size_count(len(range(256, m + 1, 16)), "request_counts")
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


def _user_sizes(user_list: tuple[int, ...], T: int, warnings: list[str]) -> list[int]:
    """vLLM de-duplicates, drops sizes above T and sorts (config/vllm.py:2558-2571)."""
    if list(user_list) != sorted(set(user_list)):
        warnings.append(f"capture sizes {list(user_list)} sorted and de-duplicated "
                        f"(vLLM does the same)")
    sizes = sorted({s for s in user_list if s <= T})
    dropped = sorted({s for s in user_list if s > T})
    if dropped:
        warnings.append(f"capture sizes {dropped} exceed max_num_batched_tokens {T}; dropped")
    if not sizes:
        warnings.append(f"no capture size is <= max_num_batched_tokens {T}: no CUDA graphs, "
                        f"every batch runs eagerly")
    return sizes


def computed_ladder(config: EngineSettings, *, uniform_decode_sizes: bool = True) -> Ladder:
    """vLLM 0.33 `_set_cudagraph_sizes` (uniform_decode_sizes=False: the legacy rule)."""
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        # mode NONE / enforce_eager: no sizes, and none of the checks (vllm.py:2447-2451)
        return Ladder(())
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
        sizes = _user_sizes(user_list, T, warnings)
    else:
        grid = _default_grid(ceiling, config)
        if ceiling >= T:
            grid.add(T)
        grid.update(s for s in decode_sizes if s <= T)
        sizes = sorted(grid)

    last = sizes[-1] if sizes else 0
    if user_max is not None and user_max != last:
        if user_list is not None:
            raise ConfigError(
                f"max_cudagraph_capture_size: {user_max} differs from the largest capture "
                f"size {last} (vLLM rejects this too)")
        warnings.append(
            f"max_cudagraph_capture_size {user_max} truncated to {last}, the last size")
    return Ladder(tuple(sizes), tuple(warnings))


def config_ladder(config: EngineSettings) -> Ladder:
    """The capture sizes as vLLM's config computes them, before the runner adjusts.

    `explicit` is the user's list as vLLM takes it (a list always overrides vLLM's grid).
    """
    if config.ladder is LadderPolicy.VLLM_LEGACY:
        return computed_ladder(config, uniform_decode_sizes=False)
    return computed_ladder(config)


def runtime_ladder(config: EngineSettings, ladder: Ladder, mode: CUDAGraphMode) -> Ladder:
    """The V1 runner's shrink-only adjustment for spec decode with FULL decode graphs
    (config/compilation.py:1529-1565), for explicit lists too.

    Every size is rounded up to a multiple of q; sizes that would exceed the old max are
    dropped, so the max never grows. vLLM applies this after the drafter was built, and only
    when the resolved `mode` keeps FULL decode graphs.
    """
    q = config.uniform_query_len
    if (config.runner is not Runner.V1 or q == 1 or not ladder.sizes
            or mode.decode_mode is not CUDAGraphMode.FULL):
        return ladder
    old_max = ladder.max_size
    sizes = sorted({round_up(s, q) for s in ladder.sizes if round_up(s, q) <= old_max})
    if not sizes:
        if q > old_max:
            raise ConfigError(
                f"max_cudagraph_capture_size: {old_max} is below the decode query length "
                f"{q}; no FULL decode graph fits (vLLM rejects this too)")
        sizes = [q]
    warnings = ladder.warnings
    if tuple(sizes) != ladder.sizes:
        warnings = (*warnings, f"sizes rounded to multiples of q={q} (shrink-only)")
    return Ladder(tuple(sizes), warnings)
