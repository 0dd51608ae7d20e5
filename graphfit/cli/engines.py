"""CLI commands added by the engines work: `sweep` (a grid of configs) and `compare`.

Heavy modules (the sweep runner, the SVG writer) are imported inside the commands so
`graphfit plan` stays fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.options import GridInputs, config_options, integer
from graphfit.cli.output import JsonFlag, console, emit_json, user
from graphfit.cli.reports import PngOpt, SvgOpt, draw, write_report
from graphfit.cli.tables import cell
from graphfit.cli.vit_sweep import SweepVitImagesOpt, SweepVitMaxImagesOpt, vit_grid, vit_table
from graphfit.planner.config import EngineConfig

if TYPE_CHECKING:
    from graphfit.planner.analysis.compare import PlanFigures
    from graphfit.planner.analysis.sweep import SweepResult

def _range(origin: str, text: str) -> tuple[int, ...]:
    from graphfit.inputs.ranges import parse_range

    return parse_range(origin, text)



def _human(n: int) -> str:
    from graphfit.cli.render import human_bytes

    return human_bytes(n)


def _sweep_document(result: SweepResult) -> dict[str, Any]:
    return {
        "schema": "graphfit.sweep/1",
        "engine_version": result.engine_version,
        "axes": {name: [values[0], values[-1], len(values)]
                 for name, values in result.axes.items()},
        "capacities": dict(result.capacities),
        "configs": len(result.results),
        "failing": len(result.failing),
        "invalid": len(result.invalid),
        "checked": result.checked,
        "exhaustive": True,
        "seconds": round(result.seconds, 3),
        "workers": result.workers,
        "results": [{**r.point, "ok": r.ok, "error": r.error or None, "graphs": r.graphs,
                     "max_capture": r.max_capture, "decode_waste": r.decode_waste,
                     "total_bytes": r.total_bytes, "violations": list(r.ranges),
                     **({"vit": {"images": result.vit_label(r.point), "keys": r.vit_keys,
                                 "bytes": r.vit_bytes,
                                 "sglang_bytes": r.vit_reference_bytes}}
                        if result.vit_label(r.point) else {})}
                    for r in result.results],
        **({"vit_images": [[list(g) for g in w] for w in result.vit_workloads]}
           if result.vit_workloads else {}),
    }


def _axis_value(result: SweepResult, point: Mapping[str, int], name: str) -> str:
    """A point's value on axis `name`: the image set's grids for `vit_images` (an index)."""
    if name == "vit_images":
        return ",".join("x".join(map(str, g)) for g in result.vit_workloads[point[name]])
    return str(point[name])


def _failing_table(result: SweepResult, limit: int) -> Table:
    """One row per counterexample range. A config repeats once per family of batches that
    goes short on a buffer (mixed batches, uniform decodes, the drafter's query...) and per
    attention scenario it covers: the `short on` column says which, the caption says why."""
    table = Table(title="Failing configs", title_justify="left")
    names = list(result.axes)
    unit = "tokens" if result.engine_version.startswith("vLLM") else "requests"
    for name in (*names, "buffer", "short on", f"batch ({unit})", f"padded ({unit})",
                 "capacity (rows)"):
        # a narrow terminal wraps cells and headers, never cuts them (`num_speculative_t…`)
        table.add_column(name, justify="left" if name in ("buffer", "short on") else "right",
                         overflow="fold", no_wrap=name == "buffer")
    shown = 0
    for r in result.failing:
        for d in r.ranges:
            if shown >= limit:
                break
            span = str(d["first"]) if d["first"] == d["last"] else f"{d['first']}-{d['last']}"
            if "fill" in d:
                why, cap = f"padded tail: {d['fill']} fill", "-"
            else:
                why, cap = str(d.get("family") or "-"), str(d["capacity"])
            if d.get("scenario"):
                why += f" [{d['scenario']}]"
            values = (*(_axis_value(result, r.point, n) for n in names), str(d["buffer"]),
                      why, span,
                      str(d["padded"]), cap)
            table.add_row(*(cell(v) for v in values))  # literal: "[scenario]" is no markup
            shown += 1
    total = sum(len(r.ranges) for r in result.failing)
    table.caption = ("a config has one row per family of batches (and attention scenario) "
                     "that goes short")
    if total > shown:
        table.caption += f"; ... and {total - shown} more counterexample ranges (use --json)"
    return table


def _sweep_figure(result: SweepResult, base: dict[str, Any],
                  formulas: dict[str, str]) -> Any:
    """The sweep's heatmap and the largest failing (else largest safe) config's padding,
    with the audited formulas' shortfalls in red."""
    from graphfit.planner.analysis.capexpr import capacities_for
    from graphfit.planner.analysis.sweep import VIT_AXES, point_config
    from graphfit.planner.plan import plan

    candidates = list(result.failing) or [r for r in result.results if r.ok]
    if not candidates:
        return draw().sweep_figure(result)
    point = candidates[-1].point  # the largest failing (or safe) config shows the most
    label = ", ".join(f"{k}={v}" for k, v in point.items() if k not in VIT_AXES)
    if result.vit_label(point):
        label += f", ViT images {result.vit_label(point)}"
    kind = "largest failing config" if result.failing else "largest config"
    focus = plan(point_config(base, point, result.vit_workloads))
    check = focus.verify(capacities_for(focus, formulas, skip_missing=True)) if formulas \
        else None
    return draw().sweep_figure(result, focus, check, f"{kind} ({label})")


def sweep_command(
    grid: GridInputs,
    capacity: Annotated[list[str] | None, typer.Option(
        "--capacity", help="Audit a sizing formula: component.buffer=FORMULA, e.g. "
        "drafter.positions=S*q (names S T k q C R M H topk; repeatable).")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", help="Worker processes (default: all CPUs).", parser=integer)] = None,
    limit: Annotated[int, typer.Option("--limit", help="Failing rows to show.",
                                       parser=integer)] = 20,
    json_output: JsonFlag = False,
    svg: SvgOpt = None,
    png: PngOpt = None,
    vit_images: SweepVitImagesOpt = None,
    vit_max_images: SweepVitMaxImagesOpt = "1",
) -> None:
    """Check every config of a grid: --max-num-seqs 1..1024 --num-speculative-tokens 0..15
    (SGLang: also --vit-images SET ... --vit-max-images 1..N, its ViT graphs' workloads)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from graphfit.cli.options import PASTED
    from graphfit.planner.analysis.capexpr import parse_assignment
    from graphfit.planner.analysis.sweep import grid_size, sweep

    with handled():
        formulas = dict(parse_assignment(c) for c in capacity or [])
        base, axes, workloads, vit_notes = vit_grid(dict(grid.base.values), dict(grid.axes),
                                                    vit_images, vit_max_images, PASTED.get())
        total = grid_size(axes)
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console(stderr=True),
                      transient=True) as bar:
            task = bar.add_task("sweeping", total=total)
            result = sweep(base, axes, formulas, workers=workers,
                           progress=lambda n: bar.advance(task, n), vit_workloads=workloads)
        written = write_report(lambda: _sweep_figure(result, base, formulas), svg, png)
    if json_output:
        emit_json(_sweep_document(result))
    else:
        out = console()
        verdict = ("[bold green]SAFE[/bold green]" if result.ok
                   else "[bold red]UNSAFE[/bold red]")
        model = f" ({result.engine_version})" if result.engine_version else ""
        out.print(f"{verdict}{model}: {len(result.results):,} configs, {len(result.failing):,} "
                      f"failing, {len(result.invalid):,} rejected by the engine; "
                      f"{result.checked:,} batch/buffer checks (exhaustive) in "
                      f"{result.seconds:.1f} s on {result.workers} worker(s).")
        if result.failing:
            out.print(_failing_table(result, limit))
        table = vit_table(result)
        if table is not None:
            out.print(table)
        for note in vit_notes:
            out.print(f"[yellow]note[/yellow]: {user(note)}")
        if result.invalid:
            first = result.invalid[0]
            out.print(user(f"rejected, e.g. {first.point}: {first.error}"))
        for path in written:
            out.print(f"wrote {user(path)}")
    if not result.ok:
        raise typer.Exit(EXIT_VIOLATIONS)


def _mixed(side: PlanFigures) -> str:
    if side.mixed is None:
        return "eager (no mixed graphs)"
    return f"{100 * side.mixed.waste_fraction:.1f}% ({side.mixed.label})"


def _compare_table(left: PlanFigures, right: PlanFigures) -> Table:
    from graphfit.planner.analysis.summary import compress_sizes

    table = Table(title="Comparison (each reachable batch weighted equally)",
                  title_justify="left")
    table.add_column("")
    table.add_column(user(left.label), overflow="fold")
    table.add_column(user(right.label), overflow="fold")

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    rows = [
        ("engine / ladder", f"{left.engine_version or left.engine} / {left.ladder}",
         f"{right.engine_version or right.engine} / {right.ladder}"),
        ("graphs", str(left.graphs), str(right.graphs)),
        ("max capture", f"{left.sizes[-1] if left.sizes else 0} {left.unit}",
         f"{right.sizes[-1] if right.sizes else 0} {right.unit}"),
        ("sizes", compress_sizes(left.sizes), compress_sizes(right.sizes)),
        ("decode batches", left.decode.label, right.decode.label),
        ("decode padding waste", pct(left.decode.waste_fraction),
         pct(right.decode.waste_fraction)),
        ("decode worst padding", f"+{left.decode.worst_waste}", f"+{right.decode.worst_waste}"),
        ("decodes on a graph", pct(left.decode_graph_share), pct(right.decode_graph_share)),
        ("mixed padding waste", _mixed(left), _mixed(right)),
        ("buffer bytes", _human(left.total_bytes), _human(right.total_bytes)),
        ("engine formula bytes", _human(left.reference_bytes), _human(right.reference_bytes)),
        ("verified", f"{'safe' if left.safe else 'UNSAFE'} ({left.checked:,} checks)",
         f"{'safe' if right.safe else 'UNSAFE'} ({right.checked:,} checks)"),
    ]
    for row in rows:
        table.add_row(*row)
    return table


def compare_command(
    config: EngineConfig,
    left: Annotated[str, typer.Argument(
        help="A ladder policy (vllm-legacy, sglang-spec...), sizes (1,2,4,8) or "
        "overrides (ladder=vllm;max_cudagraph_capture_size=64).")],
    right: Annotated[str, typer.Argument(help="The other side, same forms.")],
    json_output: JsonFlag = False,
    svg: SvgOpt = None,
    png: PngOpt = None,
) -> None:
    """Two ladders or policies side by side: graphs, expected padding waste, buffer bytes."""
    from graphfit.inputs.variants import variant
    from graphfit.planner.analysis.compare import byte_deltas, figures, mixed_span
    from graphfit.planner.plan import plan

    with handled():
        left_config, left_notes = variant(config, left)
        right_config, right_notes = variant(config, right)
        left_plan, right_plan = plan(left_config), plan(right_config)
        span = mixed_span(left_plan, right_plan)
        sides = (figures(left, left_plan, span), figures(right, right_plan, span))
        written = write_report(
            lambda: draw().compare_figure([(left, left_plan), (right, right_plan)]),
            svg, png)
    if json_output:
        doc = {"schema": "graphfit.compare/1", "left": sides[0].to_dict(),
               "right": sides[1].to_dict(),
               "buffers": {k: {"left": a, "right": b}
                           for k, (a, b) in byte_deltas(left_plan, right_plan).items()}}
        emit_json(doc)
    else:
        out = console()
        out.print(_compare_table(*sides))
        for note in left_notes + right_notes:
            out.print(f"[yellow]note[/yellow]: {user(note)}")
        for path in written:
            out.print(f"wrote {user(path)}")


def register(app: typer.Typer) -> None:
    """Attach this module's commands to `app` (heavy imports stay inside the commands)."""
    app.command("sweep")(config_options(axes={"max_num_seqs": _range,
                                              "num_speculative_tokens": _range})(sweep_command))
    app.command("compare")(config_options(compare_command))
