"""Put back what an oracle call set in a process-wide mapping (not a test).

SGLang reads its switches from `os.environ` when its code runs (`envs`, environ.py:67-86), so
an oracle that compares a line with `VAR=value` words sets them for the call
(`patched_environ`); oracle glue that stands in for an uninstalled package puts modules in
`sys.modules` for the call (tests/oracle/sglang_mooncake_build.glue). Either way the next
line, and the rest of the test session, must see the mapping as it was (`restoring`).
SGLang also writes variables of its own while it resolves a line (`sglang_environ`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

SGLANG_WRITES = ("SGLANG_", "USE_ROCM_")  # the prefixes of what SGLang's hooks write


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


@contextlib.contextmanager
def restoring_prefixed(mapping: MutableMapping[str, Any],
                       prefixes: tuple[str, ...]) -> Iterator[None]:
    """On the way out (also when the call raises), every name starting with one of
    `prefixes` as it was on the way in: names added inside removed, earlier values back."""
    saved = {k: v for k, v in mapping.items() if k.startswith(prefixes)}
    try:
        yield
    finally:
        for name in [k for k in mapping if k.startswith(prefixes) and k not in saved]:
            del mapping[name]
        mapping.update(saved)


@contextlib.contextmanager
def sglang_environ(env: Mapping[str, str]) -> Iterator[None]:
    """`patched_environ(env)`, and on the way out also what SGLang wrote itself under the
    `SGLANG_WRITES` prefixes put back (issue 23, s65x): its hooks set variables as they
    resolve a line, as a server does once per process (FlashInfer A2A's
    `SGLANG_MOE_NVFP4_DISPATCH`, arg_groups/moe_hook.py:497-507; `SGLANG_MAMBA_SSM_DTYPE`,
    serving_hook.py:440; ...), so one line's writes would reach the next line resolved, and
    graphfit's side, which reads `os.environ` too."""
    with restoring_prefixed(os.environ, SGLANG_WRITES), patched_environ(env):
        yield
