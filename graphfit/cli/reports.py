"""`--svg FILE` / `--png FILE` for plan, sweep, compare and optimize: options and writer.

Reports are drawn with matplotlib, the optional `report` extra (`pip install
'graphfit[report]'`). It is imported only when a report is asked for, never on the CLI's
start-up path, and drawn on an Agg canvas (headless: no display, no pyplot state). SVG text
stays text (`svg.fonttype: none`), so titles and labels are searchable and selectable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated

import typer

from graphfit.cli.errors import fail

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SvgOpt = Annotated[Path | None, typer.Option(
    "--svg", help="Write the report as SVG to this file (needs graphfit\\[report]).")]
PngOpt = Annotated[Path | None, typer.Option(
    "--png", help="Write the report as PNG to this file (needs graphfit\\[report]).")]

INSTALL_HINT = "pip install 'graphfit[report]'"


def matplotlib_dir() -> Path:
    """Where matplotlib keeps its config and font cache for graphfit: a folder of this user's
    under the temporary directory, never the home directory (matplotlib's default is
    ~/.config/matplotlib and ~/.cache/matplotlib). It persists between runs, so the font cache
    is built once; a folder someone else owns, or others may write, is not used (a fresh
    private one is made instead)."""
    import os
    import stat
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = Path(tempfile.gettempdir()) / f"graphfit-matplotlib-{uid}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
        if (stat.S_ISDIR(info.st_mode) and info.st_uid == uid
                and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return folder
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="graphfit-matplotlib-"))


def require_matplotlib() -> None:
    """Exit 2 with one `error:` line when matplotlib is not installed. matplotlib's config
    and cache go to `matplotlib_dir()` unless MPLCONFIGDIR says otherwise."""
    import os
    import sys

    if "matplotlib" not in sys.modules and not os.environ.get("MPLCONFIGDIR"):
        os.environ["MPLCONFIGDIR"] = str(matplotlib_dir())
    try:
        import matplotlib
    except ImportError:
        raise fail(f"--svg/--png draw with matplotlib, which is not installed: {INSTALL_HINT}")\
            from None
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "graphfit"})


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
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = build()
    FigureCanvasAgg(figure)
    written = []
    for path, fmt in targets:
        # no dates in the file: the same report is the same bytes
        metadata = {"Date": None} if fmt == "svg" else {}
        try:
            figure.savefig(path, format=fmt, dpi=110, metadata=metadata)
        except OSError as exc:
            raise fail(f"{path}: {exc.strerror or exc}") from None
        written.append(path)
    return written
