"""`--svg FILE` / `--png FILE` for plan, sweep, compare and optimize: options and writer.

Reports are drawn with matplotlib, the optional `report` extra (`pip install
'graphfit[report]'`). It is imported only when a report is asked for, never on the CLI's
start-up path, and drawn on an Agg canvas (headless: no display, no pyplot state). SVG text
stays text (`svg.fonttype: none`), so titles and labels are searchable and selectable.

The paths are checked when the flags are parsed, before any work (graphfit.cli.files:
a directory, a missing or read-only parent directory is one `error:` line), and each file is
written whole by the one atomic writer (a temporary file renamed), so concurrent runs
writing one report leave one well-formed file. matplotlib keeps its settings and font cache
in MPLCONFIGDIR, by default ~/.config/matplotlib: unless the user set it, graphfit points it
at a temporary directory removed at exit, so a report creates no file but the one asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated

import typer

from graphfit.cli.errors import fail
from graphfit.cli.files import output_path, write_atomic
from graphfit.planner.core.errors import ConfigError

if TYPE_CHECKING:
    from matplotlib.figure import Figure



def _parser(flag: str) -> Callable[[str], Path]:
    """The flag's value as a Path, checked as it is parsed (before the command runs): typer's
    own Path type would drop a trailing slash, so the raw text is checked first."""

    def parse(raw: str) -> Path:
        try:
            return Path(output_path(raw, flag))
        except ConfigError as exc:
            raise fail(str(exc)) from None

    return parse


SvgOpt = Annotated[Path | None, typer.Option(
    "--svg", parser=_parser("--svg"), metavar="FILE",
    help="Write the report as SVG to this file (needs graphfit\\[report]).")]
PngOpt = Annotated[Path | None, typer.Option(
    "--png", parser=_parser("--png"), metavar="FILE",
    help="Write the report as PNG to this file (needs graphfit\\[report]).")]

INSTALL_HINT = "pip install 'graphfit[report]'"


def require_matplotlib() -> None:
    """Exit 2 with one `error:` line when matplotlib is not installed."""
    private_config_dir()
    try:
        import matplotlib
    except ImportError:
        raise fail(f"--svg/--png draw with matplotlib, which is not installed: {INSTALL_HINT}")\
            from None
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "graphfit"})


def private_config_dir() -> None:
    """Point MPLCONFIGDIR at a temporary directory (removed at exit) unless the user set it:
    importing matplotlib would otherwise create ~/.config/matplotlib and a font cache there."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    import atexit  # here, not at start-up: only a report needs them
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="graphfit-matplotlib-")
    os.environ["MPLCONFIGDIR"] = folder
    atexit.register(shutil.rmtree, folder, ignore_errors=True)


def draw() -> ModuleType:
    """`graphfit.cli.figures` (which imports matplotlib), or exit 2 when it is missing."""
    require_matplotlib()
    from graphfit.cli import figures as module

    return module


def write_report(build: Callable[[], Figure], svg: Path | None, png: Path | None) -> list[Path]:
    """Draw the figure (only when a file is asked for) and save it; returns the paths."""
    targets = [(path, fmt) for path, fmt in ((svg, "svg"), (png, "png")) if path is not None]
    if not targets:
        return []
    require_matplotlib()
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = build()
    FigureCanvasAgg(figure)
    written = []
    for path, fmt in targets:
        # no dates in the file: the same report is the same bytes
        metadata = {"Date": None} if fmt == "svg" else {}
        buffer = io.BytesIO()
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
        try:
            write_atomic(path, buffer.getvalue())
        except OSError as exc:
            raise fail(f"{path}: {exc.strerror or exc}") from None
        written.append(path)
    return written
