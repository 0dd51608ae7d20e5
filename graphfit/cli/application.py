"""The `graphfit` typer app and its entry point. Usage errors are one `error:` line, exit 2.

Everything after a `--` is a serving command pasted as is (`graphfit plan -- vllm serve MODEL
--max-num-seqs 64 ...`); the commands read it through graphfit.cli.options.PASTED.

Start-up is lazy: `main` imports and registers only the command group of the command it runs
(GROUPS), and typer builds only that command; `graphfit --help`, `graphfit` alone and an
unknown command register them all (the listing and "did you mean" need every name), and so
does `app` (for typer's CliRunner) when typer first asks it for its commands. Values are
converted by graphfit.cli.coerce where typer would reach for pydantic.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandInfo

from graphfit.cli.errors import EXIT_BAD_INPUT, error_line
from graphfit.cli.options import PASTED

HELP = ("Plan CUDA-graph capture ladders, padding and buffer capacities that never go short.\n\n"
        "Paste a serving command after `--` to read it with the engine's own rules:\n\n"
        "graphfit plan -- vllm serve MODEL --max-num-seqs 64 ...")

# command group module -> the commands its `register(app)` adds, in help order
GROUPS: dict[str, tuple[str, ...]] = {
    "graphfit.cli.planning": ("plan", "check", "explain"),
    "graphfit.cli.engines": ("sweep", "compare"),
    "graphfit.cli.tuning": ("optimize", "memory"),
    "graphfit.cli.catalog": ("engines",),
    "graphfit.cli.rehearsal": ("rehearse",),
    "graphfit.cli.vit": ("vit",),
}


class Group(TyperGroup):
    """The root group: its options convert their values with graphfit.cli.coerce, and engine
    flags keep the engines' own syntax (graphfit.cli.options.join_list_flags) before click
    parses them."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from graphfit.cli.coerce import plain_values
        from graphfit.cli.options import join_list_flags

        plain_values(self.get_params(ctx))
        return super().parse_args(ctx, join_list_flags(list(args)))


class Command(TyperCommand):
    """Every command: its options convert their values with graphfit.cli.coerce."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from graphfit.cli.coerce import plain_values

        plain_values(self.get_params(ctx))
        return super().parse_args(ctx, args)


class LazyApp(typer.Typer):
    """A Typer whose command groups are imported and registered when typer first asks for
    its commands: `only` the one command (when it is one of GROUPS'), else every command."""

    def __init__(self, only: str | None = None, **kwargs: Any) -> None:
        self._only = only
        self._loaded = False
        self._commands: list[CommandInfo] = []
        super().__init__(**kwargs)

    @property
    def registered_commands(self) -> list[CommandInfo]:
        if not self._loaded:
            self._loaded = True
            groups = [m for m, names in GROUPS.items() if self._only in names]
            for module in groups or GROUPS:
                importlib.import_module(module).register(self)
            if groups:
                self._commands = [c for c in self._commands if c.name == self._only]
            for info in self._commands:
                if info.cls in (None, TyperCommand):
                    info.cls = Command
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list[CommandInfo]) -> None:
        self._commands = value


def build_app(only: str | None = None) -> LazyApp:
    """The graphfit app; with `only`, just that command (see LazyApp)."""
    built = LazyApp(
        only, name="graphfit", add_completion=False, pretty_exceptions_enable=False,
        context_settings={"max_content_width": 100}, help=HELP, cls=Group)
    built.callback()(_root)
    return built


def _version(value: bool) -> None:
    if value:
        from graphfit import __version__

        print(f"graphfit {__version__}")
        raise typer.Exit(0)


def _root(version: Annotated[bool, typer.Option(
        "--version", help="Print graphfit's version and exit.", callback=_version,
        is_eager=True)] = False) -> None:
    """Plan CUDA-graph capture ladders, padding and buffer capacities that never go short."""


app = build_app()


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


_SERVING = ("vllm", "sglang", "trtllm-serve")


def serving_command_at(own: list[str]) -> int | None:
    """Where a serving command starts among graphfit's own arguments (pasted without `--`):
    `vllm`, `sglang`, `trtllm-serve`, `python -m vllm...|sglang...`, or one quoted string
    starting so."""
    for i, word in enumerate(own):
        words = word.split() if " " in word.strip() else own[i:i + 3]
        if not words:
            continue
        name = words[0].rsplit("/", 1)[-1]
        module = words[2] if len(words) > 2 and words[1] == "-m" else ""
        if name in _SERVING or (name.startswith("python")
                                and module.startswith(("vllm", "sglang"))):
            return i
    return None


def _without_dashes_hint(own: list[str]) -> str | None:
    at = serving_command_at(own)
    if at is None:
        return None
    command = next((a for a in own[:at] if not a.startswith("-")), "plan")
    return (f"put `--` before the serving command: graphfit {command} -- "
            f"{' '.join(own[at:at + 3])} ...")


def main(argv: list[str] | None = None) -> None:
    """Entry point: usage errors are one line and exit 2, like every other bad input.

    Without `argv` it reads sys.argv (graphfit.cli.main prepares the process first)."""
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
    command = next((a for a in own if not a.startswith("-")), None)
    if command is not None and any(a in ("--help", "-h") for a in own[:own.index(command)]):
        command = None  # `graphfit --help plan` is graphfit's help: every command listed
    token = PASTED.set(pasted)
    try:
        code = build_app(command)(args=own, prog_name="graphfit", standalone_mode=False)
    except _CLICK_ERROR as exc:
        message = exc.format_message()  # type: ignore[attr-defined]
        hint = _without_dashes_hint(own) if pasted is None else None
        if hint is not None:  # the advice first; click's words, which echo the line, last
            message = f"{hint} ({' '.join(message.split())[:60]})"
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
