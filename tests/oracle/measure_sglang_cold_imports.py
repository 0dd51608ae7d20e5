"""Which SGLang modules a set of oracle tests imports for the first time off the fake GPU
(issue 23, s55x). Not a test.

A module's top-level code runs once for the process, at its first import, and some of it
asks the device (`_device_sm = get_device_sm()`, models/deepseek_common/utils.py:49, reading
torch.cuda at utils/common.py:756-764; `_IS_SM120 = is_sm120_supported()`,
layers/attention/dsv4/metadata.py:29). A first import outside `sglang_stubs.fake_cuda` (bare
`stubbed()`, or no stubs at all) binds what a machine without a GPU says, for every later test
in the process. tests/oracle/test_sglang_stub_sites.py reads the sources for bare `stubbed()`
blocks; this script watches the imports themselves, so it also sees a helper that imports
SGLang with no `with` at all, wherever its caller runs it.

Run: python -m tests.oracle.measure_sglang_cold_imports TEST_FILE... [-k EXPR]
(the arguments go to pytest). It wraps `sglang_stubs.fake_cuda` itself, so a checkout without
`sglang_stubs.imports` (a before figure) is measured the same way: copy this file into its
tests/oracle/ and run it there with PYTHONPATH set to that checkout.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.abc
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import sglang_stubs

_depth = [0]
_running = [""]
cold: dict[str, str] = {}  # module -> the test (or collection) that imported it first

_real_fake_cuda = sglang_stubs.fake_cuda


@contextlib.contextmanager
def _counted(*args: Any, **kwargs: Any) -> Iterator[None]:
    _depth[0] += 1
    try:
        with _real_fake_cuda(*args, **kwargs):
            yield
    finally:
        _depth[0] -= 1


class _Watch(importlib.abc.MetaPathFinder):
    """Asked for every module not yet in sys.modules (a first import); finds nothing."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name.startswith("sglang.") and not _depth[0] and name not in cold:
            cold[name] = _running[0] or "(collection)"


class _Plugin:
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        _running[0] = nodeid


def main(argv: list[str]) -> int:
    sglang_stubs.fake_cuda = _counted  # type: ignore[assignment]
    sys.meta_path.insert(0, _Watch())
    code = pytest.main(["-q", "-p", "no:randomly", "-p", "no:cacheprovider", *argv],
                       plugins=[_Plugin()])
    by_file = collections.Counter(test.split("::")[0] for test in cold.values())
    print(f"pytest exit {int(code)}; SGLang modules first imported off the fake GPU: "
          f"{len(cold)}")
    for where, count in sorted(by_file.items()):
        print(f"  {count:4d} first imported by {where}")
    for name, test in sorted(cold.items())[:40]:
        print(f"    {name}  <- {test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
