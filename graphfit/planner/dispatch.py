"""Dispatch: which graph a batch replays and to what size it is padded.

Everything is precomputed into tables indexed by num_tokens, so a lookup is O(1) on the hot
path (vLLM's dispatcher does the same with a bisect-built table of max+1 entries).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.enums import CUDAGraphMode
from graphfit.planner.errors import BatchError


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Where a batch goes: the graph mode, its padded token count and the request count key.

    `num_reqs` is None for PIECEWISE graphs (they are keyed on tokens alone).
    """

    mode: CUDAGraphMode
    padded: int
    num_reqs: int | None


def padding_table(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """table[n] = smallest capture size >= n, for n in 0..max (bisect_left semantics)."""
    table = [0] * (sizes[-1] + 1)
    n = 0
    for size in sizes:
        while n <= size:
            table[n] = size
            n += 1
    return tuple(table)


@dataclass(frozen=True)
class DispatchTables:
    """Precomputed dispatches for one component (target or drafter)."""

    max_size: int
    mixed: tuple[Dispatch, ...]
    uniform: tuple[Dispatch, ...] | None
    uniform_query_len: int
    max_num_seqs: int

    def lookup(self, num_tokens: int, *, uniform_decode: bool = False,
               num_reqs: int | None = None) -> Dispatch:
        if num_reqs is None and not uniform_decode and 0 < num_tokens <= self.max_size:
            hit = self.mixed[num_tokens]  # the hot path: nothing to validate
            if hit.mode is not CUDAGraphMode.NONE:
                return hit
            return Dispatch(CUDAGraphMode.NONE, num_tokens, None)
        if num_tokens < 1:
            raise BatchError(f"num_tokens: must be >= 1, got {num_tokens}")
        if uniform_decode:
            q = self.uniform_query_len
            if num_tokens % q:
                raise BatchError(
                    f"num_tokens: a uniform-decode batch has q*num_reqs tokens (q={q}), "
                    f"got {num_tokens}")
            if num_reqs is not None and num_reqs * q != num_tokens:
                raise BatchError(
                    f"num_reqs: {num_reqs} requests of {q} tokens is not {num_tokens} tokens")
            if num_reqs is None:
                num_reqs = num_tokens // q
        if num_reqs is not None and not 1 <= num_reqs <= min(num_tokens, self.max_num_seqs):
            raise BatchError(
                f"num_reqs: must be in 1..min(num_tokens, max_num_seqs), got {num_reqs}")
        if num_tokens > self.max_size:
            return Dispatch(CUDAGraphMode.NONE, num_tokens, num_reqs)
        table = self.uniform if uniform_decode and self.uniform is not None else self.mixed
        hit = table[num_tokens]
        if hit.mode is CUDAGraphMode.NONE:
            return Dispatch(CUDAGraphMode.NONE, num_tokens, num_reqs)
        return hit


def _full_decode_key(padded: int, q: int, max_num_seqs: int) -> bool:
    return q <= padded <= max_num_seqs * q and padded % q == 0


def target_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                  max_num_seqs: int) -> DispatchTables:
    """The target runner's dispatcher: FULL decode routine first, then PIECEWISE, then eager."""
    pad = padding_table(sizes)
    none = Dispatch(CUDAGraphMode.NONE, 0, None)
    mixed: list[Dispatch] = [none]
    uniform: list[Dispatch] = [none]
    for n in range(1, len(pad)):
        padded = pad[n]
        if mode is CUDAGraphMode.FULL:
            mixed_hit = Dispatch(CUDAGraphMode.FULL, padded, min(padded, max_num_seqs))
        elif mode.has_piecewise:
            mixed_hit = Dispatch(CUDAGraphMode.PIECEWISE, padded, None)
        else:
            mixed_hit = none
        mixed.append(mixed_hit)
        if mode.has_full_decode and _full_decode_key(padded, q, max_num_seqs):
            uniform.append(Dispatch(CUDAGraphMode.FULL, padded, min(padded // q, max_num_seqs)))
        elif mode is CUDAGraphMode.FULL:
            uniform.append(mixed_hit)
        elif mode.has_piecewise:
            uniform.append(Dispatch(CUDAGraphMode.PIECEWISE, padded, None))
        else:
            uniform.append(none)
    return DispatchTables(sizes[-1], tuple(mixed), tuple(uniform), q, max_num_seqs)


def drafter_tables(sizes: tuple[int, ...], mode: CUDAGraphMode, q: int,
                   max_num_seqs: int) -> DispatchTables:
    """The drafter's own dispatcher: PIECEWISE only, same padding table as the target."""
    pad = padding_table(sizes)
    none = Dispatch(CUDAGraphMode.NONE, 0, None)
    graphs = mode is not CUDAGraphMode.NONE
    mixed = [none] + [Dispatch(CUDAGraphMode.PIECEWISE, pad[n], None) if graphs else none
                      for n in range(1, len(pad))]
    return DispatchTables(sizes[-1], tuple(mixed), None, q, max_num_seqs)


def static_requests(dispatch: Dispatch, max_num_seqs: int) -> int:
    """Request rows a graph bakes in: the key's num_reqs, else min(padded, max_num_seqs).

    PIECEWISE keys carry no request count, but a graph that reads request-axis buffers needs a
    static one; min(padded, S) is what vLLM's FULL mode keys use for the same size, holds every
    real request count of the batches padded to it (num_reqs <= num_tokens <= padded) and
    never exceeds the plan's request capacity.
    """
    if dispatch.num_reqs is not None:
        return dispatch.num_reqs
    return min(dispatch.padded, max_num_seqs)
