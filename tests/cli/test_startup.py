"""Issue 13's CLI start-up: lazy groups, values without pydantic, rich only for tables.

Speed itself is measured in benchmarks/bench_startup.py, never asserted here. These tests
hold what makes it fast and what must not change because of it: every command's help lists
every option it listed before, the one-command app `main` builds is the full app's command,
typer's own conversions (results and error messages) are kept, and `graphfit plan` imports
neither typer's pydantic nor (with --json) rich, nor the other engines' models.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.main
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphfit.cli import app as full_app
from graphfit.cli.application import GROUPS, _help_keeps_names, build_app
from graphfit.cli.coerce import PlainValue, _converter
from tests.helpers import ROOT, run_cli

BEFORE: dict[str, Any] = json.loads((Path(__file__).parent / "help_options.json").read_text())
COMMANDS = [name for names in GROUPS.values() for name in names]  # what main registers
NONE_BEFORE: dict[str, list[str]] = {"options": [], "arguments": []}
SEED = ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"]
PASTED = ["--", "vllm", "serve", "m", "--max-num-seqs", "33", "--speculative-config",
          '{"method":"dflash","num_speculative_tokens":3}']
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def _listed(command: list[str]) -> set[str]:
    code, out, err = run_cli([*command, "--help"])
    assert code == 0, err
    return set(_OPTION.findall(out))


def _declared(name: str) -> tuple[set[str], list[str]]:
    """Options and argument names of `name` as typer builds it in the full app."""
    group: Any = typer.main.get_command(full_app)
    command = group.commands[name]
    options = {o for p in command.params for o in (*p.opts, *p.secondary_opts)
               if p.param_type_name == "option"}
    return options, [p.name for p in command.params if p.param_type_name == "argument"]


def test_every_command_of_the_snapshot_is_registered() -> None:
    assert set(BEFORE) - {"_about", "root"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_lists_every_option_before_and_now(name: str) -> None:
    listed = _listed([name])
    options, arguments = _declared(name)
    before = BEFORE.get(name, NONE_BEFORE)
    assert set(before["options"]) <= listed, set(before["options"]) - listed
    assert options <= listed, options - listed
    assert "--help" in listed
    assert set(before["arguments"]) <= set(arguments)
    _, out, _ = run_cli([name, "--help"])
    panel = out[out.index("Arguments"):out.index("Options")] if arguments else ""
    for argument in arguments:
        assert re.search(rf"\b{argument}\b", panel), argument


def test_root_help_lists_every_command_and_option() -> None:
    code, out, _ = run_cli(["--help"])
    assert code == 0
    for name in COMMANDS:
        assert re.search(rf"^│ {name}\b", out, re.M), name
    assert set(BEFORE["root"]) <= set(_OPTION.findall(out))
    code, bare, _ = run_cli([])
    assert code == 0 and bare == out
    code, first, _ = run_cli(["--help", "plan"])  # the root's help, whatever follows
    assert code == 0 and first == out


@pytest.mark.parametrize("name", COMMANDS)
def test_main_builds_the_full_apps_command(name: str) -> None:
    """`main` registers one command; its help and parameters are the full app's."""
    _help_keeps_names()  # main patches typer's help highlighter; compare like with like
    runner = CliRunner()
    alone = runner.invoke(build_app(name), [name, "--help"])
    every = runner.invoke(full_app, [name, "--help"])
    assert alone.exit_code == every.exit_code == 0
    assert alone.output == every.output
    only: Any = typer.main.get_command(build_app(name))
    assert list(only.commands) == [name]


def test_groups_are_what_each_module_registers() -> None:
    import importlib

    for module, names in GROUPS.items():
        probe = typer.Typer()
        importlib.import_module(module).register(probe)
        assert tuple(c.name for c in probe.registered_commands) == names, module


def test_unknown_command_still_suggests() -> None:
    code, _, err = run_cli(["plna", *SEED])
    assert code == 2 and "plan" in err


# ------------------------------------------------------------------------------------------
# values: the plain cases answered here, everything else by typer itself


def _probe(
    n: Annotated[int | None, typer.Option("--n")] = None,
    s: Annotated[str | None, typer.Option("--s")] = None,
    x: Annotated[float | None, typer.Option("--x")] = None,
    p: Annotated[Path | None, typer.Option("--p")] = None,
    existing: Annotated[Path | None, typer.Option("--existing", exists=True,
                                                  dir_okay=False)] = None,
    flag: Annotated[bool, typer.Option("--flag/--no-flag")] = False,
    many: Annotated[list[str] | None, typer.Option("--many")] = None,
) -> None:
    """A command with one parameter of each plain type."""


def _command(func: Any) -> Any:
    single = typer.Typer(add_completion=False)
    single.command()(func)
    return typer.main.get_command(single)


