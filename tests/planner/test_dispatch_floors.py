"""Per-size padding floors and a graph request limit in `DispatchTables`: `lookup`, the
per-n index and the walk's `segments` agree with the rule stated directly (a batch of n
tokens replays the smallest size >= n unless n is below that size's floor; with a request
limit, a batch of more known requests runs eagerly)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.dispatch import Dispatch, DispatchTables
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError


@st.composite
def floored_tables(draw: st.DrawFn) -> DispatchTables:
    sizes = tuple(sorted(draw(st.sets(st.integers(1, 300), min_size=1, max_size=12))))
    floors = tuple(draw(st.integers(1, s)) for s in sizes) if draw(st.booleans()) else ()
    padding = draw(st.booleans())
    mixed = tuple(Dispatch(CUDAGraphMode.PIECEWISE, s, None) if draw(st.booleans())
                  else Dispatch(CUDAGraphMode.NONE, 0, None) for s in sizes)
    limit = draw(st.one_of(st.none(), st.integers(1, 50)))
    return DispatchTables(sizes, mixed, mixed, 1, 64, padding, floors, limit)


def expected(t: DispatchTables, n: int, reqs: int | None) -> int | None:
    """The padded size a batch of n tokens replays, or None (eager), stated directly."""
    if n > t.max_size or (reqs is not None and t.max_graph_requests is not None
                          and reqs > t.max_graph_requests):
        return None
    i = next(i for i, s in enumerate(t.sizes) if s >= n)
    if t.mixed[i].mode is CUDAGraphMode.NONE or (not t.padding and t.sizes[i] != n):
        return None
    if t.min_tokens and n < t.min_tokens[i]:
        return None
    return t.sizes[i]


@given(floored_tables(), st.integers(1, 320), st.one_of(st.none(), st.integers(1, 64)))
def test_lookup_follows_floors_and_request_limit(t: DispatchTables, n: int,
                                                 reqs: int | None) -> None:
    if reqs is not None and reqs > min(n, t.max_num_seqs):
        reqs = min(n, t.max_num_seqs)
    d = t.lookup(n, num_reqs=reqs)
    want = expected(t, n, reqs)
    if want is None:
        assert d.mode is CUDAGraphMode.NONE and d.padded == n
    else:
        assert d.mode is not CUDAGraphMode.NONE and d.padded == want >= n
    hits, top = t.mixed_hits()
    if reqs is None and n <= top:
        assert (hits[n].padded if hits[n] is not None else None) == want


@given(floored_tables(), st.integers(1, 3), st.integers(1, 120), st.integers(0, 120))
def test_segments_equal_lookup_batch_by_batch(t: DispatchTables, step: int, first: int,
                                              span: int) -> None:
    last = first + span
    segments = t.segments(step, first, last, uniform=False)
    seen = []
    for lo, hi, d in segments:
        assert lo <= hi
        for a in range(lo, hi + 1):
            seen.append(a)
            assert (d.padded if d is not None else None) == expected(t, step * a, None)
    assert seen == list(range(first, last + 1))


def test_two_x_padding_floor() -> None:
    """SGLang's prefill rule as floors: sizes 4, 8, 16, 48 with at most 2x padding."""
    sizes = (4, 8, 16, 48)
    graph = tuple(Dispatch(CUDAGraphMode.PIECEWISE, s, None) for s in sizes)
    t = DispatchTables(sizes, graph, graph, 1, 8, True, tuple((s + 1) // 2 for s in sizes))
    assert [t.lookup(n).padded if t.lookup(n).mode is not CUDAGraphMode.NONE else None
            for n in (1, 2, 3, 5, 9, 17, 23, 24, 48, 49)] == [None, 4, 4, 8, 16, None, None,
                                                               48, 48, None]


@pytest.mark.parametrize("floors", [(1,), (5, 1), (0, 1), (1, 9)])
def test_bad_floors_refused(floors: tuple[int, ...]) -> None:
    graph = (Dispatch(CUDAGraphMode.PIECEWISE, 4, None), Dispatch(CUDAGraphMode.PIECEWISE, 8,
                                                                  None))
    with pytest.raises(ConfigError):
        DispatchTables((4, 8), graph, graph, 1, 8, True, floors)


def test_bad_request_limit_refused() -> None:
    with pytest.raises(ConfigError):
        DispatchTables((), (), (), 1, 8, True, (), 0)
