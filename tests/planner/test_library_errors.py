"""The planner API on hostile arguments: graphfit's own errors, never a raw TypeError,
IndexError, KeyError, AttributeError or OverflowError, never a hang, and no padded size below
its batch.

Arguments are drawn from a pool of wrong types and values (bools, NaN, inf, floats, text,
huge integers, containers, arbitrary objects); each call either answers correctly or raises a
GraphfitError (ConfigError / BatchError / CapacityError).
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import (
    ConfigError,
    EngineConfig,
    GraphfitError,
    Plan,
    padding_table,
    plan,
)
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES
from tests.helpers import only_graphfit_errors

FEW = settings(max_examples=40, deadline=None)

hostile = st.one_of(
    st.booleans(), st.none(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6), st.integers(-(2 ** 70), 2 ** 70),
    st.lists(st.integers(-3, 9), max_size=3), st.dictionaries(st.text(max_size=3),
                                                              st.integers(), max_size=2),
    st.sampled_from([math.inf, -math.inf, math.nan, 5.0, "5", b"5", object(), (), {5: 5},
                     range(3), {1, 2}, 2 ** 63, -1, 0]),
)
FIELDS = ["max_num_seqs", "max_num_batched_tokens", "max_model_len", "num_speculative_tokens",
          "spec_method", "cudagraph_mode", "cudagraph_capture_sizes",
          "max_cudagraph_capture_size", "hidden_size", "dtype", "runner", "ceiling_family",
          "performance_mode", "ladder", "multimodal", "block_size", "mrope_dims", "engine",
          "cuda_graph_padding", "speculative_eagle_topk", "speculative_num_draft_tokens",
          "draft_hidden_size"]
P = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64, num_speculative_tokens=1,
                      spec_method="dflash"))


@FEW
@given(field=st.sampled_from(FIELDS), value=hostile)
def test_engine_config_fields(field: str, value: object) -> None:
    base = {"max_num_seqs": 8} if field != "max_num_seqs" else {}
    only_graphfit_errors(lambda: EngineConfig(**base, **{field: value}))


@pytest.mark.parametrize("kwargs", [{"bogus": 1}, {}, {"max_num_seqs": 8, "max_num_seq": 9}])
def test_engine_config_arguments_it_cannot_bind(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        EngineConfig(**kwargs)
    with pytest.raises(ConfigError):
        P.config.replace(**{"bogus": 1})


def test_a_huge_capture_list_is_refused_before_it_is_read() -> None:
    start = time.perf_counter()
    for sizes in (range(1, 10 ** 9), iter(range(1, 10 ** 9)), list(range(1, 2 ** 15))):
        with pytest.raises(ConfigError, match="16,384"):
            EngineConfig(max_num_seqs=8, cudagraph_capture_sizes=sizes)
    assert time.perf_counter() - start < 5
    assert len(EngineConfig(max_num_seqs=8, max_num_batched_tokens=MAX_CAPTURE_SIZES,
                            cudagraph_capture_sizes=range(1, MAX_CAPTURE_SIZES + 1),
                            ladder="explicit").cudagraph_capture_sizes or ()) == \
        MAX_CAPTURE_SIZES


@FEW
@given(layout=hostile | st.sampled_from(["arena", "separate"]),
       alignment=hostile | st.sampled_from([1, 256]))
def test_plan_layout_arguments(layout: object, alignment: object) -> None:
    only_graphfit_errors(lambda: plan(P.config, layout=layout, alignment=alignment))  # type: ignore[arg-type]
    only_graphfit_errors(lambda: plan(layout))  # type: ignore[arg-type]


@FEW
@given(n=hostile | st.integers(1, 200), uniform=hostile | st.booleans(),
       reqs=hostile | st.none() | st.integers(1, 9),
       component=st.sampled_from(["target", "drafter"]) | hostile)
def test_pad_never_returns_less_than_its_batch(n: object, uniform: object, reqs: object,
                                               component: object) -> None:
    d = only_graphfit_errors(lambda: P.pad(n, uniform_decode=uniform, num_reqs=reqs,  # type: ignore[arg-type]
                                           component=component))  # type: ignore[arg-type]
    if d is not None:
        assert type(n) is int and n >= 1 and d.padded >= n


@pytest.mark.parametrize("n", [True, False, math.inf, math.nan, "5", 5.0, -1, 0, None, [5]])
def test_pad_refuses_what_is_not_a_token_count(n: object) -> None:
    for kwargs in ({}, {"num_reqs": 1}, {"uniform_decode": True}):
        with pytest.raises(GraphfitError):
            P.pad(n, **kwargs)  # type: ignore[arg-type]


@FEW
@given(capacities=hostile | st.dictionaries(st.sampled_from(["target.input_ids", "x", "a.b"]),
                                            hostile, max_size=2),
       fills=hostile | st.dictionaries(st.sampled_from(["target.positions", "x"]), hostile,
                                       max_size=2))
def test_verify_arguments(capacities: object, fills: object) -> None:
    only_graphfit_errors(lambda: P.verify(capacities=capacities, fills=fills))  # type: ignore[arg-type]


@FEW
@given(value=hostile)
def test_lookups_by_name(value: object) -> None:
    for call in (P.buffer, P.component, P.graph_keys, P.graph_sizes):
        only_graphfit_errors(lambda: call(value))  # type: ignore[arg-type]  # noqa: B023
    only_graphfit_errors(lambda: padding_table(value))  # type: ignore[arg-type]


def test_verify_and_friends_name_the_problem() -> None:
    with pytest.raises(ConfigError, match="capacities"):
        P.verify(capacities=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="fills"):
        P.verify(fills=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="alignment"):
        plan(P.config, alignment=2.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="padding_table"):
        padding_table((1, 10 ** 9))
    assert isinstance(P, Plan)
