"""The one writer of every file graphfit writes, and the one check of every output path.

Reports (`--svg`, `--png`) and the code caches (graphfit.cli.codecache) are all written by
`write_atomic`: the bytes go to a new temporary file in the target's own directory, which is
then renamed over the target (`os.replace`, atomic within one file system). A reader -- or a
second graphfit writing the same path at the same time -- sees the old file or a whole new
one, never a mix of two (8 concurrent `--svg same.svg` used to leave one `<svg` and two
`</svg>`); the last rename wins. A failed write leaves the old file untouched and no
temporary file behind.

`output_path` checks a path the user names for output once, when the flag is parsed and so
before any work: a path naming a directory (`report/`, an existing directory), a parent
directory that does not exist or cannot be written, and an existing target that is not a
regular file (`/dev/null`, a FIFO: a rename would replace the device node) are each one
ConfigError line. This module imports only the standard library: the code cache uses it
before anything else is imported.
"""

from __future__ import annotations

import contextlib
import os
import stat


def write_atomic(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> None:
    """Write `data` to `path` through a temporary file in its directory and a rename.

    A symbolic link at `path` is followed (its target is replaced, the link stays). `fsync`
    flushes the file to the disk before the rename (for files that must survive a power
    cut; caches and reports do not need it). Raises OSError; the target is then unchanged."""
    target = os.path.realpath(os.fspath(path))
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    try:
        with open(handle, "wb", closefd=True) as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def output_path(raw: str, flag: str = "output") -> str:
    """`raw` when it can name a file graphfit writes; else a ConfigError (see the module)."""
    from graphfit.planner.core.errors import ConfigError, excerpt

    if not isinstance(raw, str) or not raw:
        raise ConfigError(f"{flag}: give a file name")
    shown = excerpt(raw)
    if "\x00" in raw:
        raise ConfigError(f"{flag} {shown}: a file name cannot hold a NUL character")
    if raw.endswith(("/", os.sep)) or os.path.isdir(raw):
        raise ConfigError(f"{flag} {shown}: is a directory; give a file name inside it")
    target = os.path.realpath(raw)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ConfigError(f"{flag} {shown}: {exc.strerror or exc}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{flag} {shown}: exists and is not a regular file (a device, pipe "
                          "or socket); give a file name")
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ConfigError(f"{flag} {shown}: directory {excerpt(os.path.dirname(raw) or '.')} "
                          "does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{flag} {shown}: directory {excerpt(os.path.dirname(raw) or '.')} "
                          "cannot be written")
    return raw
