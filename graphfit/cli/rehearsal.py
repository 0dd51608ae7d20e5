"""`graphfit rehearse`: capture every graph of a plan and replay them (CPU or CUDA backend).

The plan's buffers are allocated, every graph of every component is captured in one session
with toy forwards (graphfit.cudagraph.rehearsal), and one batch per graph is replayed and
compared with eager. A rich progress bar follows the capture on a terminal; piped output
gets plain lines. `--device cuda` captures real CUDA graphs on the GPU (one pool) and
prints the device memory the capture took. Exit 0 when every replay equals eager, 1
otherwise, 2 on bad input (including a missing torch: the runtime is the `torch` extra, and
--device cuda on a machine where torch sees no GPU).
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


_DEVICE_HELP = ("cpu (default: the CPU backend's graphs) or cuda / cuda:N (real CUDA "
                "graphs on that GPU).")


def _device(device: str) -> str:
    """The torch device to rehearse on; ConfigError for a malformed or absent one."""
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError):
        raise ConfigError(f"--device: {device!r} is not cpu, cuda or cuda:N") from None
    if parsed.type not in ("cpu", "cuda"):
        raise ConfigError(f"--device: {device!r} is not cpu, cuda or cuda:N")
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError("--device cuda: torch sees no CUDA device on this machine")
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise ConfigError(f"--device {device}: this machine has "
                              f"{torch.cuda.device_count()} CUDA device(s)")
    return str(parsed)


def rehearse_command(
    config: EngineConfig,
    vit_model: Annotated[str | None, typer.Option(
        "--vit-model", help="SGLang: also rehearse the vision-encoder graphs of this model "
                            "directory (SGLANG_VIT_ENABLE_CUDA_GRAPH=1; see graphfit vit)")] = None,
    vit_images: Annotated[str | None, typer.Option(
        "--vit-images", help="SGLang: rehearse the vision-encoder graphs for these image "
                             "grids TxHxW,... in patches (the tower: --vit-model, else the "
                             "pasted line's --model-path)")] = None,
    vit_max_images: Annotated[int, typer.Option(
        "--vit-max-images", help="with --vit-images: most images in one encoder call")] = 1,
    device: Annotated[str, typer.Option("--device", help=_DEVICE_HELP)] = "cpu",
) -> None:
    """Capture every graph of the plan (toy forwards over its buffers; CPU backend, or real
    CUDA graphs with --device cuda) and replay one batch per graph against eager: exit 1
    on any mismatch."""
    out = console()
    with handled():
        config = _vit(config, vit_model, vit_images, vit_max_images)
        result = plan(config)
        rehearsal = _runtime()
        device = _device(device)
        progress: Any = contextlib.nullcontext(None)
        if out.is_terminal:
            from graphfit.cudagraph.progress import capture_progress

            progress = capture_progress(out, description="capturing")
        start = time.perf_counter()
        with progress as bar:
            report = rehearsal.rehearse(result, progress=bar, device=device)
        took = time.perf_counter() - start
    where = "CPU backend" if device == "cpu" else f"CUDA graphs on {device}"
    out.print(f"graphfit rehearse: {user(result.engine_version)} plan, {where}, toy "
              "forwards over the plan's buffers")
    for part in report.components:
        verdict = (f"{part.replayed} replayed == eager" if part.ok else
                   f"{part.replayed} replayed, {len(part.mismatches)} != eager, "
                   f"{len(part.unreached)} not reached by a probe batch")
        out.print(f"  {part.component}: {part.graphs} graphs captured, {verdict} "
                  f"(inputs: {', '.join(part.inputs)})")
    graphs, replayed = report.graphs, report.replayed
    mismatches = sum(len(c.mismatches) for c in report.components)
    for name in report.skipped:
        keyed = result.keyed.get(name)
        if keyed is not None and keyed.graph_keys and keyed.buffers:  # feature-mode inputs
            out.print(f"  {name}: {len(keyed.graph_keys)} graphs not rehearsed (inputs the "
                      f"toy forward cannot stage: {', '.join(b.name for b in keyed.buffers)})")
        else:
            out.print(f"  {name}: not rehearsed (no graphs, or no per-token buffer for a toy "
                      "forward to read)")
    pool = report.capture.pool_bytes
    if pool is not None:
        out.print(f"  capture pool: {pool / 2**20:.1f} MiB of device memory for "
                  f"{report.graphs} graphs")
    if report.ok:
        out.print(f"REHEARSED: {graphs} graphs captured and {replayed} batches "
                  f"replayed bit-equal to eager in {took:.2f} s")
        return
    out.print(f"FAILED: {graphs} graphs captured, {mismatches} replays differ from eager")
    raise typer.Exit(EXIT_VIOLATIONS)


def _vit(config: EngineConfig, model: str | None, images: str | None,
         max_images: int) -> EngineConfig:
    """`config` with the SGLang option `vit` when --vit-images is given (the plan's keyed
    component `vit`, rehearsed with the rest): the tower of --vit-model, else of the pasted
    SGLang line's --model-path, as `graphfit plan --vit-images` plans it
    (graphfit.cli.vit_plan)."""
    if model is None:
        from graphfit.cli.options import PASTED
        from graphfit.cli.vit_plan import vit_config

        return vit_config(config, images, max_images, PASTED.get())[0]
    if config.engine.value != "sglang":
        raise ConfigError("--vit-model: vision-encoder graphs are SGLang's (--engine sglang)")
    if images is None:
        raise ConfigError("--vit-model needs --vit-images TxHxW,... (the image workload)")
    from graphfit.inputs.sglang_vit import parse_images, read_geometry
    from graphfit.planner.engines.sglang_vit_keyed import vit_pairs

    attn_tp = max(1, config.tp_size // config.attn_dp_size // config.attn_cp_size)
    return config.replace(vit=vit_pairs(read_geometry(model, tp=attn_tp),
                                        parse_images(images, max_images)))


def register(app: typer.Typer) -> None:
    """Attach `rehearse` to `app`."""
    app.command("rehearse")(config_options(rehearse_command))
