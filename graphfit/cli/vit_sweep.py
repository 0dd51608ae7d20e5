"""`graphfit sweep --vit-images SET [--vit-images SET ...] --vit-max-images 1..N`: SGLang's
vision-encoder (ViT) graphs across image workloads.

Each `--vit-images` is one image set (TxHxW grids in patches, comma-separated), the axis
`vit_images` of the sweep; `--vit-max-images` a range of images per encoder call, the axis
`vit_max_images` (graphfit.planner.analysis.sweep). The tower is read once from the pasted
SGLang line's --model-path, as `plan --vit-images` reads it (graphfit.cli.vit_plan), and
every point's keyed component `vit` is planned and proven with the rest of the config; the
report lists each workload's keys and bytes beside SGLang's own.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from graphfit.cli.output import user
from graphfit.cli.tables import cell
from graphfit.cli.vit_plan import vit_config
from graphfit.planner.analysis.sweep import Grids, SweepResult, point_config, vit_points
from graphfit.planner.core.errors import ConfigError

SweepVitImagesOpt = Annotated[list[str] | None, typer.Option(
    "--vit-images", help="SGLang: sweep the vision-encoder (ViT) graphs over this image set "
    "(TxHxW in patches, comma-separated); repeat for more sets. The tower is the pasted "
    "line's --model-path.")]
SweepVitMaxImagesOpt = Annotated[str, typer.Option(
    "--vit-max-images", help="With --vit-images: images per encoder call, a range "
                             "(e.g. 1..3).")]


def vit_grid(base: dict[str, Any], axes: dict[str, tuple[int, ...]], images: list[str] | None,
             max_images: str, words: tuple[str, ...] | None
             ) -> tuple[dict[str, Any], dict[str, tuple[int, ...]], tuple[Grids, ...],
                        list[str]]:
    """(base with the option `vit`, axes with the ViT axes, the image sets, notes); the
    inputs unchanged without --vit-images. ConfigError for a bad set (checked against the
    tower before sweeping) or --vit-max-images alone."""
    from graphfit.inputs.ranges import parse_range
    from graphfit.inputs.sglang_vit import parse_images

    if not images:
        if max_images.strip() != "1":
            raise ConfigError("--vit-max-images: give --vit-images too (the image sets)")
        return base, axes, (), []
    counts = parse_range("--vit-max-images", max_images)
    if counts[0] < 1:
        raise ConfigError("--vit-max-images: an encoder call holds at least 1 image")
    sets = tuple(parse_images(text, 1).grids for text in images)
    if len(set(sets)) != len(sets):
        raise ConfigError("--vit-images: the same image set is given twice")
    corner = point_config(base, {name: values[0] for name, values in axes.items()})
    config, notes = vit_config(corner, images[0], counts[0], words)
    base = {**base, "vit": config.vit}
    axes = {**axes, "vit_images": tuple(range(len(sets))), "vit_max_images": counts}
    for index in range(len(sets)):  # each set against the tower, at the most images
        point_config(base, {"vit_images": index, "vit_max_images": counts[-1]}, sets)
    return base, axes, sets, notes


def vit_table(result: SweepResult) -> Table | None:
    """One row per ViT workload: keys, graphfit's bytes, SGLang's bytes (None: no ViT
    axes)."""
    from graphfit.cli.render import human_bytes

    points = vit_points(result)
    if not points:
        return None
    table = Table(title="ViT workloads (SGLang vision-encoder graphs)", title_justify="left")
    for name in ("images", "keys", "graphfit bytes", "SGLang bytes", "ratio"):
        table.add_column(name, justify="left" if name == "images" else "right",
                         overflow="fold")
    for label, r in points:
        ratio = (f"{r.vit_bytes / r.vit_reference_bytes:.3f}" if r.vit_reference_bytes
                 else "-")
        table.add_row(cell(label), str(r.vit_keys), human_bytes(r.vit_bytes),
                      human_bytes(r.vit_reference_bytes), ratio)
    table.caption = user("graphfit: one static buffer per kind at the largest key; SGLang: a "
                         "buffer set per captured key (Kimi K3: its cache capacity's largest)")
    return table


__all__ = ["SweepVitImagesOpt", "SweepVitMaxImagesOpt", "vit_grid", "vit_table"]
