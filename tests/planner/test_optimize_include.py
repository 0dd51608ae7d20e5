"""--include: sizes that must stay. The segment programme is exact (brute force over every
ladder on small instances) and agrees with the plain programme when nothing is included."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.planner.tuning.optimize import (
    expected_waste_total,
    optimal_ladder,
    optimal_ladder_including,
)
from graphfit.planner.tuning.trace import Trace


@st.composite
def instances(draw: st.DrawFn) -> tuple[Trace, int, int, int, list[int]]:
    M = draw(st.integers(2, 20))
    samples = draw(st.lists(st.integers(1, M + 4), min_size=1, max_size=14))
    g = draw(st.sampled_from([1, 1, 2, 3]))
    include = sorted(set(draw(st.lists(st.integers(1, M), max_size=2))))
    K = draw(st.integers(len(set(include) | {M}), 6))
    return Trace.from_samples(samples), M, g, K, include


@given(instances())
def test_included_sizes_stay_and_the_rest_is_optimal(case: tuple[Trace, int, int, int,
                                                                  list[int]]) -> None:
    trace, M, g, K, include = case
    got = optimal_ladder_including(trace, K, M, g, include)
    assert set(include) <= set(got) and got[-1] == M and len(got) <= K
    assert list(got) == sorted(set(got))
    assert all(s % g == 0 or s in include for s in got[:-1])
    pool = [s for s in range(1, M) if s % g == 0 or s in include]
    best = min(expected_waste_total(tuple(sorted({*combo, M})), trace)
               for r in range(K) for combo in combinations(pool, r)
               if set(include) <= {*combo, M})
    assert expected_waste_total(got, trace) == best
    if not include:
        assert expected_waste_total(optimal_ladder(trace, K, M, g), trace) == best


def test_include_is_validated() -> None:
    trace = Trace.from_samples([3, 5, 9])
    with pytest.raises(ConfigError, match="above the max capture size"):
        optimal_ladder_including(trace, 4, 8, include=[9])
    with pytest.raises(ConfigError, match="3 sizes must stay"):
        optimal_ladder_including(trace, 2, 8, include=[1, 2])
    assert optimal_ladder_including(trace, 3, 16, include=[1]) == (1, 5, 16)
