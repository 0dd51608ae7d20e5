"""The runtime on hostile arguments: graphfit's own errors, never a raw TypeError,
AttributeError or RuntimeError, and never a silent conversion.

`GraphRunner.step` copies inputs into static buffers: a float tensor into an int64 buffer
(positions 1.7 -> 1, NaN -> garbage) or int64 ids beyond int32 into an int32 buffer (wrapped)
would make replay differ from eager without a word, so any dtype other than the buffer's is
refused. `sync_dp_padding` refuses a token count its dispatch does not hold instead of
agreeing on a padded size below the batch.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import BatchError, ConfigError, CUDAGraphMode, Dispatch, Plan, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers, sync_dp_padding
from tests.cudagraph.runtime_models import SMALL, TinyTarget, target_batch
from tests.helpers import only_graphfit_errors

FEW = settings(max_examples=30, deadline=None)
hostile = st.one_of(
    st.booleans(), st.none(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5), st.integers(-(2 ** 70), 2 ** 70), st.lists(st.integers(), max_size=2),
    st.sampled_from([math.inf, 5.0, "5", object(), {5: 5}, 42, [], {}, "cuda:99", "xx"]),
)


@functools.cache
def harness() -> tuple[Plan, StaticBuffers, GraphRunner, TinyTarget]:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    model = TinyTarget()
    return p, bufs, GraphRunner(model.graph_fn, p, bufs), model



@FEW
@given(device=hostile | st.just("cpu"), component=hostile | st.just("target"),
       capacities=hostile | st.dictionaries(
           st.none() | st.integers() | st.text(max_size=5) | st.just("input_ids"), hostile,
           max_size=2))
def test_allocate_arguments(device: object, component: object, capacities: object) -> None:
    p = harness()[0]
    only_graphfit_errors(lambda: StaticBuffers.allocate(p, device, component,  # type: ignore[arg-type]
                                                        capacities=capacities))  # type: ignore[arg-type]


def test_allocate_names_bad_arguments() -> None:
    p = harness()[0]
    with pytest.raises(ConfigError, match="buffer names are strings"):
        StaticBuffers.allocate(p, capacities={5: 5})  # type: ignore[dict-item]
    with pytest.raises(ConfigError, match="capacities"):
        StaticBuffers.allocate(p, capacities=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="device"):
        StaticBuffers.allocate(p, device="not-a-device")
    with pytest.raises(ConfigError, match="cannot be allocated"):
        StaticBuffers.allocate(p, capacities={"input_ids": 2 ** 62})


@FEW
@given(name=hostile | st.just("input_ids"), n=hostile | st.integers(-3, 300))
def test_view_is_exact_or_a_graphfit_error(name: object, n: object) -> None:
    bufs = harness()[1]
    view = only_graphfit_errors(lambda: bufs.view(name, n))  # type: ignore[arg-type]
    if view is not None:
        assert view.shape[bufs.spec(name).axis_dim] == n  # type: ignore[arg-type]


DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.int16, torch.bool,
          torch.bfloat16]


@FEW
@given(n=st.integers(1, 40), dtype=st.sampled_from(DTYPES), which=st.sampled_from(
    ["input_ids", "positions", "slot_mapping", "seq_lens"]), data=st.data())
def test_a_step_refuses_any_dtype_but_the_buffer_s(n: int, dtype: torch.dtype, which: str,
                                                   data: st.DataObject) -> None:
    _, bufs, runner, model = harness()
    r = data.draw(st.integers(1, min(n, SMALL.max_num_seqs)))
    batch = target_batch(torch.Generator().manual_seed(n), n, r)
    batch[which] = batch[which].to(dtype)
    if dtype != bufs[which].dtype:
        with pytest.raises(BatchError, match="never converts"):
            runner.step(batch)
        with pytest.raises(BatchError, match="never converts"):
            runner.step(batch)  # a second time: no prepared shortcut either
        return
    out = runner.step(batch)
    torch.testing.assert_close(out, model(batch["input_ids"], batch["positions"],
                                          batch["query_start_loc"], batch["seq_lens"]))


def test_float_positions_and_wide_ids_are_refused_not_converted() -> None:
    _, bufs, runner, _ = harness()
    batch = target_batch(torch.Generator().manual_seed(0), 4, 2)
    for name, bad in (("positions", torch.tensor([1.7, math.nan, 1.0, 2.0])),
                      ("input_ids", torch.tensor([2 ** 40, 1, 1, 1], dtype=torch.int64))):
        before = bufs[name].clone()
        with pytest.raises(BatchError, match="never converts"):
            runner.step({**batch, name: bad})
        assert torch.equal(bufs[name], before)  # nothing was written


@FEW
@given(inputs=hostile, num_tokens=hostile | st.integers(-2, 40),
       num_reqs=hostile | st.none() | st.integers(-2, 9), dispatch=hostile | st.none())
def test_step_arguments(inputs: object, num_tokens: object, num_reqs: object,
                        dispatch: object) -> None:
    runner = harness()[2]
    out = only_graphfit_errors(lambda: runner.step(inputs, num_tokens=num_tokens,  # type: ignore[arg-type]
                                                   num_reqs=num_reqs, dispatch=dispatch))  # type: ignore[arg-type]
    if out is not None:
        assert isinstance(num_tokens, int) and out.shape[0] == num_tokens


def test_runner_arguments() -> None:
    p, bufs, _, model = harness()
    for args in ((5, p, bufs), (model.graph_fn, 5, bufs), (model.graph_fn, p, 5)):
        with pytest.raises(ConfigError):
            GraphRunner(*args, capture=False)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="graph_inputs"):
        GraphRunner(model.graph_fn, p, bufs, graph_inputs="input_ids", capture=False)


def test_dp_padding_refuses_a_batch_its_dispatch_does_not_hold() -> None:
    p = harness()[0]
    small = p.pad(4)
    assert small.padded == 4
    with pytest.raises(BatchError, match="do not fit"):
        sync_dp_padding(small, plan=p, num_tokens=10)
    for bad in (True, 2.5, "10", 0, None):
        with pytest.raises(BatchError):
            sync_dp_padding(small, plan=p, num_tokens=bad)  # type: ignore[arg-type]
    with pytest.raises(BatchError):
        sync_dp_padding("dispatch", plan=p, num_tokens=4)  # type: ignore[arg-type]
    with pytest.raises(BatchError):
        sync_dp_padding(small, plan="plan", num_tokens=4)  # type: ignore[arg-type]
    agreed = sync_dp_padding(p.pad(3), plan=p, num_tokens=3)
    assert agreed.padded >= 3
    eager = Dispatch(CUDAGraphMode.NONE, 500, None)
    assert sync_dp_padding(eager, plan=p, num_tokens=500) is eager
