"""A rich progress bar for `CaptureSession(progress=...)` (what vLLM shows with tqdm while it
captures, v1/worker/gpu_model_runner.py:6589 in 0.33).

    with capture_progress() as progress:
        CaptureSession("cuda", progress=progress) ... .capture()
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from graphfit.cudagraph.capture import CaptureEvent, ProgressFn


@contextlib.contextmanager
def capture_progress(console: Console | None = None,
                     description: str = "capturing graphs") -> Iterator[ProgressFn]:
    """A progress callback drawing one bar: graphs captured of the session's total, the
    runner and shape of the last one."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[last]}"),
                  console=console, transient=False) as bar:
        task = bar.add_task(description, total=None, last="")

        def update(event: CaptureEvent) -> None:
            reqs = "" if event.key.num_reqs is None else f" x {event.key.num_reqs} reqs"
            bar.update(task, total=event.total, completed=event.index,
                       last=f"{event.runner} {event.key.padded}{reqs}")

        yield update
