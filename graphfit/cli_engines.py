"""CLI commands added by the engines work; `register` attaches them to the main app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Attach this module's commands to `app` (heavy imports stay inside the commands)."""
