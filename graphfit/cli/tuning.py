"""CLI commands added by the optimize work: `optimize` (ladder from a trace) and `memory`.

`register` attaches them to the main app; planner imports stay inside the commands so
`graphfit --help` stays fast.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.options import config_options, integer, number, positive_number
from graphfit.cli.output import JsonFlag, console, emit_json, user
from graphfit.cli.reports import PngOpt, SvgOpt, draw, write_report
from graphfit.planner.config import EngineConfig

if TYPE_CHECKING:
    from graphfit.planner.tuning.memory import GraphMemoryModel
    from graphfit.planner.tuning.optimize import LadderCost
    from graphfit.planner.tuning.tune import Tuning

ProfileOpt = Annotated[Path | None, typer.Option(
    "--graph-profile", help="Measured graph-memory profile (graphfit.graph-profile/1 JSON, "
    "written by examples/gpu_check.py).")]
BytesPerTokenOpt = Annotated[float | None, typer.Option(
    "--bytes-per-token", help="Pool bytes per captured token of the largest graph "
    "(overrides the profile).", parser=number)]
OverheadOpt = Annotated[float | None, typer.Option(
    "--graph-overhead-mib", help="Fixed MiB per captured graph (overrides the profile).",
    parser=number)]
BudgetOpt = Annotated[float | None, typer.Option(
    "--budget-mib", help="Graph-memory budget in MiB: caps how many graphs are captured.",
    parser=positive_number)]

MIB = 1024 * 1024




def memory_model(profile: Path | None, bytes_per_token: float | None,
                 overhead_mib: float | None) -> GraphMemoryModel | None:
    """The model from a profile, with CLI overrides; None when nothing was given."""
    from graphfit.inputs.profiles import load_profile
    from graphfit.planner.tuning.memory import GraphMemoryModel

    if profile is None and bytes_per_token is None and overhead_mib is None:
        return None
    if profile is None:
        return GraphMemoryModel(bytes_per_token or 0.0, (overhead_mib or 0.0) * MIB)
    model = load_profile(profile)
    changes: dict[str, Any] = {}
    if bytes_per_token is not None:
        changes["bytes_per_captured_token"] = bytes_per_token
    if overhead_mib is not None:
        changes["per_graph_overhead_bytes"] = overhead_mib * MIB
    return dataclasses.replace(model, **changes) if changes else model


def parse_include(text: str | None) -> tuple[int, ...]:
    """'1,2,4' or '1 2 4' -> (1, 2, 4); each a size >= 1 (read by the inputs layer, bounded)."""
    from graphfit.inputs.values import as_sizes

    if text is None:
        return ()
    return as_sizes("--include", text)


PROFILE_HOWTO = (
    "python examples/gpu_check.py --profile-out profile.json",
    "graphfit memory ... --graph-profile profile.json [--budget-mib M]",
)


def _memory_without_profile(result: Any, config: EngineConfig, json_output: bool) -> None:
    """`memory` with no measured model: graph memory depends on the model and the GPU, so
    graphfit says what it knows (the ladder, the persistent buffers), how to measure the rest
    (the profiling example) and what the estimate would then show. Exit 0: nothing is wrong."""
    from graphfit.cli.render import human_bytes

    sizes = result.capture_sizes if result.has_graphs else ()
    top = max(sizes) if sizes else 0
    unit = result.unit.value
    if json_output:
        emit_json({
            "schema": "graphfit.memory/1", "config": config.to_dict(), "device": None,
            "capture_sizes": list(sizes), "num_graphs": len(sizes), "pool_bytes": None,
            "graph_bytes": None, "buffer_bytes": result.total_bytes, "total_bytes": None,
            "budget_bytes": None, "max_graphs_in_budget": None, "ok": True,
            **_reserve_fields(config), "profile_needed": list(PROFILE_HOWTO)})
        return
    out = console()
    lines = [
        f"{result.engine_version}: {len(sizes)} graphs, the largest {top} {unit}; persistent "
        f"buffers {human_bytes(result.total_bytes)} (graphfit's plan: known without a GPU).",
        "Graph memory depends on the model and the GPU, so it is measured, not guessed. "
        "No profile was given; make one on the GPU that will serve:",
        f"  {PROFILE_HOWTO[0]}",
        "  (captures six explicit ladders of its example model, each into a fresh pool, and "
        "writes their reserved-pool growth as graphfit.graph-profile/1; without CUDA it "
        "prints SKIP; profile your own model's forward the same way for its coefficients)",
        f"  {PROFILE_HOWTO[1]}",
        "or give the coefficients yourself: --bytes-per-token B [--graph-overhead-mib M].",
        f"With a profile this prints: the shared pool for the largest graph ({top} {unit}), "
        f"{len(sizes)} graphs x the per-graph overhead, their sum (graph memory) beside the "
        "persistent buffers, and with --budget-mib how many graphs fit (exit 1 when the "
        "ladder does not).",
    ]
    reserve = _reserve_text(config)
    if reserve is not None:
        lines.insert(1, reserve)
    for line in lines:
        out.print(line, markup=False, highlight=False)


def _sglang_reserve(config: EngineConfig) -> tuple[float, int] | None:
    """(mem_fraction_static, bytes left outside static memory) of an SGLang config whose GPU
    memory is known (graphfit.planner.engines.sglang_reserve); None otherwise."""
    from graphfit.planner.core.enums import Engine
    from graphfit.planner.engines.sglang_reserve import reserve_bytes

    if config.engine is not Engine.SGLANG:
        return None
    fraction, gb = config.mem_fraction_static, config.gpu_memory_gb
    if fraction is None or gb is None:
        return None
    return fraction, reserve_bytes(gb, fraction)


def _reserve_fields(config: EngineConfig) -> dict[str, Any]:
    """The JSON fields of SGLang's memory reserve (null where it does not apply)."""
    reserve = _sglang_reserve(config)
    return {"mem_fraction_static": None if reserve is None else reserve[0],
            "runtime_reserve_bytes": None if reserve is None else reserve[1]}


