"""vLLM 0.33's dispatchers (domain.md §2): the target's FULL-decode routine, then PIECEWISE,
then eager; the drafter's PIECEWISE-only dispatcher on the same ladder."""

from __future__ import annotations

from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables, dispatch_of
from graphfit.planner.core.enums import CUDAGraphMode


def _full_decode_key(padded: int, q: int, max_num_seqs: int) -> bool:
    return q <= padded <= max_num_seqs * q and padded % q == 0


def target_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                  max_num_seqs: int) -> DispatchTables:
    """The V1 `CudagraphDispatcher`: per capture size, the mixed key and the uniform key."""
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    full, piecewise = mode is CUDAGraphMode.FULL, mode.has_piecewise
    full_decode = mode.has_full_decode
    for size in sizes:
        if full:
            mixed_hit = dispatch_of(CUDAGraphMode.FULL, size, min(size, max_num_seqs))
        elif piecewise:
            mixed_hit = dispatch_of(CUDAGraphMode.PIECEWISE, size, None)
        else:
            mixed_hit = NO_GRAPH
        mixed.append(mixed_hit)
        if full_decode and _full_decode_key(size, q, max_num_seqs):
            uniform.append(dispatch_of(CUDAGraphMode.FULL, size, min(size // q, max_num_seqs)))
        else:
            uniform.append(mixed_hit)
    return DispatchTables(sizes, tuple(mixed), tuple(uniform), q, max_num_seqs)


def drafter_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                   max_num_seqs: int) -> DispatchTables:
    """The drafter's own dispatcher: PIECEWISE only, same padding as the target."""
    hit = [dispatch_of(CUDAGraphMode.PIECEWISE, s, None) if mode is not CUDAGraphMode.NONE
           else NO_GRAPH for s in sizes]
    return DispatchTables(sizes, tuple(hit), tuple(hit), q, max_num_seqs)
