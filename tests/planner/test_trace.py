"""The planner's Trace: validated fields, eager weight above a limit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.planner.tuning.trace import Trace


@given(st.lists(st.integers(1, 300), min_size=1, max_size=80), st.integers(0, 320))
def test_weight_above_counts_the_eager_steps(samples: list[int], limit: int) -> None:
    trace = Trace.from_samples(samples)
    assert trace.weight_above(limit) == sum(1 for n in samples if n > limit)


def test_trace_validates_its_fields() -> None:
    with pytest.raises(ConfigError, match="ascending"):
        Trace((4, 2), (1, 1))
    with pytest.raises(ConfigError, match="weights"):
        Trace((2,), (1, 1))
    with pytest.raises(ConfigError, match="> 0"):
        Trace((2,), (0,))
