"""`graphfit vit`: plan SGLang's vision-encoder CUDA graphs (SGLANG_VIT_ENABLE_CUDA_GRAPH=1)
for a model directory and a workload of image sizes, prove every reachable key fits, and
optionally rehearse them on the CPU backend.

The tower is read from the model's config.json (graphfit.inputs.sglang_vit), the keys,
buffers and proof come from graphfit.planner.engines.sglang_vit, the rehearsal from
graphfit.cudagraph.vit. Exit 0 when the proof holds (and every replay equals eager), 1
otherwise, 2 on bad input.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.output import console
from graphfit.cli.vit_plan import vit_lines, vit_sizes
from graphfit.inputs.sglang_vit import parse_images, read_geometry
from graphfit.planner import ConfigError, excerpt, plan_vit


def vit_command(
    model: Annotated[str, typer.Argument(help="model directory (or its config.json)")],
    images: Annotated[str, typer.Option(
        "--images", help="image grids the deployment sends, TxHxW in patches, comma-separated "
                         "(InternVL: any one; its key counts tiles)")],
    max_images: Annotated[int, typer.Option(
        "--max-images", help="most images (InternVL: tiles) in one encoder call")] = 1,
    tp: Annotated[int, typer.Option("--tp", help="attention TP size the encoder's heads "
                                                 "split over")] = 1,
    dp_encoder: Annotated[bool, typer.Option(
        "--dp-encoder", help="SGLang's --mm-enable-dp-encoder: the encoder runs whole on each "
                             "rank (its heads unsplit where the tower honours it)")] = False,
    mm_attention_backend: Annotated[str | None, typer.Option(
        "--mm-attention-backend", help="SGLang's --mm-attention-backend, if the line gives "
                                       "one (Kimi K3: flashinfer_cudnn adds index buffers; "
                                       "Qwen / InternVL capture with triton_attn, fa3, fa4 "
                                       "only)")] = None,
    capacity: Annotated[str | None, typer.Option(
        "--capacity", help="audit these rows instead of the plan's: NAME=ROWS,... "
                           "(e.g. block_input=4096)")] = None,
    rehearse: Annotated[bool, typer.Option(
        "--rehearse", help="capture and replay every key on the CPU backend")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the plan as JSON")] = False,
) -> None:
    """Plan SGLang's ViT CUDA graphs: keys, static buffers, proof (and a CPU rehearsal)."""
    out = console()
    with handled():
        geometry = read_geometry(model, tp=tp, dp_encoder=dp_encoder,
                                 attention_backend=mm_attention_backend)
        result = plan_vit(geometry, parse_images(images, max_images))
        violations = result.verify(_capacities(capacity))
        report = None
        if rehearse and not violations:  # short capacities: nothing to capture into
            try:
                from graphfit.cudagraph.vit import rehearse_vit
            except ImportError as exc:
                raise ConfigError(f"--rehearse needs torch ({exc.name or exc}): pip install "
                                  "'graphfit[torch]'") from None
            report = rehearse_vit(result, capacities=_capacities(capacity))
    if as_json:
        print(json.dumps({
            "family": geometry.family, "keys": len(result.keys),
            "max_graphs": result.max_graphs,
            **vit_sizes(result),
            "safe": not violations, "notes": list(result.notes),
            **({"rehearsed": report.ok, "replayed": report.replayed}
               if report is not None else {})}, indent=2))
    else:
        out.print(f"graphfit vit: SGLang 0.5.23 {geometry.family} tower "
                  f"(hidden {geometry.hidden_size}, {geometry.heads_per_rank} heads per rank, "
                  f"{geometry.dtype}), SGLANG_VIT_ENABLE_CUDA_GRAPH=1")
        out.print(f"  {len(result.keys)} reachable keys, at most {result.max_graphs} graphs")
        for line in vit_lines(result, "", grouped=False):
            out.print(line)
        if violations:
            first = violations[0]
            out.print(f"UNSAFE: {len(violations)} buffer rows over capacity (first: key of "
                      f"{first.key[0]} {'tiles' if geometry.family == 'internvl' else 'tokens'}"
                      f", {first.buffer} {first.rows} > {first.capacity})")
        else:
            out.print(f"PROVEN SAFE: every buffer of all {len(result.keys)} reachable keys "
                      f"within capacity (no padding: each key's rows are its own)")
        if report is not None:
            out.print(f"{'REHEARSED' if report.ok else 'FAILED'}: {report.graphs} graphs "
                      f"captured, {report.replayed} replayed, {len(report.mismatches)} "
                      f"!= eager")
    if violations or (report is not None and not report.ok):
        raise typer.Exit(EXIT_VIOLATIONS)


def _capacities(text: str | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in (p.strip() for p in (text or "").split(",") if p.strip()):
        name, sep, rows = part.partition("=")
        if not sep or not rows.strip().isdigit():
            raise ConfigError(f"--capacity: {excerpt(part)} is not NAME=ROWS")
        out[name.strip()] = int(rows)
    return out


def register(app: typer.Typer) -> None:
    """Attach `vit` to `app`."""
    app.command("vit")(vit_command)
