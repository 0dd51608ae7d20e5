"""vLLM 0.34's split capture sizes: prefill graphs keyed by TOKENS, decode graphs by REQUESTS.

0.34 resolves two lists where 0.33 had one (`VllmConfig._split_cudagraph_capture_sizes`,
config/vllm.py:2558-2737 in 0.34): prefill token sizes and uniform-decode request counts,
each from its own sizes, cap or default. `cudagraph_capture_sizes` then records every
graph's TOKEN count (decode counts x q, draft-decode counts, prefill sizes) and its max;
FULL_DECODE_ONLY records the decode ones only (:2699-2704) and nothing left sets the mode to
NONE (:2722-2728). There is no rounding to multiples of q any more: a decode graph of n
requests holds n*q tokens by construction.

The grids (config/compilation.py:54-126 in 0.34) are written here from their docstrings and
checked against vLLM's own functions by the oracle (tests/oracle/test_vllm_release_oracle.py).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.vllm.enums import CeilingFamily, PerformanceMode
from graphfit.planner.engines.vllm.ladder import computed_ladder

# Blackwell's wide defaults: prefill grid and decode token budget up to 8192 tokens
# (config/vllm.py:2606-2612, 2644-2646 in 0.34)
WIDE_TOKENS = 8192
# the drafters whose draft steps after the first run one token per request in FULL graphs
# of their own request counts (`get_draft_decode_cudagraph_request_sizes`, vllm.py:708-733)
DRAFT_DECODE_METHODS = (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP,
                        SpecMethod.DRAFT_MODEL)


def _walk_grid(limit: int, step: Callable[[int], float]) -> list[int]:
    """1, ..., limit: each next size the next multiple of the largest power of two not above
    step(size) (`_walk_grid`, compilation.py:76-84)."""
    grid: list[int] = []
    size = 1
    while size < limit:
        grid.append(size)
        stride = 1 << max(0, math.floor(math.log2(max(1.0, step(size)))))
        size = (size // stride + 1) * stride
    return [*grid, limit] if limit else []


def prefill_grid(max_tokens: int, dense_head: bool = False) -> list[int]:
    """Prefill token grid (compilation.py:87-99): 54 sizes at 8192."""
    grid = _walk_grid(max_tokens, lambda t: min(t, max(8, t / 4), 0.07 * max(t, 4096)))
    if dense_head:
        grid = sorted({*grid, *(t for t in range(1, 33) if t < max_tokens)})
    return grid


def decode_grid(max_requests: int) -> list[int]:
    """Decode request-count grid (compilation.py:119-124): 64 sizes at 1024."""
    return _walk_grid(max_requests, lambda n: 0.65 * n ** (2 / 3))


def decode_shapes(sizes: Iterable[int], query_lens: Mapping[int, int],
                  max_tokens: int) -> list[tuple[int, int]]:
    """(requests, query length) of the uniform-decode graphs (compilation.py:54-68): per q the
    counts up to the first one at or above its limit min(max requests, max_tokens // q),
    that one captured AT the limit."""
    ordered = sorted(set(sizes))
    shapes: set[tuple[int, int]] = set()
    for q, max_reqs in query_lens.items():
        limit = min(max_reqs, max_tokens // q)
        if limit < 1:
            continue
        reachable = ordered[:bisect_left(ordered, limit) + 1]
        shapes.update((min(n, limit), q) for n in reachable)
    return sorted(shapes, key=lambda shape: (shape[1], shape[0]))


@dataclass(frozen=True)
class SplitLadder:
    """0.34's resolved sizes: `recorded` is `cudagraph_capture_sizes` (every graph's tokens),
    `prefill` the token-keyed graphs, `decode` the decode graphs' request counts (before the
    per-q cap of `decode_shapes`), `draft_decode` the one-token draft steps' counts;
    `decode_max_tokens` the decode token budget. `mode_none`: no size left, the mode is NONE."""

    recorded: Ladder
    prefill: tuple[int, ...]
    decode: tuple[int, ...]
    draft_decode: tuple[int, ...]
    decode_max_tokens: int
    mode_none: bool

    def decode_graph_tokens(self, q: int, max_num_seqs: int) -> tuple[int, ...]:
        """Token counts of the target's FULL decode graphs as its `CudaGraphManager` builds
        them (cudagraph_utils.py:340-362 in 0.34): capped at the RECORDED max."""
        budget = min(self.recorded.max_size, self.decode_max_tokens)
        return tuple(n * q for n, q in decode_shapes(self.decode, {q: max_num_seqs}, budget))


def draft_decode_requests(config: EngineSettings, decode: list[int]) -> list[int]:
    """`get_draft_decode_cudagraph_request_sizes` (vllm.py:708-733 in 0.34): the decode grid
    up to S for EAGLE/EAGLE3/MTP/draft_model with k >= 2 when decode graphs exist."""
    if (not decode or config.num_speculative_tokens < 2
            or config.spec_method not in DRAFT_DECODE_METHODS):
        return []
    return decode_grid(config.max_num_seqs)


# the split fields (EngineConfig, as 0.34's CompilationConfig names them)
SPLIT_FIELDS = ("prefill_cudagraph_capture_token_sizes", "max_prefill_cudagraph_capture_tokens",
                "decode_cudagraph_capture_request_sizes", "max_decode_cudagraph_capture_requests",
                "max_decode_cudagraph_capture_tokens")


def _explicit(sizes: Iterable[int], limit: int, cap: int | None, name: str, cap_name: str,
              warnings: list[str]) -> list[int]:
    """A user list as vLLM keeps it (`explicit`, config/vllm.py:2616-2630 in 0.34): sorted,
    deduplicated, sizes outside [1, limit] dropped with a warning; its largest above the cap
    is an error."""
    given = set(sizes)
    kept = sorted(s for s in given if 1 <= s <= limit)
    if len(kept) < len(given):
        warnings.append(f"{name}: vLLM drops {sorted(given - set(kept))} (outside "
                        f"[1, {limit}])")
    if cap is not None and kept and kept[-1] > cap:
        raise ConfigError(f"{name}: holds {kept[-1]}, above {cap_name}={cap} (vLLM 0.34 "
                          "refuses it: config/vllm.py:2628-2629)")
    return kept


def split_ladder(config: EngineSettings) -> SplitLadder:
    """0.34 `_set_cudagraph_sizes` then `_split_cudagraph_capture_sizes` (config/vllm.py:
    2558-2737): each kind from its own list, cap or default, never from the other's."""
    shared = computed_ladder(config)
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        return SplitLadder(shared, (), (), (), 0, False)
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    legacy = (config.cudagraph_capture_sizes is not None
              or config.max_cudagraph_capture_size is not None)
    prefill_sizes = config.prefill_cudagraph_capture_token_sizes
    max_prefill = config.max_prefill_cudagraph_capture_tokens
    decode_sizes = config.decode_cudagraph_capture_request_sizes
    max_decode = config.max_decode_cudagraph_capture_requests
    uses_split = any(x is not None for x in (prefill_sizes, max_prefill, decode_sizes,
                                             max_decode))
    # SM100 (graphfit: the Blackwell ceiling family) widens the defaults of unset kinds
    wide = not legacy and config.ceiling_family is CeilingFamily.BLACKWELL
    decode_budget = config.max_decode_cudagraph_capture_tokens
    if decode_budget is None and wide:
        decode_budget = WIDE_TOKENS
    warnings = list(shared.warnings)
    if prefill_sizes is not None:
        prefill = _explicit(prefill_sizes, T, max_prefill,
                            "prefill_cudagraph_capture_token_sizes",
                            "max_prefill_cudagraph_capture_tokens", warnings)
    elif max_prefill is not None or wide:
        prefill = prefill_grid(min(WIDE_TOKENS if max_prefill is None else max_prefill, T),
                               config.performance_mode is PerformanceMode.INTERACTIVITY)
    else:
        prefill = list(shared.sizes)
    if decode_sizes is not None:
        decode = _explicit(decode_sizes, S, max_decode,
                           "decode_cudagraph_capture_request_sizes",
                           "max_decode_cudagraph_capture_requests", warnings)
    elif max_decode is not None or wide:
        decode = decode_grid(S if max_decode is None else min(max_decode, S))
    else:  # the request counts the shared sizes round up to within the shared bound
        decode = sorted({min(-(-s // q), S) for s in shared.sizes
                         if -(-s // q) * q <= shared.max_size})
    decode_max_tokens = min(T, decode_budget or T)
    draft = draft_decode_requests(config, decode)
    decode_tokens = {n * w for n, w in decode_shapes(decode, {q: S}, decode_max_tokens)}
    decode_tokens.update(n for n, _ in decode_shapes(draft, {1: S}, decode_max_tokens))
    tokens = decode_tokens | set(prefill)
    if not (legacy and not uses_split) and config.cudagraph_mode.mixed_mode is \
            CUDAGraphMode.NONE:
        tokens = decode_tokens  # FULL_DECODE_ONLY: no prefill graph, none recorded
    if legacy and uses_split:  # vLLM only accepts a shared list it would record itself
        if list(shared.sizes) not in (sorted(tokens | set(prefill)), sorted(decode_tokens)):
            raise ConfigError(
                "cudagraph_capture_sizes: the deprecated shared sizes (and "
                "max_cudagraph_capture_size) cannot be combined with vLLM 0.34's prefill and "
                "decode capture sizes; set only the latter (config/vllm.py:2706-2720)")
        tokens = set(shared.sizes)
    if not tokens:
        warnings.append("no CUDA graph capture size is left: vLLM 0.34 sets cudagraph_mode "
                        "NONE (config/vllm.py:2722-2728)")
    return SplitLadder(Ladder(tuple(sorted(tokens)), tuple(warnings)), tuple(prefill),
                       tuple(decode), tuple(draft), decode_max_tokens, not tokens)