def _reserve_text(config: EngineConfig) -> str | None:
    reserve = _sglang_reserve(config)
    if reserve is None:
        return None
    fraction, left = reserve
    return (f"SGLang keeps {fraction:g} of {config.gpu_memory_gb:g} GiB static (weights + KV, "
            f"mem_fraction_static) and leaves {_mib(left)} for activations and graphs "
            "(its default for a text-only model unless --mem-fraction-static is given, "
            "memory_hook.py:281-343).")


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value / MIB:,.1f} MiB"


def cost_document(cost: LadderCost, graph_bytes: float | None) -> dict[str, Any]:
    return {
        "capture_sizes": list(cost.sizes),
        "num_graphs": cost.num_graphs,
        "expected_tokens": round(cost.expected_tokens, 6),
        "expected_padded": round(cost.expected_padded, 6),
        "expected_waste": round(cost.expected_waste, 6),
        "waste_fraction": round(cost.waste_fraction, 6),
        "graphed_fraction": round(cost.graphed_fraction, 6),
        "graph_bytes": None if graph_bytes is None else round(graph_bytes),
    }


def tuning_document(t: Tuning, trace_format: str = "csv",
                    trace_warnings: tuple[str, ...] = ()) -> dict[str, Any]:
    """The `optimize --json` document (schema graphfit.optimize/1)."""
    from graphfit.planner.document import verification_document

    trace = t.trace
    return {
        "schema": "graphfit.optimize/1",
        "engine_version": t.config.model.version,
        "config": t.config.to_dict(),
        "trace": {"source": trace.source, "format": trace_format,
                  "total_weight": trace.total_weight,
                  "distinct_sizes": len(trace.sizes), "mean": round(trace.mean, 6),
                  "max": trace.max_size, "warnings": list(trace_warnings)},
        "max_capture_size": t.max_size,
        "multiple_of": t.multiple_of,
        "requested_graphs": t.requested_graphs,
        "budget_bytes": t.budget_bytes,
        "budget_graphs": t.budget_graphs,
        "baseline": cost_document(t.baseline, t.graph_bytes(t.baseline)),
        "equal_count": (None if t.equal_count is None
                        else cost_document(t.equal_count, t.graph_bytes(t.equal_count))),
        "optimized": cost_document(t.chosen, t.graph_bytes(t.chosen)),
        "reduction_at_equal_count": (None if t.reduction_at_equal_count is None
                                     else round(t.reduction_at_equal_count, 6)),
        "reduction": {"graphs": t.graph_counts[0], "default_graphs": t.graph_counts[1],
                      "fraction": round(t.reduction, 6)},
        "include": list(t.include),
        "cli": paste_back(t)[1][0],
        "paste": paste_document(t),
        "warnings": list(t.warnings),
        "verification": verification_document(t.verification),
    }


