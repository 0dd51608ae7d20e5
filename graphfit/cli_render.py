"""Rich tables for the CLI: ladder, padding waste, buffers, verdict, explain."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from graphfit.planner.plan import Plan
from graphfit.planner.summary import compress_sizes, plan_padding
from graphfit.planner.verify import Verification


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
    return (f"S={c.max_num_seqs}, T={c.max_num_batched_tokens}{spec}, "
            f"{c.cudagraph_mode.value}, runner {c.runner.value}, ladder {c.ladder.value}")


def ladder_table(plan: Plan) -> Table:
    table = Table(title="Capture ladder", title_justify="left")
    table.add_column("stage")
    table.add_column("graphs", justify="right")
    table.add_column("max", justify="right")
    table.add_column("sizes", overflow="fold")
    table.add_row("config (drafter __init__ sees)", str(len(plan.config_capture_sizes)),
                  str(plan.config_ladder.max_size), compress_sizes(plan.config_capture_sizes))
    table.add_row("runtime (captured)", str(len(plan.capture_sizes)),
                  str(plan.max_capture_size), compress_sizes(plan.capture_sizes))
    if "drafter" in plan.components and plan.has_graphs:
        drafter = plan.graph_sizes("drafter")
        if drafter and drafter != plan.capture_sizes:
            table.add_row("drafter graphs (reachable)", str(len(drafter)), str(drafter[-1]),
                          compress_sizes(drafter))
    return table


def padding_table(plan: Plan) -> Table:
    table = Table(title="Padding (each batch size weighted equally)", title_justify="left")
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
    console.print(f"[bold red]UNSAFE[/bold red]: {len(verification.violations):,} reachable "
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


def explain_table(plan: Plan, num_tokens: int, *, uniform_decode: bool,
                  num_reqs: int | None) -> Table:
    """Where a batch of num_tokens goes in each component, and each buffer's headroom."""
    table = Table(title=f"Batch of {num_tokens} tokens", title_justify="left")
    for name in ("component", "mode", "padded", "num_reqs", "buffer", "rows", "capacity",
                 "ok"):
        table.add_column(name)
    eager_outside = plan.config.engine.value != "vllm"
    for comp in plan.components.values():
        uniform = uniform_decode and comp.name == "target"
        d = plan.pad(num_tokens, uniform_decode=uniform, num_reqs=num_reqs, component=comp.name)
        first = True
        for b in comp.buffers:
            if b.axis.value != "tokens":
                continue
            rows = d.padded + max(dm.offset for dm in b.demands)
            if eager_outside and d.mode.value == "NONE":
                ok = "eager: not used"  # SGLang/TRT-LLM eager batches bypass graph buffers
            else:
                ok = "[green]yes[/green]" if rows <= b.capacity else "[red]SHORT[/red]"
            table.add_row(comp.name if first else "", d.mode.value if first else "",
                          str(d.padded) if first else "",
                          str(d.num_reqs) if first and d.num_reqs is not None else "",
                          b.name, str(rows), str(b.capacity), ok)
            first = False
    return table
