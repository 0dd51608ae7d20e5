"""`torch.compile` deferred while SGLang code runs (tests/oracle/sglang_stubs.py,
`_deferred_compile`; issue 23, s68x): the real `torch.compile` is still what a deferred
function runs, with the same options, from its first call; outside `stubbed()` torch's own
`torch.compile` stands. No SGLang import and no compilation (a recording stand-in for the
real `torch.compile`): well under a second. That SGLang's install then leaves torch._inductor
unimported is checked in the fresh interpreter of test_sglang_stub_platform.py.
"""

from __future__ import annotations

from typing import Any

import torch

from tests.oracle import sglang_stubs


def _recording() -> tuple[Any, list[tuple[Any, dict[str, Any]]]]:
    """A stand-in for torch.compile: records (model, options), returns a doubling function."""
    calls: list[tuple[Any, dict[str, Any]]] = []

    def real(model: Any, **options: Any) -> Any:
        calls.append((model, options))
        return lambda *args, **kwargs: 2 * model(*args, **kwargs)

    return real, calls


def _plus(x: int, y: int = 0) -> int:
    """A function to compile."""
    return x + y


def test_a_function_is_compiled_at_its_first_call_with_its_options() -> None:
    real, calls = _recording()
    compile = sglang_stubs._deferred_compile(real)
    deferred = compile(_plus, dynamic=True, backend="eager")
    assert calls == [] and deferred.__name__ == "_plus" and deferred.__doc__ == _plus.__doc__
    assert deferred(1, y=2) == 6 and deferred(3) == 6  # the compiled function's answers
    assert calls == [(_plus, {"dynamic": True, "backend": "eager"})]  # compiled once


def test_the_decorator_form_defers_too() -> None:
    real, calls = _recording()
    compile = sglang_stubs._deferred_compile(real)

    @compile(disable=False)
    def three() -> int:
        return 3

    assert calls == [] and three() == 6 and calls[0][1] == {"disable": False}


def test_a_module_goes_to_the_real_compile_at_once() -> None:
    real, calls = _recording()
    module = torch.nn.Identity()
    sglang_stubs._deferred_compile(real)(module, mode="reduce-overhead")
    assert calls == [(module, {"mode": "reduce-overhead"})]


def test_only_inside_stubbed() -> None:
    """`stubbed()` as the fake GPU enters it (tests/oracle/test_sglang_stub_sites.py)."""
    own = torch.compile
    with sglang_stubs.fake_cuda():
        assert getattr(torch.compile, "graphfit_deferred", False)
        with sglang_stubs.imports():  # re-entrant: still deferred, not wrapped twice
            inner = torch.compile
            assert getattr(inner, "graphfit_deferred", False)
        assert torch.compile is inner
    assert torch.compile is own