def paste_back(t: Tuning) -> tuple[str, list[str], list[str]]:
    """(where, the lines in the engine's syntax, warnings about them) for the chosen ladder:
    what its smallest size means for a lone request, and which small decodes pad far."""
    from graphfit.inputs.pasteback import ladder_syntax, ladder_warnings
    from graphfit.planner.plan import plan

    tuned = plan(t.tuned_config)
    where, lines = ladder_syntax(t.config.engine, t.chosen.sizes,
                                 padding=bool(t.config.cuda_graph_padding),
                                 version=t.config.engine_version)
    # the small-decode advice opens with the same "no size below" fact when it applies
    warnings = list(t.paste_warnings) or ladder_warnings(t.chosen.sizes, tuned.unit,
                                                         t.config.uniform_query_len)
    return where, lines, warnings


def paste_document(t: Tuning) -> dict[str, Any]:
    where, lines, warnings = paste_back(t)
    return {"engine": t.config.engine.value, "where": where, "lines": lines,
            "warnings": warnings}


def _per_step(t: Tuning) -> str:
    """The unit of the waste column: what the engine's ladder counts."""
    from graphfit.planner.core.enums import Unit
    from graphfit.planner.plan import plan

    return "tok" if plan(t.config).unit is Unit.TOKENS else "req"


def comparison_table(t: Tuning) -> Table:
    table = Table(title=f"Expected padding per step on {user(t.trace.source)}",
                  title_justify="left")
    for name in ("ladder", "graphs", "max", f"waste {_per_step(t)}/step", "waste % computed",
                 "vs default", "graph memory"):
        table.add_column(name, justify="left" if name == "ladder" else "right")
    base = t.baseline.expected_waste
    rows = [("default (config)", t.baseline)]
    if t.equal_count is not None:
        rows.append(("optimised, equal count", t.equal_count))
    else:
        rows.append((f"optimised, {t.chosen.num_graphs} graphs", t.chosen))
    for label, cost in rows:
        delta = (f"{100 * (cost.expected_waste / base - 1):+.1f}%" if base > 0 else "-")
        table.add_row(label, str(cost.num_graphs), str(cost.sizes[-1]),
                      f"{cost.expected_waste:.2f}", f"{100 * cost.waste_fraction:.2f}%",
                      "-" if cost is t.baseline else delta, _mib(t.graph_bytes(cost)))
    return table


def reduction_line(t: Tuning) -> str:
    """The verdict, naming the graph counts it compares."""
    graphs, default = t.graph_counts
    more = t.reduction < 0
    cut = f"[bold]{100 * abs(t.reduction):.1f}%[/bold] {'more' if more else 'less'}"
    if t.equal_count is not None:
        return f"{cut} expected padding than the default ladder at equal graph count ({default})."
    return (f"{cut} expected padding than the default ladder, with {graphs} graphs against its "
            f"{default}.")


