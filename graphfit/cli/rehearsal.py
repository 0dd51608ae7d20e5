"""`graphfit rehearse`: capture every graph of a plan on the CPU backend and replay them.

The plan's buffers are allocated, every graph of every component is captured in one session
with toy forwards (graphfit.cudagraph.rehearsal), and one batch per graph is replayed and
compared with eager. A rich progress bar follows the capture on a terminal; piped output
gets plain lines. Exit 0 when every replay equals eager, 1 otherwise, 2 on bad input
(including a missing torch: the runtime is the `torch` extra).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import typer

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.options import config_options
from graphfit.cli.output import console, user
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.plan import plan


def _runtime() -> Any:
    try:
        from graphfit.cudagraph import rehearsal
    except ImportError as exc:  # torch is an extra
        raise ConfigError(f"rehearse needs torch ({exc.name or exc}): pip install "
                          "'graphfit[torch]'") from None
    return rehearsal


def rehearse_command(config: EngineConfig) -> None:
    """Capture every graph of the plan on the CPU backend (toy forwards over its buffers)
    and replay one batch per graph against eager: exit 1 on any mismatch."""
    out = console()
    with handled():
        result = plan(config)
        rehearsal = _runtime()
        progress: Any = contextlib.nullcontext(None)
        if out.is_terminal:
            from graphfit.cudagraph.progress import capture_progress

            progress = capture_progress(out, description="capturing")
        start = time.perf_counter()
        with progress as bar:
            report = rehearsal.rehearse(result, progress=bar)
        took = time.perf_counter() - start
    out.print(f"graphfit rehearse: {user(result.engine_version)} plan, CPU backend, toy "
              "forwards over the plan's buffers")
    for part in report.components:
        verdict = (f"{part.replayed} replayed == eager" if part.ok else
                   f"{part.replayed} replayed, {len(part.mismatches)} != eager, "
                   f"{len(part.unreached)} not reached by a probe batch")
        out.print(f"  {part.component}: {part.graphs} graphs captured, {verdict} "
                  f"(inputs: {', '.join(part.inputs)})")
    for name in report.skipped:
        out.print(f"  {name}: no graphs to capture")
    if report.ok:
        out.print(f"REHEARSED: {report.graphs} graphs captured and {report.replayed} batches "
                  f"replayed bit-equal to eager in {took:.2f} s")
        return
    out.print(f"FAILED: {report.graphs} graphs captured, "
              f"{sum(len(c.mismatches) for c in report.components)} replays differ from eager")
    raise typer.Exit(EXIT_VIOLATIONS)


def register(app: typer.Typer) -> None:
    """Attach `rehearse` to `app`."""
    app.command("rehearse")(config_options(rehearse_command))
