"""Commands about one config: `plan`, `check`, `explain`. Exit 0 ok, 1 violations, 2 bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphfit.cli.errors import EXIT_VIOLATIONS, handled
from graphfit.cli.options import config_options
from graphfit.cli.output import JsonFlag, console, emit_json
from graphfit.cli.render import explain_table, print_plan, print_verdict
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.document import load_plan_document, plan_document, verification_document
from graphfit.planner.plan import Plan, plan


def parse_capacity(text: str) -> tuple[str, int]:
    """'drafter.positions=132' -> ('drafter.positions', 132)."""
    key, sep, value = text.partition("=")
    if not sep or "." not in key:
        raise ConfigError(f"capacity: {text!r} is not of the form component.buffer=ROWS")
    try:
        rows = int(value)
    except ValueError:
        raise ConfigError(f"capacity: {value!r} in {text!r} is not an integer") from None
    if rows < 0:
        raise ConfigError(f"capacity: {key} must be >= 0, got {rows}")
    return key.strip(), rows


def plan_command(config: EngineConfig, json_output: JsonFlag = False) -> None:
    """Plan the ladder, padding and every buffer capacity, and prove them safe."""
    with handled():
        result = plan(config)
        verification = result.verify()
    if json_output:
        emit_json(plan_document(result, verification))
    else:
        print_plan(console(), result, verification)
    if not verification.ok:  # pragma: no cover - graphfit's own capacities are always safe
        raise typer.Exit(EXIT_VIOLATIONS)


def check_command(
    config: EngineConfig | None = None,
    capacity: Annotated[list[str] | None, typer.Option(
        "--capacity", help="Audit your own sizing: component.buffer=ROWS (repeatable).")] = None,
    plan_file: Annotated[Path | None, typer.Option(
        "--plan", help="Audit a plan JSON written by `graphfit plan --json`.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Audit capacities: exit 1 with counterexamples when any reachable batch goes short."""
    with handled():
        if plan_file is not None:
            if config is not None:
                raise ConfigError("plan: give either --plan FILE or config flags, not both")
            result, capacities = load_plan_document(plan_file.read_text())
        elif config is None:
            raise ConfigError("max_num_seqs: missing (pass --max-num-seqs or --plan FILE)")
        else:
            result, capacities = plan(config), {}
        capacities.update(parse_capacity(c) for c in capacity or [])
        verification = result.verify(capacities=capacities)
    if json_output:
        emit_json({"schema": "graphfit.check/1", **verification_document(verification)})
    else:
        print_verdict(console(), verification, audit=bool(capacities))
    if not verification.ok:
        raise typer.Exit(EXIT_VIOLATIONS)


def explain_command(
    config: EngineConfig,
    num_tokens: Annotated[int, typer.Argument(help="Tokens in the batch.")],
    uniform: Annotated[bool, typer.Option(
        "--uniform", help="A uniform decode batch (num_reqs x q tokens).")] = False,
    num_reqs: Annotated[int | None, typer.Option("--num-reqs", help="Requests.")] = None,
) -> None:
    """Show where a batch of N tokens goes: graph mode, padded size, buffer headroom."""
    with handled():
        result: Plan = plan(config)
        table = explain_table(result, num_tokens, uniform_decode=uniform, num_reqs=num_reqs)
    console().print(table)


def register(app: typer.Typer) -> None:
    """Attach `plan`, `check` and `explain` to `app`."""
    app.command("plan")(config_options(plan_command))
    app.command("check")(config_options(check_command))
    app.command("explain")(config_options(explain_command))