def print_tuning(console: Console, t: Tuning, trace_warnings: tuple[str, ...] = ()) -> None:
    from graphfit.cli.render import config_line, eager_line, print_verdict
    from graphfit.planner.analysis.summary import compress_sizes
    from graphfit.planner.plan import plan

    console.print(f"[bold]graphfit optimize[/bold]: {config_line(plan(t.config))}")
    console.print(f"trace {user(t.trace.describe())}")
    limits = f"max size {t.max_size} (kept from the config), sizes multiples of {t.multiple_of}"
    if t.budget_graphs is not None:
        limits += f", budget {_mib(t.budget_bytes)} allows {t.budget_graphs} graphs"
    console.print(limits)
    for warning in (*trace_warnings, *t.warnings):
        console.print(f"[yellow]warning[/yellow]: {user(warning)}")
    console.print(comparison_table(t))
    console.print(reduction_line(t))
    console.print(f"optimised sizes: {compress_sizes(t.chosen.sizes)}")
    print_verdict(console, t.verification, audit=False)
    slow = eager_line(plan(t.config), dict(zip(t.trace.sizes, t.trace.weights, strict=True)))
    if slow is not None:  # the config as given, on this trace
        console.print(slow)
    where, lines, warnings = paste_back(t)
    console.print(f"paste into {where}:")
    for warning in warnings:  # next to the lines they are about
        console.print(f"[yellow]warning[/yellow]: {user(warning)}")
    sys.stdout.flush()
    for line in reversed(lines):  # the plain flag last: one unwrapped line, ready to paste
        print(line)


