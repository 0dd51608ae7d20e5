"""Put back what an oracle call set in a process-wide mapping (not a test).

SGLang reads its switches from `os.environ` when its code runs (`envs`, environ.py:67-86), so
an oracle that compares a line with `VAR=value` words sets them for the call
(`patched_environ`); oracle glue that stands in for an uninstalled package puts modules in
`sys.modules` for the call (tests/oracle/sglang_mooncake_build.glue). Either way the next
line, and the rest of the test session, must see the mapping as it was (`restoring`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any


@contextlib.contextmanager
def restoring(mapping: MutableMapping[str, Any], names: Iterable[str]) -> Iterator[None]:
    """On the way out (also when the call raises), each name's earlier value in `mapping`
    put back, or the name removed where it was absent."""
    saved = {name: mapping.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                mapping.pop(name, None)
            else:
                mapping[name] = value


@contextlib.contextmanager
def patched_environ(env: Mapping[str, str]) -> Iterator[None]:
    """`env` set in `os.environ` inside the context, the environment restored after."""
    with restoring(os.environ, env):
        os.environ.update(env)
        yield
