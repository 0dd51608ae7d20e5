"""Rich tables for the CLI: ladder, padding waste, buffers, verdict, explain.

rich is imported where a table is made, so that `--json` (which imports this module for the
labels and rows) never imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from graphfit.cli.output import user
from graphfit.cli.tables import add_row, cell, literal_table
from graphfit.planner.analysis.summary import compress_sizes, plan_padding
from graphfit.planner.core.batches import BatchFamily, fed_streams
from graphfit.planner.core.buffers import Axis
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.keyed import KEY_NAMES
from graphfit.planner.core.limits import MAX_LISTED
from graphfit.planner.core.rows import rule_for
from graphfit.planner.core.shape import BatchShape, occupied, real_requests
from graphfit.planner.core.verify import Verification, ViolationRange
from graphfit.planner.engines.base import config_stage, runner_choice
from graphfit.planner.plan import ComponentPlan, Plan

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text



def human_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def config_line(plan: Plan) -> str:
    c = plan.config
    if plan.engine_inputs:  # the engine's own names (SGLang's, TensorRT-LLM's)
        return f"{plan.engine_version}: " + ", ".join(f"{k} {v}" for k, v in plan.engine_inputs)
    spec = (f", {c.spec_method.value} k={c.num_speculative_tokens} (q={c.uniform_query_len})"
            if c.num_speculative_tokens else "")
    mode = c.cudagraph_mode.value
    if plan.cudagraph_mode is not c.cudagraph_mode:
        mode += f" (resolved: {plan.cudagraph_mode.value})"
    return (f"{plan.engine_version}: S={c.max_num_seqs}, T={c.max_num_batched_tokens}{spec}, "
            f"{mode}, runner {c.runner.value}, ladder {c.ladder.value}")


def scenario_lines(plan: Plan) -> list[str]:
    """Which value of an unknown input the plan assumed, and which others it covers."""
    if plan.assumed is None or not plan.covered:
        return []
    lines = [f"assumed {plan.assumed.label} ({plan.assumed.mode.value}); capacities and "
             f"audits also cover:"]
    lines += [f"  - {s.label}: {s.mode.value}, {len(s.sizes)} graphs" for s in plan.covered]
    return lines


def ladder_table(plan: Plan) -> Table:
    table = literal_table(f"Capture ladder ({plan.unit.value})")
    table.add_column("stage")
    table.add_column("graphs", justify="right")
    table.add_column("max", justify="right")
    table.add_column("sizes", overflow="fold")
    stage = config_stage(plan.config.model)
    add_row(table, stage, str(len(plan.config_capture_sizes)),
            str(plan.config_ladder.max_size), compress_sizes(plan.config_capture_sizes))
    add_row(table, "runtime (captured)", str(len(plan.capture_sizes)),
            str(plan.max_capture_size), compress_sizes(plan.capture_sizes))
    for name, comp in plan.components.items():
        reached = plan.graph_sizes(name)
        per_size = comp.graphs_per_size  # e.g. one per draft step
        if reached and per_size > 1:
            add_row(table, f"{name} graphs ({per_size} per size)",
                    str(len(reached) * per_size), str(reached[-1]), compress_sizes(reached))
        elif reached and reached != plan.capture_sizes:
            add_row(table, f"{name} graphs (reachable)", str(len(reached)), str(reached[-1]),
                    compress_sizes(reached))
    return table


def padding_table(plan: Plan) -> Table:
    """One row per batch family. One quantity per cell, its unit in the header: the worst
    padding and the batch it happens at are two columns, in the engine's unit."""
    unit = plan.unit.value
    table = literal_table("Padding (each reachable batch weighted equally)")
    for name, justify in (("batches", "left"), ("count", "right"), ("modes", "left"),
                          ("waste", "right"), (f"worst pad ({unit})", "right"),
                          (f"at batch ({unit})", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in plan_padding(plan):
        modes = ", ".join(f"{m} {n}" for m, n in s.modes)
        worst, at = ((f"+{s.worst_waste}", str(s.worst_num_tokens)) if s.worst_waste
                     else ("0", "-"))
        add_row(table, s.label, str(s.batches), modes, f"{100 * s.waste_fraction:.1f}%", worst,
                at)
    return table


BUFFER_COLUMNS = ("buffer", "dtype", "shape", "axis", "capacity", "engine rows",
                  "engine formula", "bytes", "saved", "pad fill")
NARROW_COLUMNS = ("buffer", "capacity", "engine rows", "engine formula", "bytes")
# narrow headers: graphfit's rows, the rows the engine's code writes, what it allocates
NARROW_HEADERS = {"capacity": "rows", "engine rows": "writes", "engine formula": "alloc"}


def buffers_table(plan: Plan, width: int | None = None) -> Table:
    """Every buffer, with every column when they all fit `width` at their natural size, else
    the compact table (name, graphfit's rows, the engine's rows and allocation, bytes): rich
    would otherwise shrink the widest column, the buffer names (`target.in…`)."""
    full = _buffers_table(plan, BUFFER_COLUMNS)
    natural = full.natural_width() if hasattr(full, "natural_width") else None
    if width is None or (natural is not None and natural <= width):
        return full
    return _buffers_table(plan, NARROW_COLUMNS)


def _buffers_table(plan: Plan, columns: tuple[str, ...]) -> Table:
    table = literal_table("Persistent buffers")
    for name in columns:
        right = name in ("capacity", "engine rows", "engine formula", "bytes", "saved")
        header = NARROW_HEADERS.get(name, name) if columns is NARROW_COLUMNS else name
        table.add_column(header, justify="right" if right else "left")
    listed = [*(c.buffers for c in plan.components.values()),
              *(k.buffers for k in plan.keyed.values())]
    for buffers in listed:
        for b in buffers:
            delta = b.reference_bytes - b.bytes
            saved: str | Text
            first_user = not b.shared or plan.shared[b.shared].users[0].key == b.key
            if not first_user:  # one tensor: its bytes and savings are on its first user's row
                delta = 0
            if b.engine_rows > b.reference_capacity:
                saved = cell(f"short {b.engine_rows - b.reference_capacity}", "red")
            elif delta:
                saved = human_bytes(delta)
            else:
                saved = "-"
            cells = {"buffer": b.key, "dtype": b.dtype, "shape": "x".join(map(str, b.shape)),
                     "axis": b.axis.value, "capacity": str(b.capacity),
                     "engine rows": str(b.engine_rows),
                     "engine formula": str(b.reference_capacity),
                     "bytes": ((human_bytes(b.bytes) + ("" if b.on_device else " host"))
                               if first_user
                               else f"= {plan.shared[b.shared].users[0].key}"),
                     "saved": saved,
                     "pad fill": b.fill.describe()}
            add_row(table, *(cells[c] for c in columns))
    table.add_section()
    totals = {"buffer": "total", "bytes": human_bytes(plan.total_bytes),
              "saved": human_bytes(max(plan.reference_bytes - plan.total_bytes, 0))}
    add_row(table, *(totals.get(c, "") for c in columns))
    if plan.host_bytes or plan.host_reference_bytes:
        # host buffers (pinned staging tensors): not GPU memory, so not in the device total
        host = {"buffer": "total host", "bytes": human_bytes(plan.host_bytes),
                "saved": human_bytes(max(plan.host_reference_bytes - plan.host_bytes, 0))}
        add_row(table, *(host.get(c, "") for c in columns))
    return table


def _listed(values: tuple[int, ...]) -> str:
    shown = ", ".join(map(str, values[:6]))
    return f"[{shown}{', ...' if len(values) > 6 else ''}] ({len(values)})"


def keyed_lines(plan: Plan) -> list[str]:
    """Per keyed component (graphs keyed on requests, tokens and longest request, or on an
    image layout): its graphs, the engine's bucket lists and the bounds of the batches the
    proof covers."""
    out = []
    for comp in plan.keyed.values():
        if comp.bound_names == KEY_NAMES:
            b, n, longest = comp.bounds
            out.append(f"[bold]{comp.name}[/bold]: {len(comp.graph_keys):,} graphs keyed on "
                       f"(requests, tokens, longest request), for batches of <= {b} requests, "
                       f"<= {n} tokens, requests <= {longest} tokens")
        else:
            bounds = ", ".join(f"{name} <= {value:,}"
                               for name, value in zip(comp.bound_names, comp.bounds,
                                                      strict=True))
            out.append(f"[bold]{comp.name}[/bold]: {len(comp.graph_keys):,} graphs keyed on "
                       f"({', '.join(comp.key_names)}), for calls of {bounds}")
        if comp.summary:
            out.append(f"  {user(comp.summary)}")
        out += [f"  {name}: {_listed(values)}" for name, values in comp.ladders]
        if comp.refusals:
            out.append(f"  [yellow]refused by the engine[/yellow]: {len(comp.refusals):,} of "
                       f"{len(comp.graph_keys):,} graphs, e.g. "
                       f"{user(comp.refusals[0].describe())}")
    return out


def engine_label(plan: Plan) -> str:
    """"vLLM 0.33.0 V1 runner" (the engine has runners to choose), "SGLang 0.5.x"."""
    runner = (f" {plan.config.runner.value.upper()} runner"
              if runner_choice(plan.config.model) else "")
    return f"{plan.engine_version}{runner}"


def _short(plan: Plan, r: ViolationRange) -> str:
    component = plan.components.get(r.component)
    keyed = plan.keyed.get(r.component)
    unit = component.unit.value if component is not None else (
        keyed.buffer(r.buffer).axis.value if keyed is not None else "")
    if unit == "requests" and component is not None and component.width > 1:
        unit = "tokens"  # a range's first / last count tokens: q (x beams) per request
    span = f"{r.first}" if r.first == r.last else f"{r.first}-{r.last}"
    what = f"a batch of {span} {unit}" if r.first == r.last else f"batches of {span} {unit}"
    if r.fixed:
        return (f"{r.key} holds {r.capacity} rows, {what} write all {r.needed} rows of it "
                f"(a fixed-size buffer)")
    if r.eager:
        return (f"{r.key} holds {r.capacity} rows, {what} run eagerly and need up to "
                f"{r.needed}")
    extra = f" and need {r.needed} rows" if r.needed != r.padded else ""
    verb = "pads" if r.first == r.last else "pad"
    return f"{r.key} holds {r.capacity} rows, {what} {verb} to {r.padded}{extra}"


def engine_verdict(plan: Plan, verification: Verification) -> list[str]:
    """The engine's own sizing, first line a headline: "vLLM 0.33.0 V1 runner: SAFE ..." or
    "...: UNSAFE: drafter.positions holds 132 rows, a batch of 132 tokens pads to 136"."""
    label = engine_label(plan)
    if verification.ok:
        return [f"[bold]{label}[/bold]: [bold green]SAFE[/bold green]: every reachable batch "
                f"fits its own buffers ({verification.checked:,} checks)"]
    items = ([_short(plan, r) for r in verification.ranges()]
             + [f.describe() for f in verification.fill_ranges]
             + [r.describe() for r in verification.refusals])
    lines = [f"[bold]{label}[/bold]: [bold red]UNSAFE[/bold red]: {items[0]}"]
    rest = items[1:]
    lines += [f"  - {line}" for line in rest[:8]]
    if len(rest) > 8:
        lines.append(f"  ... and {len(rest) - 8} more (use --json)")
    return lines


def eager_line(plan: Plan, trace: Mapping[int, float] | None = None) -> str | None:
    """One line on what runs without a graph (graphfit.planner.analysis.eager): the share of
    reachable uniform-decode sizes dispatched eagerly and the flag that would capture them,
    with the graphs and buffer bytes it adds."""
    from graphfit.planner.analysis.eager import eager_share

    if plan.keyed and not plan.capture_sizes:  # the graphs are keyed ones (an encoder's)
        return None
    share = eager_share(plan, trace)
    if share is None:
        return None
    steps = ""
    if share.trace_steps:
        assert share.trace_eager is not None
        steps = (f"; {share.trace_eager / share.trace_steps:.0%} of the trace's steps run "
                 "without a graph")
    sizes = f"1..{share.reachable}"
    if share.eager == 0:
        return (f"[bold]eager[/bold]: none: every uniform decode of {sizes} requests replays "
                f"a graph{steps}")
    line = (f"[bold]eager[/bold]: {share.eager:,} of {share.reachable:,} uniform-decode "
            f"sizes ({share.fraction:.0%}) run without a graph{steps}")
    if plan.cudagraph_mode is CUDAGraphMode.NONE:
        return line + " (CUDA graphs are off)"
    if share.flag is None:
        return line
    sign = "+" if share.bytes_added >= 0 else "-"
    return (f"{line}; {user(share.flag)} leaves {share.eager_after:,}: "
            f"{share.graphs_added:+,} graphs, {sign}{human_bytes(abs(share.bytes_added))} "
            "buffers")


def print_verdict(console: Console, verification: Verification, *, audit: bool,
                  engine_version: str = "") -> None:
    what = "the given capacities" if audit else "graphfit's capacities"
    if engine_version:
        what += f" ({engine_version})"
    if verification.ok:
        console.print(f"[bold green]SAFE[/bold green]: {verification.checked:,} batch/buffer "
                      f"checks, no reachable batch pads past {what}.")
        return
    batches = "batch pads" if verification.count == 1 else "batches pad"
    console.print(f"[bold red]UNSAFE[/bold red]: {verification.count:,} reachable "
                  f"{batches} past {what} (a slice would return a short tensor):")
    ranges = verification.ranges()
    for r in ranges[:MAX_LISTED]:
        console.print(f"  - {r.describe()}")
    if len(ranges) > MAX_LISTED:
        console.print(f"  ... and {len(ranges) - MAX_LISTED:,} more ranges (use --json)")
    for f in verification.fill_ranges[:MAX_LISTED]:
        console.print(f"  - {f.describe()}")
    if len(verification.fill_ranges) > MAX_LISTED:
        console.print(f"  ... and {len(verification.fill_ranges) - MAX_LISTED:,} more unsafe "
                      "fills (use --json)")


def print_plan(console: Console, plan: Plan, verification: Verification,
               engine: Verification | None = None) -> None:
    """The engine's verdict first (when given), then graphfit's plan and its proof."""
    if engine is not None:
        for line in engine_verdict(plan, engine):
            console.print(line)
        slow = eager_line(plan)
        if slow is not None:
            console.print(slow)
    console.print(f"[bold]graphfit plan[/bold]: {config_line(plan)}")
    for line in scenario_lines(plan):
        console.print(line)
    for warning in plan.warnings:
        console.print(f"[yellow]warning[/yellow]: {user(warning)}")
    console.print(ladder_table(plan))
    for line in keyed_lines(plan):
        console.print(line)
    console.print(padding_table(plan))
    console.print(buffers_table(plan, console.width))
    print_verdict(console, verification, audit=False, engine_version=plan.engine_version)


def _family_of(comp: ComponentPlan, uniform: bool) -> BatchFamily | None:
    """The family a batch of this shape belongs to in `comp` (None: it never reaches it)."""
    return next((f for f in comp.families
                 if f.padded and f.points is None and f.uniform == uniform), None)


EXPLAIN_COLUMNS = ("component", "mode", "padded", "num_reqs", "buffer", "rows", "capacity",
                   "ok")


def explain_table(plan: Plan, num_tokens: int, *, uniform_decode: bool,
                  num_reqs: int | None) -> Table:
    """Where a batch of num_tokens goes in each component, and each buffer's rows."""
    table = literal_table(f"Batch of {num_tokens} tokens ({plan.engine_version})")
    for name in EXPLAIN_COLUMNS:
        table.add_column(name)
    last = ""
    for row in explain_rows(plan, num_tokens, uniform_decode=uniform_decode,
                            num_reqs=num_reqs):
        first = row["component"] != last
        last = str(row["component"])
        verdict = {True: cell("yes", "green"), False: cell("SHORT", "red"), None: cell("")}
        ok = verdict[row["ok"]] if isinstance(row["ok"], bool) or row["ok"] is None else cell("")

        def show(value: object, dash: str = "-") -> str:
            return dash if value is None else str(value)

        add_row(table, show(row["component"]) if first else "",
                show(row["mode"]) if first else "", show(row["padded"]) if first else "",
                show(row["num_reqs"], "") if first else "", show(row["buffer"]),
                show(row["rows"]), show(row["capacity"]), ok or str(row.get("note", "")))
    return table


def explain_rows(plan: Plan, num_tokens: int, *, uniform_decode: bool,
                 num_reqs: int | None) -> list[dict[str, object]]:
    """Where a batch of num_tokens goes in each component, and each buffer's rows (one dict
    per component and buffer; `explain --json` prints them).

    Rows follow the one row rule of the plan (`ComponentPlan.row_rule`): a graph replay needs
    its static rows, an eager batch its real ones, and an eager batch of an engine whose graph
    inputs are private to the graph runner (SGLang) touches none of them.
    """
    out: list[dict[str, object]] = []
    target_width = plan.components["target"].width
    for comp in plan.components.values():
        # a uniform decode is one in every component whose graphs tell uniform batches apart
        # (the target; MRV2's drafters; SGLang's and TensorRT-LLM's runners), with the same
        # requests at the component's own width (MRV2's DSpark drafter, SGLang's draft runner)
        uniform = uniform_decode and _family_of(comp, True) is not None
        tokens = (num_tokens // target_width * comp.width
                  if uniform and comp.name != "target" else num_tokens)
        d = plan.pad(tokens, uniform_decode=uniform, num_reqs=num_reqs, component=comp.name)
        family = _family_of(comp, uniform)
        graph = d.mode is not CUDAGraphMode.NONE
        S = comp.tables.max_num_seqs
        real = BatchShape(tokens, num_reqs if num_reqs is not None else real_requests(
            tokens, uniform=uniform, width=comp.width, max_num_seqs=S))
        shape = occupied(real, d, S)  # the one batch -> rows step (core.shape)
        head = {"component": comp.name, "mode": d.mode.value, "padded": d.padded,
                "num_reqs": d.num_reqs}
        found = False
        for b in comp.buffers:
            rule = (rule_for(b.demands, fed_streams(family.streams, graph))
                    if family is not None else None)
            if rule is None or b.axis is Axis.FIXED:
                continue
            found = True
            if family is not None and not graph and not family.eager_writes:
                out.append({**head, "buffer": b.name, "rows": None, "capacity": b.capacity,
                            "ok": None, "note": "eager: not used"})
            else:
                needed = rule.rows(shape.tokens, shape.requests)
                out.append({**head, "buffer": b.name, "rows": needed, "capacity": b.capacity,
                            "ok": needed <= b.capacity})
        if not found:
            out.append({**head, "buffer": None, "rows": None, "capacity": None, "ok": None,
                        "note": "not reached by such a batch"})
    return out
