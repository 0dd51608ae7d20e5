"""Every public callable of `graphfit` and `graphfit.cudagraph` on hostile arguments (issue 26).

Each name in the two packages' `__all__` that can be called (functions and classes; not the
typing Protocols and aliases, which only annotate) is called with its parameters bound from a
pool of wrong types and extreme values: None, bools, NaN, inf, 2**70, text, containers,
0-d and meta tensors, torch dtypes, devices, dispatches, a real plan and its buffers. Every
call either returns or raises graphfit's own error (GraphfitError: ConfigError, BatchError,
CapacityError); anything else -- a TypeError, an AssertionError from torch, a hang -- fails.
The explicit cases the issue lists are checked one by one below the property.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import math
import typing
from collections.abc import Callable
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import graphfit
import graphfit.cudagraph as runtime
from graphfit import (
    BatchError,
    ConfigError,
    CUDAGraphMode,
    Dispatch,
    EngineConfig,
    FillKind,
    FillPolicy,
    GraphfitError,
    plan,
    request_counts,
)
from graphfit.cudagraph import (
    GraphRunner,
    StaticBuffers,
    fill_tail,
    poison_value,
    static_requests,
    torch_dtype,
)

P = plan(EngineConfig(max_num_seqs=8, max_num_batched_tokens=64))
BUFFERS = StaticBuffers.allocate(P)


def _double(views: typing.Mapping[str, torch.Tensor]) -> torch.Tensor:
    return views["input_ids"] * 2


# integers are small or extreme, never a few GiB: a buffer of 2**33 rows would be allocated
ATOMS = [None, True, False, 0, 1, -1, 7, 2**62, 2**63 - 1, 2**63, 2**70, -(2**70), 1.5,
         math.nan, math.inf, -math.inf, "", "x", "cpu", "cuda", "meta", "target", "vllm",
         "FULL", b"8", (), [], {}, [1, 2], (8,), {"a": 1}, object(), range(3),
         torch.tensor(10), torch.tensor([1, 2]), torch.tensor(1.5),
         torch.zeros(3, dtype=torch.int32, device="meta"), torch.zeros(4, dtype=torch.bool),
         torch.float32, torch.uint8, torch.bool, torch.device("meta"),
         Dispatch(CUDAGraphMode.PIECEWISE, 8, None), Dispatch(CUDAGraphMode.NONE, 0, None),
         FillPolicy(FillKind.SENTINEL, -1), P, BUFFERS, _double, lambda *a, **k: ()]
hostile = st.sampled_from(ATOMS) | st.integers(-3, 80)


def _is_annotation_only(value: object) -> bool:
    """Protocols and type aliases: they type-annotate, they are not called."""
    return bool(getattr(value, "_is_protocol", False)) or typing.get_origin(value) is not None \
        or isinstance(value, type(typing.Union[int, str]))  # noqa: UP007


def _callables(module: Any) -> list[tuple[str, Callable[..., Any]]]:
    out = []
    for name in module.__all__:
        value = getattr(module, name)
        if callable(value) and not _is_annotation_only(value):
            out.append((f"{module.__name__}.{name}", value))
    return out


CALLABLES = dict(_callables(graphfit) + _callables(runtime))


def _parameters(target: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # pragma: no cover - every public callable has one
        return []
    return [p for p in signature.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def test_the_public_surface_is_covered() -> None:
    """The property below reaches every callable named in the issue."""
    for name in ("fill_tail", "poison_value", "sentinel_value", "static_requests",
                 "torch_dtype", "StaticBuffers", "GraphRunner", "get_backend",
                 "sync_dp_padding"):
        assert f"graphfit.cudagraph.{name}" in CALLABLES
    for name in ("plan", "request_counts", "padding_table", "EngineConfig", "FillPolicy",
                 "Dispatch", "CUDAGraphMode"):
        assert f"graphfit.{name}" in CALLABLES


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(CALLABLES)), data=st.data())
def test_public_callables_raise_only_graphfit_errors(name: str, data: st.DataObject) -> None:
    target = CALLABLES[name]
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    parameters = _parameters(target)
    if isinstance(target, type) and issubclass(target, enum.Enum):
        # a lookup by value, always given (the rest is Enum's functional API; what
        # inspect.signature says of an Enum class depends on the Python release: 3.12 gives
        # `(*values)`, which the filter above empties)
        parameters = [inspect.Parameter("value", inspect.Parameter.POSITIONAL_ONLY)]
    for parameter in parameters:
        required = parameter.default is parameter.empty
        if not required and not data.draw(st.booleans(), label=f"give {parameter.name}"):
            continue
        value = data.draw(hostile, label=parameter.name)
        if parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        elif parameter.kind is parameter.POSITIONAL_ONLY or (required and not kwargs):
            args.append(value)
        else:
            kwargs[parameter.name] = value
    try:
        target(*args, **kwargs)
    except GraphfitError as exc:
        assert str(exc) and "\n" not in str(exc), (name, str(exc))


@settings(max_examples=60, deadline=None)
@given(method=st.sampled_from(["pad", "buffer", "graph_keys", "graph_sizes", "component"]),
       first=hostile, second=hostile)
def test_plan_methods_raise_only_graphfit_errors(method: str, first: object,
                                                 second: object) -> None:
    call = getattr(P, method)
    for args in ((first,), (first, second)):
        try:
            call(*args)
        except GraphfitError:
            pass
        except TypeError as exc:  # too many positional arguments: Python's own binding
            assert "positional argument" in str(exc), exc


@settings(max_examples=60, deadline=None)
@given(method=st.sampled_from(["view", "capacity", "spec", "poison", "reset_arange"]),
       first=hostile, second=hostile)
def test_buffer_methods_raise_only_graphfit_errors(method: str, first: object,
                                                   second: object) -> None:
    buffers = StaticBuffers.allocate(P)
    call = getattr(buffers, method)
    arity = len(_parameters(call))
    with contextlib.suppress(GraphfitError):
        call(*(first, second)[:arity])


# -- the cases, one by one -----------------------------------------------------------

@pytest.mark.parametrize(("call", "error"), [
    (lambda: fill_tail(torch.zeros(8), "0", 2, FillPolicy()), ConfigError),  # type: ignore[arg-type]
    (lambda: fill_tail(torch.zeros(8), 0, 2.0, FillPolicy()), ConfigError),  # type: ignore[arg-type]
    (lambda: fill_tail(torch.zeros(8), 0, -1, FillPolicy()), ConfigError),
    (lambda: fill_tail(torch.zeros(8), 5, 2, FillPolicy()), ConfigError),
    (lambda: FillPolicy(FillKind.SENTINEL, math.nan), ConfigError),
    (lambda: FillPolicy(FillKind.SENTINEL, math.inf), ConfigError),
    (lambda: FillPolicy(FillKind.SENTINEL, 2**70), ConfigError),
    (lambda: FillPolicy(FillKind.SENTINEL, "x"), ConfigError),  # type: ignore[arg-type]
    (lambda: FillPolicy(None), ConfigError),  # type: ignore[arg-type]
    (lambda: poison_value(None), ConfigError),  # type: ignore[arg-type]
    (lambda: static_requests(None, None), BatchError),  # type: ignore[arg-type]
    (lambda: torch_dtype({}), ConfigError),  # type: ignore[arg-type]
    (lambda: request_counts(None, None), ConfigError),  # type: ignore[arg-type]
    (lambda: request_counts(1.5, 8), ConfigError),  # type: ignore[arg-type]
    (lambda: request_counts((8,), 8), ConfigError),  # type: ignore[arg-type]
    (lambda: request_counts(10**18, 2**63), ConfigError),
    (lambda: request_counts(10**18, 2**62), ConfigError),
    (lambda: EngineConfig(cudagraph_capture_sizes=torch.tensor(10)), ConfigError),  # type: ignore[arg-type]
    (lambda: StaticBuffers.allocate(P, "meta"), ConfigError),
    (lambda: GraphRunner(_double, P, BUFFERS, backend=None), ConfigError),  # type: ignore[arg-type]
    (lambda: Dispatch(CUDAGraphMode.PIECEWISE, 8.0, None), BatchError),  # type: ignore[arg-type]
    (lambda: Dispatch("FULL", 8, None), BatchError),  # type: ignore[arg-type]
    (lambda: P.pad(P.config.max_num_batched_tokens + 1), BatchError),
    (lambda: CUDAGraphMode("x"), ConfigError),
])
def test_each_listed_call_is_one_graphfit_error(call: Callable[[], object],
                                                error: type[GraphfitError]) -> None:
    with pytest.raises(error) as caught:
        call()
    assert "\n" not in str(caught.value) and len(str(caught.value)) <= 200


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_buffers_without_cuda_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not available"):
        StaticBuffers.allocate(P, "cuda")


def test_request_counts_of_tensors_are_ints() -> None:
    counts = request_counts(torch.tensor(40), torch.tensor(40))  # type: ignore[arg-type]
    assert counts == request_counts(40, 40) and all(type(c) is int for c in counts)
    with pytest.raises(ConfigError):
        request_counts(torch.tensor(40.0), 40)  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "dtype"), [(1.5, torch.int64), (-1, torch.bool),
                                              (-1, torch.uint8), (2, torch.bool),
                                              (300, torch.uint8), (2**40, torch.int32)])
def test_a_sentinel_the_dtype_cannot_hold_is_refused(value: float, dtype: torch.dtype) -> None:
    tensor = torch.zeros(4, dtype=dtype)
    with pytest.raises(ConfigError, match="sentinel"):
        fill_tail(tensor, 0, 2, FillPolicy(FillKind.SENTINEL, value))
    assert not tensor.any()  # nothing was written
    fill_tail(tensor, 0, 2, FillPolicy(FillKind.SENTINEL, 1))  # a value it holds: filled
    assert tensor.tolist() == [0, 0, 1, 1]


def test_pad_refuses_only_past_the_token_budget() -> None:
    T = P.config.max_num_batched_tokens
    assert P.pad(T).padded >= T  # the largest batch the scheduler builds still dispatches
    with pytest.raises(BatchError, match="at most 64"):
        P.pad(T + 1)


def test_a_graph_returning_nothing_is_refused_at_capture() -> None:
    with pytest.raises(GraphfitError, match="at least one"):
        GraphRunner(lambda views: (), P, BUFFERS)


def test_a_caller_built_dispatch_with_a_float_size_never_reaches_a_graph() -> None:
    runner = GraphRunner(_double, P, StaticBuffers.allocate(P))
    with pytest.raises(BatchError, match="padded must be an integer"):
        runner.step({"input_ids": torch.ones(5, dtype=torch.int32)},
                    dispatch=Dispatch(CUDAGraphMode.PIECEWISE, 8.0, None))  # type: ignore[arg-type]


def test_a_meta_or_other_device_input_is_a_batch_error() -> None:
    runner = GraphRunner(_double, P, StaticBuffers.allocate(P))
    ids = torch.ones(5, dtype=torch.int32)
    assert runner.step({"input_ids": ids}).tolist() == [2] * 5  # type: ignore[union-attr]  # prepared for this shape
    with pytest.raises(BatchError, match="meta"):
        runner.step({"input_ids": torch.ones(5, dtype=torch.int32, device="meta")})
    assert runner.step({"input_ids": ids}).tolist() == [2] * 5  # type: ignore[union-attr]
