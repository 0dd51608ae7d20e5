"""The oracle's stub modules leave `sys.modules` when the outermost `stubbed()` ends.

`sglang_stubs.stubbed` removes the stubs it made by name (the names its finder gave out), not
by testing every loaded module: this checks the result against that full test, so a stub that
reached `sys.modules` another way, or a name left off the list, fails here and not as a later
test that imports a real package and finds a stub.
"""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.oracle import sglang_stubs as ss

# stubbed packages nothing in the suite imports for real (the finder only answers a name
# that is not loaded yet)
NAMES = ("gguf", "gguf.constants", "tvm_ffi.core", "IPython.display")


def _stubs_loaded() -> list[str]:
    """Every stub module in `sys.modules`, found by testing each entry."""
    return [name for name, module in sys.modules.items()
            if isinstance(module, ss._StubModule)]


def test_nested_contexts_leave_no_stub_behind() -> None:
    assert not _stubs_loaded()
    if any(name.split(".")[0] in sys.modules for name in NAMES):
        pytest.fail(f"a real package took a stub's name: {NAMES}")  # pragma: no cover
    with ss.fake_cuda():
        outer = importlib.import_module(NAMES[0])
        with ss.fake_cuda():
            for name in NAMES[1:]:
                importlib.import_module(name)
        # the inner context's stubs stay until the outermost one ends
        assert set(NAMES) | {"tvm_ffi", "IPython"} <= set(_stubs_loaded())
        assert isinstance(outer, ss._StubModule)
    assert not _stubs_loaded()
    assert ss._FINDER not in sys.meta_path
    with ss.fake_cuda():  # a later context makes them again
        assert isinstance(importlib.import_module(NAMES[1]), ss._StubModule)
    assert not _stubs_loaded()


def test_a_name_left_off_the_list_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: a finder that no longer records its names leaves its stubs loaded, which the
    full test above sees."""
    monkeypatch.setattr(ss, "_CREATED", _Forgetful())
    try:
        with ss.fake_cuda():
            importlib.import_module(NAMES[0])
        assert _stubs_loaded() == [NAMES[0]]
    finally:
        del sys.modules[NAMES[0]]
    assert not _stubs_loaded()


class _Forgetful(list[str]):
    """A name list that drops what it is given."""

    def append(self, name: str) -> None:
        pass
