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
from typing import Annotated, Any

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


def rehearse_command(
    config: EngineConfig,
    vit_model: Annotated[str | None, typer.Option(
        "--vit-model", help="SGLang: also rehearse the vision-encoder graphs of this model "
                            "directory (SGLANG_VIT_ENABLE_CUDA_GRAPH=1; see graphfit vit)")] = None,
    vit_images: Annotated[str | None, typer.Option(
        "--vit-images", help="with --vit-model: image grids TxHxW,... in patches")] = None,
    vit_max_images: Annotated[int, typer.Option(
        "--vit-max-images", help="with --vit-model: most images in one encoder call")] = 1,
) -> None:
    """Capture every graph of the plan on the CPU backend (toy forwards over its buffers)
    and replay one batch per graph against eager: exit 1 on any mismatch."""
    out = console()
    with handled():
        result = plan(config)
        vit = _vit(config, vit_model, vit_images, vit_max_images)
        rehearsal = _runtime()
        progress: Any = contextlib.nullcontext(None)
        if out.is_terminal:
            from graphfit.cudagraph.progress import capture_progress

            progress = capture_progress(out, description="capturing")
        start = time.perf_counter()
        with progress as bar:
            report = rehearsal.rehearse(result, progress=bar)
        if vit is not None:
            from graphfit.cudagraph.vit import rehearse_vit

            vit_report = rehearse_vit(vit)
        took = time.perf_counter() - start
    out.print(f"graphfit rehearse: {user(result.engine_version)} plan, CPU backend, toy "
              "forwards over the plan's buffers")
    for part in report.components:
        verdict = (f"{part.replayed} replayed == eager" if part.ok else
                   f"{part.replayed} replayed, {len(part.mismatches)} != eager, "
                   f"{len(part.unreached)} not reached by a probe batch")
        out.print(f"  {part.component}: {part.graphs} graphs captured, {verdict} "
                  f"(inputs: {', '.join(part.inputs)})")
    graphs, replayed = report.graphs, report.replayed
    mismatches = sum(len(c.mismatches) for c in report.components)
    if vit is not None:
        verdict = (f"{vit_report.replayed} replayed == eager" if vit_report.ok else
                   f"{vit_report.replayed} replayed, {len(vit_report.mismatches)} != eager")
        out.print(f"  vit: {vit_report.graphs} graphs captured, {verdict} (SGLang "
                  f"{vit.geometry.family} vision encoder, one graph per image layout)")
        graphs, replayed = graphs + vit_report.graphs, replayed + vit_report.replayed
        mismatches += len(vit_report.mismatches)
    for name in report.skipped:
        out.print(f"  {name}: no graphs to capture")
    if report.ok and (vit is None or vit_report.ok):
        out.print(f"REHEARSED: {graphs} graphs captured and {replayed} batches "
                  f"replayed bit-equal to eager in {took:.2f} s")
        return
    out.print(f"FAILED: {graphs} graphs captured, {mismatches} replays differ from eager")
    raise typer.Exit(EXIT_VIOLATIONS)


def _vit(config: EngineConfig, model: str | None, images: str | None,
         max_images: int) -> Any:
    """The `vit` component's plan (graphfit.cli.vit) when --vit-model is given."""
    if model is None:
        if images is not None:
            raise ConfigError("--vit-images needs --vit-model DIR (the vision tower)")
        return None
    if config.engine.value != "sglang":
        raise ConfigError("--vit-model: vision-encoder graphs are SGLang's (--engine sglang)")
    if images is None:
        raise ConfigError("--vit-model needs --vit-images TxHxW,... (the image workload)")
    from graphfit.inputs.sglang_vit import parse_images, read_geometry
    from graphfit.planner import plan_vit

    return plan_vit(read_geometry(model, tp=config.tp_size),
                    parse_images(images, max_images))


def register(app: typer.Typer) -> None:
    """Attach `rehearse` to `app`."""
    app.command("rehearse")(config_options(rehearse_command))