def register(app: typer.Typer) -> None:
    """Attach `optimize` and `memory` to `app`."""

    @app.command("optimize")
    @config_options
    def optimize_command(
        config: EngineConfig,
        trace: Annotated[Path, typer.Option(
            "--trace", help="Batch-size trace: a vLLM log with --cudagraph-metrics, vLLM's "
            "/metrics (Prometheus text), or CSV/JSON of num_tokens (told from the content).")],
        max_graphs: Annotated[int | None, typer.Option(
            "--max-graphs", help="Graphs to capture (default: as many as the default "
            "ladder).", parser=integer)] = None,
        multiple_of: Annotated[int | None, typer.Option(
            "--multiple-of", help="Every size but the max a multiple of this (default: q "
            "when the V1 runner rounds to q, else 1).", parser=integer)] = None,
        include: Annotated[str | None, typer.Option(
            "--include", help="Sizes that must stay in the ladder, e.g. 1 or 1,2,4 (in the "
            "engine's unit: tokens for vLLM, requests for SGLang / TensorRT-LLM).")] = None,
        budget_mib: BudgetOpt = None,
        graph_profile: ProfileOpt = None,
        bytes_per_token: BytesPerTokenOpt = None,
        graph_overhead_mib: OverheadOpt = None,
        json_output: JsonFlag = False,
        svg: SvgOpt = None,
        png: PngOpt = None,
    ) -> None:
        """Choose capture sizes that minimise expected padding on a trace (exact DP)."""
        from graphfit.inputs.traces import read_trace
        from graphfit.planner.tuning.tune import tune

        with handled():
            model = memory_model(graph_profile, bytes_per_token, graph_overhead_mib)
            reading = read_trace(trace)
            steps, trace_warnings = reading.for_config(config)
            result = tune(config, steps, max_graphs=max_graphs,
                          multiple_of=multiple_of, memory=model,
                          budget_bytes=None if budget_mib is None else budget_mib * MIB,
                          include=parse_include(include))
        written = write_report(lambda: draw().optimize_figure(result), svg, png)
        if json_output:
            emit_json(tuning_document(result, reading.format.value, trace_warnings))
        else:
            print_tuning(console(), result, trace_warnings)
            for path in written:
                console().print(f"wrote {user(path)}")
        if not result.verification.ok:  # pragma: no cover - planned capacities are safe
            raise typer.Exit(EXIT_VIOLATIONS)

    def _startup_reservation(result: Any, config: EngineConfig, model: Any) -> float | None:
        """What a release that profiles graph memory at start-up (vLLM 0.34) reserves for
        the target's graphs, under the memory model; None for releases that do not."""
        from graphfit.planner.core.enums import CUDAGraphMode
        from graphfit.planner.tuning.memory import startup_reservation

        changes = getattr(config.model, "changes", None)
        if not getattr(changes, "profiles_graph_memory", False) or not result.has_graphs:
            return None
        keys = result.graph_keys("target")
        piecewise = sorted({k.padded for k, modes in keys.items()
                            if CUDAGraphMode.PIECEWISE in modes})
        full = sorted((k.padded for k, modes in keys.items() if CUDAGraphMode.FULL in modes),
                      reverse=True)
        return float(startup_reservation(model, piecewise, full))

    @app.command("memory")
    @config_options
    def memory_command(
        config: EngineConfig,
        budget_mib: BudgetOpt = None,
        graph_profile: ProfileOpt = None,
        bytes_per_token: BytesPerTokenOpt = None,
        graph_overhead_mib: OverheadOpt = None,
        json_output: JsonFlag = False,
    ) -> None:
        """Estimate graph memory of the config's ladder; exit 1 when over --budget-mib."""
        from graphfit.planner.core.errors import ConfigError
        from graphfit.planner.plan import plan

        with handled():
            model = memory_model(graph_profile, bytes_per_token, graph_overhead_mib)
            if model is None and budget_mib is not None:
                raise ConfigError("graph memory: --budget-mib needs a measured model: pass "
                                  "--graph-profile FILE (python examples/gpu_check.py "
                                  "--profile-out FILE on the GPU) or --bytes-per-token")
            result = plan(config)
        if model is None:  # what graphfit knows without a GPU, and how to measure the rest
            _memory_without_profile(result, config, json_output)
            return
        with handled():
            sizes = result.capture_sizes if result.has_graphs else ()
            graphs = model.ladder_bytes(sizes)
            budget = None if budget_mib is None else budget_mib * MIB
            fit = (model.max_graphs(result.max_capture_size, budget)
                   if budget is not None and sizes else None)
            reserved = _startup_reservation(result, config, model)
        over = budget is not None and graphs > budget
        if json_output:
            emit_json({
                "schema": "graphfit.memory/1", "engine_version": result.engine_version,
                "config": config.to_dict(),
                "device": model.device, "capture_sizes": list(sizes),
                "num_graphs": len(sizes),
                "pool_bytes": round(model.pool_bytes(max(sizes))) if sizes else 0,
                "graph_bytes": round(graphs), "buffer_bytes": result.total_bytes,
                "total_bytes": round(graphs) + result.total_bytes,
                "budget_bytes": budget, "max_graphs_in_budget": fit,
                "startup_reserved_bytes": None if reserved is None else round(reserved),
                **_reserve_fields(config), "ok": not over})
        else:
            out = console()
            table = Table(title=f"Graph memory estimate, {result.engine_version}"
                          + (f" ({user(model.device)})" if model.device else ""),
                          title_justify="left")
            table.add_column("item")
            table.add_column("bytes", justify="right")
            table.add_row(f"shared pool (largest graph {max(sizes) if sizes else 0})",
                          _mib(model.pool_bytes(max(sizes)) if sizes else 0.0))
            table.add_row(f"{len(sizes)} graphs x {_mib(model.per_graph_overhead_bytes)}",
                          _mib(model.per_graph_overhead_bytes * len(sizes)))
            table.add_row("graph memory", _mib(graphs))
            if reserved is not None:
                table.add_row("vLLM reserves at start-up (FULL graphs extrapolated: first + "
                              "(n-1) x max(second, 1 MiB))", _mib(reserved))
            table.add_row("persistent buffers (graphfit plan)", _mib(result.total_bytes))
            sglang = _sglang_reserve(config)
            if sglang is not None:
                table.add_row(f"SGLang leaves outside static memory (mem_fraction_static "
                              f"{sglang[0]:g}): activations + graphs", _mib(sglang[1]))
            if budget is not None:
                table.add_row("budget (graphs)", _mib(budget))
            out.print(table)
            if budget is not None:
                verdict = "[bold red]OVER[/bold red]" if over else "[bold green]FITS[/bold green]"
                out.print(f"{verdict}: at most {fit} graphs with max {result.max_capture_size}"
                              " fit the budget.")
        if over:
            raise typer.Exit(EXIT_VIOLATIONS)
