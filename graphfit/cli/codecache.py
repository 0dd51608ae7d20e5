"""A bytecode cache for the methods `dataclasses` writes, kept for the `graphfit` process.

Each dataclass gets its __init__, __repr__, __eq__, __hash__ and (frozen) __setattr__ and
__delattr__ as source text, compiled by exec() when its module is imported: about a
millisecond a class, a fifth of `graphfit plan --json`'s CPU time (issue 13). That text is
the same in every process (field names only; defaults and types reach the functions as
arguments), so its compiled code can be kept the way Python keeps a module's .pyc file:
keyed by the exact text (so one file serves every graphfit version and checkout), for this
interpreter only, in the user's cache folder ($XDG_CACHE_HOME/graphfit, else
~/.cache/graphfit): not beside the package, which may be read-only or kept free of
`__pycache__` (PYTHONDONTWRITEBYTECODE).

Installed only by the console script (graphfit.cli.main without arguments), never by
`import graphfit`: a program that embeds the planner keeps its `dataclasses` untouched. A file
that cannot be read, or was written by another interpreter, leaves the cache empty; one that
cannot be written is not written. GRAPHFIT_NO_CODE_CACHE=1 turns the cache off.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
from types import CodeType
from typing import Any

OFF_VARIABLE = "GRAPHFIT_NO_CODE_CACHE"
MAX_ENTRIES = 4096  # beyond this, a write keeps only what this process used
MAX_FILE_BYTES = 16 * 1024 * 1024  # a larger file is not read


def cache_path() -> str | None:
    """Where the cache lives (one file per interpreter kind); None when this interpreter
    has no bytecode cache tag or there is no cache folder to name."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative path is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "graphfit", f"dataclass-methods.{tag}.marshal")


def _header() -> tuple[int, str]:
    """What a file must start with to be used: this interpreter's version and cache tag."""
    return sys.hexversion, str(sys.implementation.cache_tag)


def _load(path: str) -> dict[str, CodeType]:
    """The file's code objects, or none when it is missing, too large, from another
    interpreter or not what this module writes."""
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return {}
        with open(path, "rb") as fh:
            data = fh.read()  # marshal.load(fh) would read it piece by piece: 5x slower
        content = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(content, tuple) or len(content) != 2:
        return {}
    header, entries = content
    if header != _header() or not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items()
            if isinstance(k, str) and isinstance(v, CodeType)}


class CodeCache:
    """Compiled code of source texts given to `exec`, read from and written to `path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.codes = _load(path)
        self.used: set[str] = set()
        self.added = 0

    def compiled(self, source: str) -> CodeType:
        """The code of `source`, compiled once. Without the caller's `from __future__` flags
        (dont_inherit), exactly as `exec(source)` in `dataclasses` compiles it."""
        code = self.codes.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.codes[source] = code
            self.added += 1
        self.used.add(source)
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /,
             **kwargs: Any) -> None:
        """`exec`, with a source text replaced by its cached code. Without `globals` the
        caller's namespaces are used, as `exec` itself does (this frame is not the caller's)."""
        if isinstance(source, str):
            source = self.compiled(source)
        if globals is None:
            caller = sys._getframe(1)
            globals = caller.f_globals
            locals = caller.f_locals if locals is None else locals
        builtins.exec(source, globals, locals, **kwargs)

    def save(self) -> None:
        """Write the cache when this process compiled something new (atomically: a reader
        never sees half a file); any error writing it leaves the old file as it was."""
        if not self.added:
            return
        codes = self.codes
        if len(codes) > MAX_ENTRIES:
            codes = {k: v for k, v in codes.items() if k in self.used}
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as fh:
                fh.write(marshal.dumps((_header(), codes)))
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        self.added = 0


def install() -> CodeCache | None:
    """Route `dataclasses`' exec through a CodeCache (None: turned off, no place for it, or
    `dataclasses.exec` already replaced by someone else)."""
    path = cache_path()
    if path is None or os.environ.get(OFF_VARIABLE, "") not in ("", "0"):
        return None
    import dataclasses

    if "exec" in vars(dataclasses):
        return None
    cache = CodeCache(path)
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    return cache


def uninstall(cache: CodeCache) -> None:
    """Give `dataclasses` back its builtin exec (when `cache` is still the one installed)."""
    import dataclasses

    current = vars(dataclasses).get("exec")
    if getattr(current, "__self__", None) is cache:
        del dataclasses.exec  # type: ignore[attr-defined]
