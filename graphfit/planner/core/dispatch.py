"""Dispatch: which graph a batch replays and to what size it is padded.

A component's `DispatchTables` hold, for each capture size, the graph a mixed batch and a
uniform-decode batch padded to that size replay. Everything else follows: `lookup(n)` for one
batch (O(1) through a precomputed index while the ladder is small, bisect above), and
`segments()` for a whole family of batches as intervals, so planning and verification cost
grows with the number of capture sizes, never with the batch sizes themselves.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from operator import lt
from typing import NamedTuple

from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import BatchError, ConfigError, excerpt

# Ladders up to this many tokens get an O(1) index (one entry per token count).
_INDEX_LIMIT = 1 << 15


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Where a batch goes: the graph mode, its padded token count and the request count key.

    `num_reqs` is None for PIECEWISE graphs (they are keyed on tokens alone).
    """

    mode: CUDAGraphMode
    padded: int
    num_reqs: int | None

    def __post_init__(self) -> None:
        """A dispatch a caller builds (e.g. to override the plan's after `sync_dp_padding`)
        is checked like one the plan builds: `Dispatch(PIECEWISE, 8.0)` would otherwise
        reach a runner as a size no graph was captured at."""
        if type(self.mode) is not CUDAGraphMode:
            raise BatchError(f"dispatch: mode must be a CUDAGraphMode, got {excerpt(self.mode)}")
        if type(self.padded) is not int or self.padded < 0:
            raise BatchError(f"dispatch: padded must be an integer >= 0, got "
                             f"{excerpt(self.padded)}")
        if self.num_reqs is not None and (type(self.num_reqs) is not int or self.num_reqs < 0):
            raise BatchError(f"dispatch: num_reqs must be None or an integer >= 0, got "
                             f"{excerpt(self.num_reqs)}")


@dataclass(frozen=True, slots=True, order=True)
class GraphKey:
    """A static shape: padded tokens, and request rows when the graph reads request buffers."""

    padded: int
    num_reqs: int | None = None


NO_GRAPH = Dispatch(CUDAGraphMode.NONE, 0, None)


_SHARED: dict[CUDAGraphMode, dict[tuple[int, int | None], Dispatch]] = {}
_SHARED_LIMIT = 1 << 15  # per mode; a full cache is emptied, not grown


def shared_dispatches(mode: CUDAGraphMode) -> Callable[[int, int | None], Dispatch]:
    """`(padded, num_reqs) -> Dispatch(mode, padded, num_reqs)`, each built once per process.

    A Dispatch is immutable, and engine models build one per capture size for every plan: a
    sweep plans thousands, so equal ones are shared. Take the function once per table (the
    mode is hashed then, the sizes after are plain integer keys).
    """
    cache = _SHARED.setdefault(mode, {})

    def get(padded: int, num_reqs: int | None) -> Dispatch:
        key = (padded, num_reqs)
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= _SHARED_LIMIT:
                cache.clear()
            hit = cache[key] = Dispatch(mode, padded, num_reqs)
        return hit

    return get


def static_requests(dispatch: Dispatch, max_num_seqs: int) -> int:
    """Request rows a graph bakes in: the key's num_reqs, else min(padded, max_num_seqs).

    PIECEWISE keys carry no request count, but a graph that reads request-axis buffers needs a
    static one; min(padded, S) is what vLLM's FULL mode keys use for the same size, holds every
    real request count of the batches padded to it (num_reqs <= num_tokens <= padded) and
    never exceeds the plan's request capacity.
    """
    if not isinstance(dispatch, Dispatch):
        raise BatchError(f"dispatch: expected a Dispatch, got {excerpt(dispatch)}")
    if type(max_num_seqs) is not int or max_num_seqs < 1:
        raise BatchError(f"max_num_seqs: must be an integer >= 1, got {excerpt(max_num_seqs)}")
    if dispatch.num_reqs is not None:
        return dispatch.num_reqs
    return min(dispatch.padded, max_num_seqs)


class Segment(NamedTuple):
    """Batches of `step * a` tokens for a in [first, last] that share one dispatch.

    `dispatch` is None when they run eagerly (unpadded, each its own size). A named tuple:
    a walk makes one per capture size and family, so it must be cheap to build.
    """

    first: int
    last: int
    dispatch: Dispatch | None


