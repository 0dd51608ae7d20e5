"""vLLM 0.33's dispatchers, per runner, from the RESOLVED graph mode.

The rules, summarised: docs/engines/vllm.md#dispatch.

V1 (`v1/cudagraph_dispatcher.py`): per capture size a mixed key (PIECEWISE, or FULL with
num_reqs = min(size, S) in mode FULL) and, with a separate decode routine
(FULL_DECODE_ONLY, FULL_AND_PIECEWISE), FULL decode keys for q <= size <= S*q with
num_reqs = min(size // q, S); uniform batches of mode FULL take the mixed FULL key. The V1
drafter has a PIECEWISE-only dispatcher on the same ladder when the mode's mixed_mode() is
PIECEWISE or FULL, else it runs eagerly (llm_base_proposer.py:420-435).

V2 (`v1/worker/gpu/cudagraph_utils.py:274-383`): mixed graphs on the capture sizes, FULL
decode graphs on the candidates round_up(s, q) of every size that stay within S*q, the max
capture size and S requests (not themselves capture sizes). The tables then hold the union of
both, each entry with its own padded size.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables, shared_dispatches
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.ladder import round_up

FULL = CUDAGraphMode.FULL
PIECEWISE = CUDAGraphMode.PIECEWISE


def _mixed_of(mode: CUDAGraphMode, max_num_seqs: int) -> Callable[[int], Dispatch]:
    """size -> the mixed key of `mode` there: FULL with num_reqs = min(size, S) (mode FULL),
    PIECEWISE, or no graph (FULL_DECODE_ONLY, NONE)."""
    mixed = mode.mixed_mode
    if mixed is FULL:
        full_of = shared_dispatches(FULL)
        return lambda size: full_of(size, size if size < max_num_seqs else max_num_seqs)
    if mixed is PIECEWISE:
        piecewise_of = shared_dispatches(PIECEWISE)
        return lambda size: piecewise_of(size, None)
    return lambda size: NO_GRAPH


def target_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                  max_num_seqs: int) -> DispatchTables:
    """The V1 `CudagraphDispatcher`: per capture size, the mixed key and the uniform key.

    With a separate decode routine a uniform decode replays a FULL graph when the size is a
    whole number of q-token requests in q..S*q (num_reqs = min(size // q, S)); every other
    batch, and every uniform batch of mode FULL, takes the mixed key.
    """
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    mixed_of = _mixed_of(mode, max_num_seqs)
    decode_top = max_num_seqs * q if mode.separate_routine else 0
    full_of = shared_dispatches(FULL)
    for size in sizes:
        mixed_hit = mixed_of(size)
        mixed.append(mixed_hit)
        if q <= size <= decode_top and size % q == 0:
            reqs = size // q
            uniform.append(full_of(size, reqs if reqs < max_num_seqs else max_num_seqs))
        else:
            uniform.append(mixed_hit)
    return DispatchTables(sizes, tuple(mixed), tuple(uniform), q, max_num_seqs)


def drafter_mode(mode: CUDAGraphMode) -> CUDAGraphMode:
    """The V1 drafter's own mode: PIECEWISE when the target's mixed_mode() is PIECEWISE or
    FULL, else NONE (FULL_DECODE_ONLY and NONE: the drafter runs eagerly)."""
    if mode.mixed_mode in (PIECEWISE, FULL):
        return PIECEWISE
    return CUDAGraphMode.NONE


def drafter_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                   max_num_seqs: int) -> DispatchTables:
    """The V1 drafter's dispatcher: PIECEWISE only, same padding as the target."""
    piecewise_of = shared_dispatches(PIECEWISE)
    graphs = drafter_mode(mode) is PIECEWISE
    hit = tuple(piecewise_of(s, None) if graphs else NO_GRAPH for s in sizes)
    return DispatchTables(sizes, hit, hit, q, max_num_seqs)


def decode_candidates(sizes: tuple[int, ...], width: int, max_num_seqs: int,
                      max_capture: int) -> tuple[int, ...]:
    """MRV2's FULL decode graph sizes: round_up(s, width), skipped above width*S, above the
    max capture size or above S requests (cudagraph_utils.py:321-349)."""
    top = min(max_num_seqs * width, max_capture)
    return tuple(sorted({round_up(s, width) for s in sizes if round_up(s, width) <= top}))


def v2_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, width: int, max_num_seqs: int,
              max_capture: int) -> DispatchTables:
    """An MRV2 `CudaGraphManager` (target, or a drafter's prefill manager) as tables.

    A uniform batch of r requests x width tokens takes the smallest FULL decode candidate
    that holds it, else the mixed graph; a mixed batch the smallest capture size's graph.
    """
    if not sizes or mode is CUDAGraphMode.NONE:
        return DispatchTables((), (), (), width, max_num_seqs)
    decode = (decode_candidates(sizes, width, max_num_seqs, max_capture)
              if mode.separate_routine else ())
    union = tuple(sorted(set(sizes) | set(decode)))
    mixed_of = _mixed_of(mode, max_num_seqs)
    full_of = shared_dispatches(FULL)
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    for u in union:
        mixed_hit = mixed_of(sizes[bisect_left(sizes, u)])
        mixed.append(mixed_hit)
        i = bisect_left(decode, u)
        if i < len(decode):
            uniform.append(full_of(decode[i], decode[i] // width))
        else:
            uniform.append(mixed_hit)
    return DispatchTables(union, tuple(mixed), tuple(uniform), width, max_num_seqs)


def v2_full_decode_tables(sizes: tuple[int, ...], graphs: bool, width: int,
                          max_num_seqs: int, max_capture: int) -> DispatchTables:
    """A FULL_DECODE_ONLY manager of `width` tokens per request (MRV2 DFlash/DSpark query):
    FULL graphs on the decode candidates, eager otherwise; never PIECEWISE."""
    decode = decode_candidates(sizes, width, max_num_seqs, max_capture) if graphs else ()
    full_of = shared_dispatches(FULL)
    hits = tuple(full_of(c, c // width) for c in decode)
    return DispatchTables(decode, (NO_GRAPH,) * len(decode), hits, width, max_num_seqs)


def v2_split_tables(prefill: tuple[int, ...], decode_tokens: tuple[int, ...],
                    mode: CUDAGraphMode, q: int, max_num_seqs: int) -> DispatchTables:
    """vLLM 0.34's `CudaGraphManager` (v1/worker/gpu/cudagraph_utils.py:289-427, dispatch
    :558-602 in 0.34) as tables: mixed batches take the smallest token-keyed graph of the
    PREFILL sizes (its mixed mode); a uniform decode of r requests x q tokens the smallest FULL
    decode graph of at least r requests (`decode_tokens` = requests x q, only with a separate
    decode routine), else the mixed one."""
    if mode is CUDAGraphMode.NONE or not (prefill or decode_tokens):
        return DispatchTables((), (), (), q, max_num_seqs)
    decode = decode_tokens if mode.separate_routine else ()
    union = tuple(sorted(set(prefill) | set(decode)))
    mixed_of = _mixed_of(mode, max_num_seqs)
    full_of = shared_dispatches(FULL)
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    for u in union:
        j = bisect_left(prefill, u)
        mixed_hit = mixed_of(prefill[j]) if j < len(prefill) else NO_GRAPH
        mixed.append(mixed_hit)
        i = bisect_left(decode, u)
        uniform.append(full_of(decode[i], decode[i] // q) if i < len(decode) else mixed_hit)
    return DispatchTables(union, tuple(mixed), tuple(uniform), q, max_num_seqs)
