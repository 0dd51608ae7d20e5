"""The typer + rich front end: `app` and `main` (the `graphfit` console script).

One module per command group (`planning`: plan/check/explain, `engines`: sweep/compare,
`tuning`: optimize/memory), `options` (engine flags -> EngineConfig), `render` (tables),
`reports` and `figures` (--svg/--png with matplotlib, imported only when asked for),
`errors` (one `error:` line, exit 2), `output` (console and JSON) and `codecache` (the
process's cache of dataclass methods).

`app` and `fail` are imported on first use (PEP 562), so that `main`, as the process's entry
point, prepares the process before typer and the planner are imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphfit.cli.application import app
    from graphfit.cli.errors import fail

__all__ = ["app", "fail", "main"]


def main(argv: list[str] | None = None) -> None:
    """Run graphfit; usage errors are one line and exit 2, like every other bad input.

    Without `argv` it is the process's entry point (the console script, `python -m graphfit`):
    the code caches (graphfit.cli.codecache) are installed and the cyclic collector paused
    before typer and the planner are imported, then everything the imports made is moved out
    of the collector's reach (gc.freeze) and the collector resumed for the command itself."""
    if argv is not None:
        from graphfit.cli.application import main as run

        run(argv)
        return
    import contextlib
    import gc

    from graphfit.cli.codecache import install

    gc.disable()
    try:
        cache = install()
    except Exception:  # a cache must never stop the command it speeds up
        cache = None
    try:
        from graphfit.cli.application import main as run

        # the imports' objects live as long as the process: never walk them again, neither
        # in the collections the command's allocations trigger nor in the one at exit
        gc.freeze()
        gc.enable()
        run()
    finally:
        gc.freeze()
        if cache is not None:
            with contextlib.suppress(Exception):  # nor a cache that cannot be written
                cache.save()


def __getattr__(name: str) -> Any:
    """`app` (graphfit.cli.application) and `fail` (graphfit.cli.errors), on first use."""
    if name == "app":
        from graphfit.cli import application

        value: Any = application.app
    elif name == "fail":
        from graphfit.cli import errors

        value = errors.fail
    else:
        raise AttributeError(f"module 'graphfit.cli' has no attribute {name!r}")
    globals()[name] = value
    return value
