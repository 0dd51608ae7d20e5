"""vLLM 0.33's dispatchers (domain.md §2): the target's FULL-decode routine, then PIECEWISE,
then eager; the drafter's PIECEWISE-only dispatcher on the same ladder."""

from __future__ import annotations

from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables, shared_dispatches
from graphfit.planner.core.enums import CUDAGraphMode


def target_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                  max_num_seqs: int) -> DispatchTables:
    """The V1 `CudagraphDispatcher`: per capture size, the mixed key and the uniform key.

    A uniform decode replays a FULL graph when the mode has FULL decode graphs and the size is
    a whole number of q-token requests in q..S*q; every other batch takes the mixed key.
    """
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    full, piecewise = mode is CUDAGraphMode.FULL, mode.has_piecewise
    decode_top = max_num_seqs * q if mode.has_full_decode else 0
    full_of = shared_dispatches(CUDAGraphMode.FULL)
    piecewise_of = shared_dispatches(CUDAGraphMode.PIECEWISE)
    for size in sizes:
        if full:
            mixed_hit = full_of(size, size if size < max_num_seqs else max_num_seqs)
        elif piecewise:
            mixed_hit = piecewise_of(size, None)
        else:
            mixed_hit = NO_GRAPH
        mixed.append(mixed_hit)
        if q <= size <= decode_top and size % q == 0:
            reqs = size // q
            uniform.append(full_of(size, reqs if reqs < max_num_seqs else max_num_seqs))
        else:
            uniform.append(mixed_hit)
    return DispatchTables(sizes, tuple(mixed), tuple(uniform), q, max_num_seqs)


def drafter_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                   max_num_seqs: int) -> DispatchTables:
    """The drafter's own dispatcher: PIECEWISE only, same padding as the target."""
    piecewise_of = shared_dispatches(CUDAGraphMode.PIECEWISE)
    hit = [piecewise_of(s, None) if mode is not CUDAGraphMode.NONE else NO_GRAPH
           for s in sizes]
    return DispatchTables(sizes, tuple(hit), tuple(hit), q, max_num_seqs)
