"""The `graphfit` console script's bytecode caches, in the user's cache folder.

Two kinds of compiled code that a short `graphfit` process would otherwise compile again on
every run (issue 13: start-up CPU time):

- the methods `dataclasses` writes. Each dataclass gets its __init__, __repr__, __eq__,
  __hash__ and (frozen) __setattr__ and __delattr__ as source text, compiled by exec() when
  its module is imported: about a millisecond a class, a sixth to a fifth of `plan --json`'s
  CPU time. That text is the same in every process (field names only; defaults and types
  reach the functions as arguments), so its code is kept keyed by the exact text: one file
  serves every graphfit version and checkout (`CodeCache`).
- graphfit's own modules, where Python keeps no .pyc file for them: with
  PYTHONDONTWRITEBYTECODE set (often, with a source checkout, in containers and CI), every
  run compiled every module again, as much CPU as the rest of `plan --json`. Each module's
  code is kept like a .pyc file, valid while its source file's size and modification time
  are unchanged (`ModuleCodeFinder`). That variable keeps `__pycache__` folders out of
  source trees; these files never go there.

Both live in $XDG_CACHE_HOME/graphfit (else ~/.cache/graphfit), for this interpreter release
only. They are installed only by the console script (graphfit.cli.main without arguments),
never by `import graphfit`: a program that embeds the planner keeps its import system and its
`dataclasses` untouched. A file that cannot be read, or was written by another interpreter,
is a miss; one that cannot be written is not written. GRAPHFIT_NO_CODE_CACHE=1 turns both off.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import stat
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from types import CodeType, ModuleType
from typing import Any

from graphfit.cli.files import write_atomic

OFF_VARIABLE = "GRAPHFIT_NO_CODE_CACHE"
MAX_ENTRIES = 4096  # beyond this, a write keeps only what this process used
MAX_FILE_BYTES = 16 * 1024 * 1024  # a larger file is not read
PACKAGE = __name__.partition(".")[0]  # graphfit: whose modules ModuleCodeFinder takes
DATACLASS_FILE = "dataclass-methods.{release}.marshal"  # in the cache folder


def cache_folder() -> str | None:
    """graphfit's folder in the user's cache; None when this interpreter has no bytecode
    cache tag or there is no home to name."""
    if sys.implementation.cache_tag is None:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative path is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "graphfit")


def _release() -> str:
    """This interpreter release, in file names: two Pythons of one minor version never
    overwrite each other's files in turn."""
    return f"{sys.implementation.cache_tag}-{sys.hexversion:x}"


def _header() -> tuple[int, str]:
    """What a file must start with to be used: this interpreter's version and cache tag."""
    return sys.hexversion, str(sys.implementation.cache_tag)


def _read(path: str) -> Any:
    """The marshalled object in `path`, or None when it is missing, not a regular file, too
    large or unreadable. The file is opened without blocking and checked on the open handle
    (a FIFO or a device put in its place can neither hang the command nor feed it without
    end), and at most MAX_FILE_BYTES + 1 bytes are read. Any fault is a miss: a cache never
    stops the command it speeds up. (marshal.load on the open file would read it piece by
    piece, five times slower.)"""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError, TypeError):
        return None
    try:
        with open(handle, "rb", closefd=True) as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                return None
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            return None
        return marshal.loads(data)
    except Exception:
        return None


def _write(path: str, content: Any) -> None:
    """Write `content` marshalled with the one atomic writer (graphfit.cli.files: a reader
    never sees half a file); any error leaves the old file as it was."""
    try:
        data = marshal.dumps(content)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, data)
    except (OSError, ValueError):
        pass


def _load(path: str) -> dict[str, CodeType]:
    """The dataclass methods' file: its code objects, or none when it is not what this
    module writes for this interpreter."""
    content = _read(path)
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
        """Write the cache when this process compiled something new."""
        if not self.added:
            return
        codes = self.codes
        if len(codes) > MAX_ENTRIES:
            codes = {k: v for k, v in codes.items() if k in self.used}
        _write(self.path, (_header(), codes))
        self.added = 0


class ModuleCodeLoader(SourceFileLoader):
    """A source file's loader whose code is kept under `folder` (see the module's doc)."""

    def __init__(self, fullname: str, path: str, folder: str) -> None:
        super().__init__(fullname, path)
        self.folder = folder

    def cache_file(self, source_path: str) -> str:
        """Where the code of `source_path` is kept: the source's absolute path mirrored under
        the folder, as sys.pycache_prefix mirrors it."""
        relative = os.path.splitdrive(os.path.abspath(source_path))[1].lstrip(os.sep)
        return os.path.join(self.folder, "modules", f"{relative}.{_release()}.marshal")

    def get_code(self, fullname: str) -> CodeType | None:
        source_path = self.get_filename(fullname)
        try:
            before = os.stat(source_path)
        except OSError:
            return super().get_code(fullname)
        stamp = (_header(), before.st_mtime_ns, before.st_size)
        cache_file = self.cache_file(source_path)
        content = _read(cache_file)
        if (isinstance(content, tuple) and len(content) == 2 and content[0] == stamp
                and isinstance(content[1], CodeType)):
            return content[1]
        code = super().get_code(fullname)
        with contextlib.suppress(OSError):
            after = os.stat(source_path)
            if code is not None and (after.st_mtime_ns, after.st_size) == stamp[1:]:
                _write(cache_file, (stamp, code))  # not when the source changed meanwhile
        return code


class ModuleCodeFinder:
    """Finds graphfit's modules as the path finder does, with a ModuleCodeLoader."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.partition(".")[0] != PACKAGE:
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is None or type(spec.loader) is not SourceFileLoader or spec.origin is None:
            return spec
        spec.loader = ModuleCodeLoader(fullname, spec.origin, self.folder)
        return spec


def install() -> CodeCache | None:
    """Install both caches: route `dataclasses`' exec through a CodeCache and, where Python
    writes no .pyc files, find graphfit's modules with a ModuleCodeFinder. None when turned
    off or there is no cache folder; the CodeCache is also skipped when `dataclasses.exec`
    was already replaced by someone else."""
    folder = cache_folder()
    if folder is None or os.environ.get(OFF_VARIABLE, "") not in ("", "0"):
        return None
    if sys.dont_write_bytecode and not any(isinstance(f, ModuleCodeFinder)
                                           for f in sys.meta_path):
        sys.meta_path.insert(0, ModuleCodeFinder(folder))
    import dataclasses

    if "exec" in vars(dataclasses):
        return None
    cache = CodeCache(os.path.join(folder, DATACLASS_FILE.format(release=_release())))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    return cache
