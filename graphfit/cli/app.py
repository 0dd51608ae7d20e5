"""The `graphfit` typer app and its entry point. Usage errors are one `error:` line, exit 2.

Everything after a `--` is a serving command pasted as is (`graphfit plan -- vllm serve MODEL
--max-num-seqs 64 ...`); the commands read it through graphfit.cli.options.PASTED.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from graphfit.cli import engines, planning, tuning
from graphfit.cli.errors import EXIT_BAD_INPUT, error_line
from graphfit.cli.options import PASTED, EngineArgsGroup

HELP = ("Plan CUDA-graph capture ladders, padding and buffer capacities that never go short.\n\n"
        "Paste a serving command after `--` to read it with the engine's own rules:\n\n"
        "graphfit plan -- vllm serve MODEL --max-num-seqs 64 ...")

app = typer.Typer(
    name="graphfit", cls=EngineArgsGroup, add_completion=False, pretty_exceptions_enable=False,
    context_settings={"max_content_width": 100}, help=HELP)

for _group in (planning, engines, tuning):
    _group.register(app)


def _version(value: bool) -> None:
    if value:
        from graphfit import __version__

        print(f"graphfit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", help="Print graphfit's version and exit.", callback=_version,
        is_eager=True)] = False) -> None:
    """Plan CUDA-graph capture ladders, padding and buffer capacities that never go short."""


# typer may vendor click: take its exception base from typer rather than importing click
_CLICK_ERROR: type[Exception] = typer.BadParameter.__mro__[2]


def _help_keeps_names() -> None:
    """Typer's help joins an option's names with "," into one cell, which a narrow terminal
    cuts ("--max-batch-size,--max_batch_s…"): break the line after each comma instead, so
    every name stays whole at 80 columns. Patched only when help is printed."""
    from typer import rich_utils

    base = type(rich_utils.highlighter)
    if getattr(rich_utils.highlighter, "graphfit", False):
        return

    class NamesOnLines(base):  # type: ignore[misc,valid-type]
        graphfit = True

        def __call__(self, text: Any) -> Any:
            if isinstance(text, str):
                text = text.replace(",", ",\n")
            return super().__call__(text)

    rich_utils.highlighter = NamesOnLines()


def split_pasted(argv: list[str]) -> tuple[list[str], tuple[str, ...] | None]:
    """graphfit's own arguments and the pasted serving command after the first `--`."""
    if "--" not in argv:
        return argv, None
    index = argv.index("--")
    return argv[:index], tuple(argv[index + 1:])


def main(argv: list[str] | None = None) -> None:
    """Entry point: usage errors are one line and exit 2, like every other bad input."""
    args = list(sys.argv[1:] if argv is None else argv)
    own, pasted = split_pasted(args)
    if pasted is not None and not pasted:
        print(error_line("nothing after `--` (paste a serving command there, e.g. "
                         "`graphfit plan -- vllm serve MODEL --max-num-seqs 64`)"),
              file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    if not own:
        if pasted is not None:
            print(error_line("give a command before `--`: plan, check, explain, sweep, "
                             "compare, optimize or memory"), file=sys.stderr)
            sys.exit(EXIT_BAD_INPUT)
        own = ["--help"]  # bare `graphfit`: the help, exit 0
    if any(a in ("--help", "-h") for a in own):
        _help_keeps_names()
    token = PASTED.set(pasted)
    try:
        code = app(args=own, prog_name="graphfit", standalone_mode=False)
    except _CLICK_ERROR as exc:
        message = exc.format_message()  # type: ignore[attr-defined]
        print(error_line(message), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    except typer.Abort:
        print(error_line("aborted"), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    finally:
        PASTED.reset(token)
    sys.exit(code if isinstance(code, int) else 0)