@dataclass(frozen=True)
class DispatchTables:
    """One component's dispatcher, stored per capture size (in tokens).

    `mixed[i]` / `uniform[i]` is the dispatch of a mixed / uniform-decode batch padded to
    `sizes[i]` (mode NONE: such batches run eagerly). Without `padding` only a batch of exactly
    a captured size replays it (SGLang --disable-cuda-graph-padding, TensorRT-LLM
    enable_padding false); every other batch runs eagerly.

    `min_tokens` bounds the padding per size: `min_tokens[i]` is the fewest tokens a batch
    may have and still be padded to `sizes[i]`; smaller batches of that bucket run eagerly
    (a dispatcher that refuses disproportionate padding, e.g. at most 2x). Empty: no bound.
    `max_graph_requests` (None: no limit) sends a batch whose request count is known and
    larger to eager execution (graphs captured with a fixed number of request slots); the
    walk (`segments`) does not know request counts and keeps such batches on the graph, which
    over-covers capacities, never under-covers them.
    """

    sizes: tuple[int, ...]
    mixed: tuple[Dispatch, ...]
    uniform: tuple[Dispatch, ...]
    uniform_query_len: int
    max_num_seqs: int
    padding: bool = True
    min_tokens: tuple[int, ...] = ()
    max_graph_requests: int | None = None

    def __post_init__(self) -> None:
        if not len(self.sizes) == len(self.mixed) == len(self.uniform):
            raise ConfigError("dispatch: one mixed and one uniform entry per capture size")
        if not all(map(lt, self.sizes, self.sizes[1:])) or (
                self.sizes and self.sizes[0] < 1):
            raise ConfigError("dispatch: capture sizes must be sorted, unique and >= 1")
        if self.min_tokens and (len(self.min_tokens) != len(self.sizes) or not all(
                type(m) is int and 1 <= m <= s for m, s in zip(self.min_tokens, self.sizes))):
            raise ConfigError("dispatch: min_tokens holds one integer in 1..size per capture "
                              "size")
        limit = self.max_graph_requests
        if limit is not None and (type(limit) is not int or limit < 1):
            raise ConfigError(f"dispatch: max_graph_requests must be None or an integer >= 1, "
                              f"got {excerpt(limit)}")

    def floor(self, i: int) -> int:
        """The fewest tokens a batch padded to `sizes[i]` may have (1 without a bound)."""
        return self.min_tokens[i] if self.min_tokens else 1

    @property
    def max_size(self) -> int:
        """The largest captured size in tokens (0 without graphs)."""
        return self.sizes[-1] if self.sizes else 0

    @cached_property
    def _slot(self) -> tuple[int, ...]:
        """slot[n] = index of the smallest size >= n, for n <= max (small ladders only)."""
        slot = [0] * (self.max_size + 1)
        n = 0
        for i, size in enumerate(self.sizes):
            while n <= size:
                slot[n] = i
                n += 1
        return tuple(slot)

    def _hits(self, entries: tuple[Dispatch, ...]) -> tuple[Dispatch | None, ...]:
        """hits[n] = the graph a batch of n <= max tokens replays, or None (eager)."""
        out: list[Dispatch | None] = [None] * (self.max_size + 1)
        previous = 0
        for i, (size, hit) in enumerate(zip(self.sizes, entries)):
            if hit.mode is not CUDAGraphMode.NONE:
                if self.padding:
                    lo = max(previous, self.floor(i) - 1)
                    out[lo + 1:size + 1] = [hit] * (size - lo)
                else:
                    out[size] = hit
            previous = size
        return tuple(out)

    @cached_property
    def _mixed_hits(self) -> tuple[Dispatch | None, ...]:
        """The hot path's answer per n for a mixed batch."""
        return self._hits(self.mixed)

    @cached_property
    def _uniform_hits(self) -> tuple[Dispatch | None, ...]:
        """The hot path's answer per n for a uniform-decode batch."""
        return self._hits(self.uniform)

    @cached_property
    def _indexed(self) -> int:
        """Batches up to this many tokens are answered from the per-n tables (0: none)."""
        return self.max_size if self.max_size <= _INDEX_LIMIT else 0

    def mixed_hits(self) -> tuple[tuple[Dispatch | None, ...], int]:
        """(hits, top): hits[n] is the graph a mixed batch of 0 < n <= top tokens replays
        (None: it runs eagerly, unpadded), exactly as `lookup(n)`; top is 0 for ladders too
        large to index."""
        return (self._mixed_hits if self._indexed else ()), self._indexed

    def _index(self, n: int) -> int:
        if self.max_size <= _INDEX_LIMIT:
            return self._slot[n]
        return bisect_left(self.sizes, n)

    def _entry(self, n: int, entries: tuple[Dispatch, ...]) -> Dispatch | None:
        """The graph a batch of n <= max tokens replays, or None when it runs eagerly."""
        i = self._index(n)
        if not self.padding and self.sizes[i] != n:
            return None
        if self.min_tokens and n < self.min_tokens[i]:
            return None
        hit = entries[i]
        return None if hit.mode is CUDAGraphMode.NONE else hit

    def lookup(self, num_tokens: int, *, uniform_decode: bool = False,
               num_reqs: int | None = None) -> Dispatch:
        """The dispatch of one batch (validated; eager batches come back unpadded).

        A well-formed batch below the largest size is answered from the per-n tables after
        a few integer comparisons; anything else takes `_checked`, which names the problem.
        """
        if type(num_tokens) is int and 0 < num_tokens <= self._indexed:
            if not uniform_decode:
                if num_reqs is None or (type(num_reqs) is int and 0 < num_reqs <= num_tokens
                                        and num_reqs <= self.max_num_seqs):
                    hit = self._mixed_hits[num_tokens]
                    if hit is not None and num_reqs is not None and self._over(num_reqs):
                        hit = None
                    return hit if hit is not None else Dispatch(
                        CUDAGraphMode.NONE, num_tokens, num_reqs)
            else:
                q = self.uniform_query_len
                r = num_tokens // q
                if r * q == num_tokens and r <= self.max_num_seqs and (
                        num_reqs is None or (type(num_reqs) is int and num_reqs == r)):
                    hit = self._uniform_hits[num_tokens]
                    if hit is not None and self._over(r):
                        hit = None
                    return hit if hit is not None else Dispatch(CUDAGraphMode.NONE,
                                                                num_tokens, r)
        return self._checked(num_tokens, uniform_decode, num_reqs)

    def _over(self, num_reqs: int) -> bool:
        """Whether a batch of `num_reqs` requests exceeds the graphs' request slots."""
        return self.max_graph_requests is not None and num_reqs > self.max_graph_requests

    def _checked(self, num_tokens: int, uniform_decode: bool, num_reqs: int | None
                 ) -> Dispatch:
        """`lookup` with every argument validated (the slow path: errors, huge ladders)."""
        if type(num_tokens) is not int or num_tokens < 1:
            raise BatchError(f"num_tokens: must be an integer >= 1, got {num_tokens!r}")
        if num_reqs is not None and type(num_reqs) is not int:
            raise BatchError(f"num_reqs: must be an integer, got {num_reqs!r}")
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
        hit = None
        if num_tokens <= self.max_size and (num_reqs is None or not self._over(num_reqs)):
            hit = self._entry(num_tokens, self.uniform if uniform_decode else self.mixed)
        return hit if hit is not None else Dispatch(CUDAGraphMode.NONE, num_tokens, num_reqs)

    def segments(self, step: int, first: int, last: int, *,
                 uniform: bool) -> list[Segment]:
        """Batches of step*a tokens, a in [first, last], grouped by the graph they replay.

        Consecutive eager batches form one segment; at most 2 segments per capture size.
        Sizes below the first batch are skipped by bisection, so a family of single points
        (capture runs every ladder size) costs O(log sizes) per point, not O(sizes).
        """
        entries = self.uniform if uniform else self.mixed
        new = tuple.__new__  # a Segment without its Python-level __new__: one per size
        out: list[Segment] = []
        none = CUDAGraphMode.NONE
        padding = self.padding
        eager_lo, eager_hi = 0, -1  # a pending eager run [lo, hi] (none while lo > hi)
        previous = 0
        floors = self.min_tokens or (1,) * len(self.sizes)
        pairs: Iterable[tuple[int, Dispatch, int]] = zip(self.sizes, entries, floors)
        start = bisect_left(self.sizes, step * first) if first > 1 else 0
        if start:  # every size before `start` holds no batch of the family: skip them
            previous = self.sizes[start - 1]
            pairs = ((self.sizes[i], entries[i], floors[i])
                     for i in range(start, len(self.sizes)))
        for size, hit, floor in pairs:
            top = size // step
            lo, hi = previous // step + 1, top
            previous = size
            if lo < first:
                lo = first
            if hi > last:
                hi = last
            if lo > hi:
                if lo > last:
                    break
                continue
            if hit.mode is not none and padding and floor > 1:
                glo = -(-floor // step)  # the smallest batch of the bucket that replays
                if lo < glo:  # the bucket's small batches pad too much: eager
                    ehi = min(hi, glo - 1)
                    if eager_lo <= eager_hi and eager_hi + 1 == lo:
                        eager_hi = ehi
                    else:
                        if eager_lo <= eager_hi:
                            out.append(new(Segment, (eager_lo, eager_hi, None)))
                        eager_lo, eager_hi = lo, ehi
                    lo = glo
                if lo > hi:
                    continue
            if hit.mode is not none and padding:
                if eager_lo <= eager_hi:
                    out.append(new(Segment, (eager_lo, eager_hi, None)))
                    eager_lo, eager_hi = 0, -1
                out.append(new(Segment, (lo, hi, hit)))
                continue
            if hit.mode is not none and size % step == 0 and top <= hi and (
                    step * top >= floor):
                ehi = top - 1  # every batch below the captured size runs eagerly
                graph: Segment | None = new(Segment, (top, top, hit))
            else:
                ehi, graph = hi, None
            if lo <= ehi:
                if eager_lo <= eager_hi and eager_hi + 1 == lo:
                    eager_hi = ehi
                else:
                    if eager_lo <= eager_hi:
                        out.append(new(Segment, (eager_lo, eager_hi, None)))
                    eager_lo, eager_hi = lo, ehi
            if graph is not None:
                if eager_lo <= eager_hi:
                    out.append(new(Segment, (eager_lo, eager_hi, None)))
                    eager_lo, eager_hi = 0, -1
                out.append(graph)
        lo = max(first, self.max_size // step + 1)
        if lo <= last:
            if eager_lo <= eager_hi and eager_hi + 1 == lo:
                eager_hi = last
            else:
                if eager_lo <= eager_hi:
                    out.append(new(Segment, (eager_lo, eager_hi, None)))
                eager_lo, eager_hi = lo, last
        if eager_lo <= eager_hi:
            out.append(new(Segment, (eager_lo, eager_hi, None)))
        return out