PARAMS = {p.name: p for p in _command(_probe).params}
CTX: Any = _command(_probe).make_context("probe", [])

EDGES = (" 12", "12 ", "+5", "1_000", "5.0", "1.5", "0x10", "-0", "007", "-007", "", "-",
         "٣", "١٢", "1e3", "nan", "inf", "true", "9" * 19, "-" + "9" * 25, ".5", "5.", "-0.0",
         "1.2.3", "-.5", "00.250", ".", "tests", "README.md", "no/such/file", "~", "a\x00b",
         "./tests", "tests/", "a//b")
NAMES = ["n", "s", "x", "p", "existing"]
TEXT = st.one_of(st.from_regex(r"-?[0-9]{1,22}(\.[0-9]{0,4})?", fullmatch=True),
                 st.sampled_from(EDGES), st.text(max_size=6))
def _outcome(converter: Any, value: Any, param: Any) -> tuple[str, Any]:
    try:
        result = converter.coerce(value, param=param, ctx=CTX)
    except typer.BadParameter as exc:
        return "error", exc.format_message()
    return "ok", (type(result), result if result == result else "nan")


def _typers(param: Any) -> Any:
    from typer._coercion import build_runtime_param

    return build_runtime_param(param.type_descriptor)


def _same(name: str, value: Any) -> None:
    param = PARAMS[name]
    plain = PlainValue(param, _converter(param.type_descriptor.annotation))
    assert _outcome(plain, value, param) == _outcome(_typers(param), value, param), value
    param._runtime_param = None  # the slow path hands the parameter typer's own converter


@pytest.mark.parametrize("name", NAMES)
def test_plain_values_equal_typers_own_at_the_edges(name: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # "tests", "README.md": a directory and a file that exist
    for value in (None, *EDGES):
        _same(name, value)


@given(name=st.sampled_from(NAMES), value=st.one_of(st.none(), TEXT))
def test_plain_values_equal_typers_own(name: str, value: str | None) -> None:
    _same(name, value)


@given(value=st.one_of(st.none(), st.lists(TEXT, max_size=3).map(tuple), st.booleans()))
def test_plain_lists_and_flags_equal_typers_own(value: Any) -> None:
    for name in ("many", "flag"):
        if name == "flag" and not isinstance(value, (bool, type(None))):
            continue
        if name == "many" and isinstance(value, bool):
            continue
        _same(name, value)


def test_typers_conversions_and_messages_are_kept() -> None:
    code, out, err = run_cli(["plan", "--max-num-seqs", " 12", "--json"])
    assert code == 0 and json.loads(out)["config"]["max_num_seqs"] == 12
    code, out, err = run_cli(["plan", "--max-num-seqs", "+5", "--json"])
    assert code == 0 and json.loads(out)["config"]["max_num_seqs"] == 5
    code, _, err = run_cli(["plan", "--max-num-seqs", "abc"])
    assert code == 2 and err.startswith("error: Invalid value for '--max-num-seqs'")
    assert "expected an integer (digits 0-9)" in err  # graphfit.cli.options.integer


# ------------------------------------------------------------------------------------------
# what the hot path imports (a fresh interpreter each)


def _modules(argv: list[str]) -> set[str]:
    code = ("import json, sys\nfrom graphfit.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "sys.stderr.write(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(found)


def _tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


HEAVY = {"torch", "numpy", "matplotlib", "pydantic", "pydantic_core"}
OTHER_GROUPS = {"graphfit.cli.engines", "graphfit.cli.tuning", "graphfit.cli.svg"}
OTHER_ENGINES = {"graphfit.planner.engines.sglang", "graphfit.planner.engines.trtllm",
                 "graphfit.inputs.sglang_cli", "graphfit.inputs.trtllm_cli"}


def test_plan_json_imports_only_what_it_uses() -> None:
    modules = _modules(["plan", *SEED, "--json"])
    assert not _tops(modules) & (HEAVY | {"rich"}), _tops(modules) & (HEAVY | {"rich"})
    assert not modules & (OTHER_GROUPS | OTHER_ENGINES)
    assert "graphfit.inputs.config_file" not in modules  # no --config given


def test_path_options_need_no_pydantic(tmp_path: Path) -> None:
    _, out, _ = run_cli(["plan", *SEED, "--json"])
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(out)
    modules = _modules(["check", "--plan", str(plan_file), "--json"])
    assert not _tops(modules) & (HEAVY | {"rich"})


def test_plan_tables_and_pasted_lines_stay_lean() -> None:
    tables = _modules(["plan", *SEED])
    assert "rich" in _tops(tables) and not _tops(tables) & HEAVY
    pasted = _modules(["plan", "--json", *PASTED])
    assert not _tops(pasted) & (HEAVY | {"rich"})
    assert not pasted & (OTHER_GROUPS | OTHER_ENGINES)
