"""The `--before CHECKOUT` half the TensorRT-LLM measure scripts share (not a test): the
script's own `emit` run again in a subprocess whose graphfit and tests come from the other
checkout, on the very items this checkout measured, so both figures come from one draw.
The other checkout is read as its HEAD commit, copied once (`before_tree.frozen`, s69i), so a
merge into it mid-run cannot split the before figure across two commits.

Only the parent process imports this module. The subprocess loads this checkout's script by
path (`runpy.run_path`, not as `__main__`) and calls its `emit` with the items on stdin, so
a script needs no `--emit` branch of its own and the other checkout needs no helper newer
than the modules the script imports at its top.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.oracle.before_tree import frozen

# the subprocess: the script's module namespace (its `if __name__ == "__main__"` not run),
# items on stdin, the script's `emit` answer as JSON on stdout
_EMIT = ("import json, runpy, sys; emit = runpy.run_path(sys.argv[1])['emit']; "
         "print(json.dumps(emit(json.loads(sys.stdin.read()))))")


def emit_before(script: str, args: list[str], items: Any) -> Any | None:
    """`script`'s `emit` run in a subprocess with the checkout after `--before` in `args` on
    its PYTHONPATH and as its directory, `items` as JSON on stdin; its JSON answer, or None
    without `--before`."""
    if "--before" not in args:
        return None
    before = Path(frozen(args[args.index("--before") + 1]))  # one commit (before_tree)
    env = {**os.environ, "PYTHONPATH": str(before)}
    done = subprocess.run([sys.executable, "-c", _EMIT, str(Path(script).resolve())],
                          input=json.dumps(items), capture_output=True, text=True,
                          env=env, check=True, cwd=before)
    return json.loads(done.stdout)


def measure(script: str, args: list[str], title: str, draw: Callable[[int], list[Any]],
            emit: Callable[[list[Any]], list[int]],
            show: Callable[[str, list[int]], None]) -> int:
    """Draw N items (`args[0]`, default 100), print how many under `title`, then this
    checkout's counts and, with `--before`, the other checkout's on the same items."""
    n = int(args[0]) if args else 100
    items = draw(n)
    print(f"{title}: {len(items)}")
    show("this checkout", emit(items))
    old = emit_before(script, args, items)
    if old is not None:
        show("--before", old)
    return 0
