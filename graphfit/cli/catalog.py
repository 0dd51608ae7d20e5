"""`graphfit engines`: the engines and releases graphfit models, and each one's parts.

What `--engine` and `--engine-version` accept, read from the registry and the plugin table
(graphfit.planner.engines), third-party engines of the `graphfit.engines` entry points and
an `--engine-file` description included. No model is imported to list them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from graphfit.cli.errors import handled
from graphfit.cli.output import JsonFlag, console, emit_json
from graphfit.cli.tables import add_row, literal_table


def catalog() -> list[dict[str, Any]]:
    """One entry per (engine, release): default or not, and which parts it has."""
    from graphfit.planner.engines import registry, table

    out = []
    for engine in registry.engines():
        default = registry.default_version(engine)
        for version in registry.versions(engine):
            entry = table.plugin(engine, version)
            parts = [name for name in table.PARTS[1:] if getattr(entry, name) is not None]
            out.append({"engine": engine, "version": version, "default": version == default,
                        "parts": parts})
    return out


def engines_command(
    engine_file: Annotated[Path | None, typer.Option(
        "--engine-file", help="Also list this engine description (TOML/YAML/JSON).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """List the engines and releases graphfit models (what --engine and --engine-version
    take), the default release of each, and the parts each provides."""
    with handled():
        if engine_file is not None:
            from graphfit.inputs.engine_file import load_engine_file

            load_engine_file(engine_file)
        rows = catalog()
    if json_output:
        emit_json({"schema": "graphfit.engines/1", "engines": rows})
        return
    shown = literal_table("Engines (--engine, --engine-version)")
    for name in ("engine", "version", "default", "parts"):
        shown.add_column(name)
    for row in rows:
        add_row(shown, row["engine"], row["version"], "yes" if row["default"] else "",
                ", ".join(row["parts"]) or "model only")
    console().print(shown)


def register(app: typer.Typer) -> None:
    """Attach this module's command to `app`."""
    app.command("engines")(engines_command)
