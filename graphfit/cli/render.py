"""Rich tables for the CLI: ladder, padding waste, buffers, verdict, explain."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from graphfit.planner.analysis.summary import compress_sizes, plan_padding
from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.buffers import Axis
from graphfit.planner.core.dispatch import static_requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.rows import rule_for
from graphfit.planner.core.verify import Verification
from graphfit.planner.plan import ComponentPlan, Plan


def human_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def config_line(plan: Plan) -> str:
    c = plan.config
    spec = (f", {c.spec_method.value} k={c.num_speculative_tokens} (q={c.uniform_query_len})"
            if c.num_speculative_tokens else "")
    return (f"{plan.engine_version}: S={c.max_num_seqs}, T={c.max_num_batched_tokens}{spec}, "
            f"{c.cudagraph_mode.value}, runner {c.runner.value}, ladder {c.ladder.value}")


def ladder_table(plan: Plan) -> Table:
    table = Table(title=f"Capture ladder ({plan.unit.value})", title_justify="left")
    table.add_column("stage")
    table.add_column("graphs", justify="right")
    table.add_column("max", justify="right")
    table.add_column("sizes", overflow="fold")
    table.add_row("config (drafter __init__ sees)", str(len(plan.config_capture_sizes)),
                  str(plan.config_ladder.max_size), compress_sizes(plan.config_capture_sizes))
    table.add_row("runtime (captured)", str(len(plan.capture_sizes)),
                  str(plan.max_capture_size), compress_sizes(plan.capture_sizes))
    for name in plan.components:
        reached = plan.graph_sizes(name)
        if reached and reached != plan.capture_sizes:
            table.add_row(f"{name} graphs (reachable)", str(len(reached)), str(reached[-1]),
                          compress_sizes(reached))
    return table


def padding_table(plan: Plan) -> Table:
    table = Table(title="Padding (each reachable batch weighted equally)", title_justify="left")
    for name, justify in (("batches", "left"), ("count", "right"), ("modes", "left"),
                          ("waste", "right"), ("worst", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in plan_padding(plan):
        modes = ", ".join(f"{m} {n}" for m, n in s.modes)
        worst = f"+{s.worst_waste} at {s.worst_num_tokens}" if s.worst_waste else "0"
        table.add_row(s.label, str(s.batches), modes, f"{100 * s.waste_fraction:.1f}%", worst)
    return table


def buffers_table(plan: Plan) -> Table:
    table = Table(title="Persistent buffers", title_justify="left")
    for name in ("buffer", "dtype", "shape", "axis", "capacity", "engine formula", "bytes",
                 "saved", "pad fill"):
        right = name in ("capacity", "engine formula", "bytes", "saved")
        table.add_column(name, justify="right" if right else "left")
    for comp in plan.components.values():
        for b in comp.buffers:
            delta = b.reference_bytes - b.bytes
            if b.capacity > b.reference_capacity:
                saved = f"[red]short {b.capacity - b.reference_capacity}[/red]"
            elif delta:
                saved = human_bytes(delta)
            else:
                saved = "-"
            table.add_row(b.key, b.dtype, "x".join(map(str, b.shape)), b.axis.value,
                          str(b.capacity), str(b.reference_capacity), human_bytes(b.bytes),
                          saved, b.fill.describe())
    table.add_section()
    table.add_row("total", "", "", "", "", "", human_bytes(plan.total_bytes),
                  human_bytes(max(plan.reference_bytes - plan.total_bytes, 0)), "")
    return table


def print_verdict(console: Console, verification: Verification, *, audit: bool) -> None:
    what = "the given capacities" if audit else "graphfit's capacities"
    if verification.ok:
        console.print(f"[bold green]SAFE[/bold green]: {verification.checked:,} batch/buffer "
                      f"checks, no reachable batch pads past {what}.")
        return
    console.print(f"[bold red]UNSAFE[/bold red]: {verification.count:,} reachable "
                  f"batches pad past {what} (a slice would return a short tensor):")
    for r in verification.ranges():
        console.print(f"  - {r.describe()}")


def print_plan(console: Console, plan: Plan, verification: Verification) -> None:
    console.print(f"[bold]graphfit plan[/bold]: {config_line(plan)}")
    for warning in plan.warnings:
        console.print(f"[yellow]warning[/yellow]: {warning}")
    console.print(ladder_table(plan))
    console.print(padding_table(plan))
    console.print(buffers_table(plan))
    print_verdict(console, verification, audit=False)


def _family_of(comp: ComponentPlan, uniform: bool) -> BatchFamily | None:
    """The family a batch of this shape belongs to in `comp` (None: it never reaches it)."""
    return next((f for f in comp.families
                 if f.padded and f.points is None and f.uniform == uniform), None)


def explain_table(plan: Plan, num_tokens: int, *, uniform_decode: bool,
                  num_reqs: int | None) -> Table:
    """Where a batch of num_tokens goes in each component, and each buffer's rows.

    Rows follow the one row rule of the plan (`ComponentPlan.row_rule`): a graph replay needs
    its static rows, an eager batch its real ones, and an eager batch of an engine whose graph
    inputs are private to the graph runner (SGLang) touches none of them.
    """
    table = Table(title=f"Batch of {num_tokens} tokens", title_justify="left")
    for name in ("component", "mode", "padded", "num_reqs", "buffer", "rows", "capacity",
                 "ok"):
        table.add_column(name)
    for comp in plan.components.values():
        uniform = uniform_decode and comp.name == "target"
        d = plan.pad(num_tokens, uniform_decode=uniform, num_reqs=num_reqs, component=comp.name)
        family = _family_of(comp, uniform)
        graph = d.mode is not CUDAGraphMode.NONE
        S = comp.tables.max_num_seqs
        if graph:
            requests = static_requests(d, S)
        elif num_reqs is not None:
            requests = num_reqs
        else:
            requests = num_tokens // comp.width if uniform else min(num_tokens, S)
        first = True
        for b in comp.buffers:
            rule = rule_for(b.demands, family.streams) if family is not None else None
            if rule is None or b.axis is Axis.FIXED:
                continue
            if family is not None and not graph and not family.eager_writes:
                rows, ok = "-", "eager: not used"
            else:
                needed = rule.rows(d.padded, requests)
                rows = str(needed)
                ok = "[green]yes[/green]" if needed <= b.capacity else "[red]SHORT[/red]"
            table.add_row(comp.name if first else "", d.mode.value if first else "",
                          str(d.padded) if first else "",
                          str(d.num_reqs) if first and d.num_reqs is not None else "",
                          b.name, rows, str(b.capacity), ok)
            first = False
        if first:
            table.add_row(comp.name, d.mode.value, str(d.padded),
                          str(d.num_reqs) if d.num_reqs is not None else "", "-", "-", "-",
                          "not reached by such a batch")
    return table
