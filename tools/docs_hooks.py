"""MkDocs hooks for graphfit's site (mkdocs.yml `hooks:`).

* A nav entry that names a folder (`operators/`) lists every page in it: index.md first, then
  the others by file name, so a page added under docs/operators/ appears without editing the
  nav.
* `reference/cli.md` is generated at build time from the typer app itself (typer's own Markdown
  generator), so the CLI reference can never lag behind the commands' help.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CLI_PAGE = "reference/cli.md"


def _title(page: Path) -> str:
    """The page's first `# ` heading, else its file name."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem.replace("-", " ").capitalize()


def _expand(entry: Any, docs_dir: Path) -> Any:
    if isinstance(entry, list):
        return [_expand(item, docs_dir) for item in entry]
    if isinstance(entry, dict):
        return {key: _expand(value, docs_dir) for key, value in entry.items()}
    if isinstance(entry, str) and entry.endswith("/"):
        folder = docs_dir / entry
        pages = sorted(folder.glob("*.md"), key=lambda p: (p.name != "index.md", p.name))
        return [{_title(p): f"{entry}{p.name}"} for p in pages]
    return entry


def on_config(config: Any) -> Any:
    config["nav"] = _expand(config["nav"], Path(config["docs_dir"]))
    return config


def cli_reference() -> str:
    """Markdown for every command and option, from the typer app (typer's docs generator)."""
    import typer
    from typer.cli import get_docs_for_click

    from graphfit.cli.application import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=typer.Context(command), name="graphfit",
                              title="CLI reference")
    intro = ("Generated from the typer app (`graphfit.cli.application`) at every docs build; "
             "`graphfit COMMAND --help` prints the same.\n\n")
    head, _, rest = text.partition("\n\n")
    return f"{head}\n\n{intro}{rest.strip()}\n"


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    files.append(File.generated(config, CLI_PAGE, content=cli_reference()))
    return files
