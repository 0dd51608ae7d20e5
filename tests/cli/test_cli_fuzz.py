"""Fuzz the CLI in-process: random commands, flags, values and files.

Whatever comes in, the CLI ends with exit 0 (ok), 1 (violations) or 2 (bad input), never a
traceback, within a wall-time bound; exit 2 is one `error: ...` line of at most 200
characters. Hostile values (unicode digits, 5,000-digit numbers, NaN, nested JSON, markup)
are drawn next to ordinary ones; tests/cli/test_hostile_inputs.py adds hostile files, numbers
and plan tampering.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.cli.options import CONFIG_FLAGS
from graphfit.cli.planning import plan_json
from graphfit.planner.tuning.memory import PROFILE_SCHEMA
from tests.helpers import run_cli

COMMANDS = ("plan", "check", "explain", "optimize", "memory")
VALUES = ("-1", "0", "1", "2", "3", "4", "7", "8", "16", "33", "64", "129", "512", "2048",
          "", "abc", "1.5", "nan", "inf", "-inf", "1e3", "1,2,4", "[1, 2, 4]", "[4, 2]", "[",
          "1,1", "[true]", "none", "dflash", "eagle", "draft_model", "ngram", "FULL",
          "PIECEWISE", "NONE", "FULL_DECODE_ONLY", "v1", "v2", "blackwell", "interactivity",
          "vllm-legacy", "explicit", "float8_e4m3fn", "target.input_ids=3",
          "drafter.positions=-2", "nobuffer=1", "x.y=z", "--json",
          # hostile: unicode digits, huge and non-finite numbers, malformed lists, markup
          "²", "١٢", "\uff11\uff12", "9" * 30, "1" + "0" * 5000, "Infinity", "1e308", "1_000",
          "1,,2",
          "[Infinity]", "[1.5]", "[" * 2000, "1000000000000000000", "[bold]x:smile:",
          '{"method": "eagle", "num_speculative_tokens": "²"}', "a\nb")
MEMORY_FLAGS = ("--budget-mib", "--graph-profile", "--bytes-per-token", "--graph-overhead-mib",
                "--json")
OWN_FLAGS = {  # each command's own flags; other commands' flags are drawn now and then
    "plan": ("--json",),
    "check": ("--json", "--capacity", "--plan"),
    "explain": ("--uniform", "--num-reqs"),
    "optimize": ("--trace", "--max-graphs", "--multiple-of", *MEMORY_FLAGS),
    "memory": MEMORY_FLAGS,
    "bogus": (),
}
ANY_FLAGS = tuple(sorted({f for flags in OWN_FLAGS.values() for f in flags}
                         | {"--help", "--no-such-flag"}))
FILE_FLAGS = ("--plan", "--trace", "--graph-profile")
SWITCHES = ("--json", "--uniform", "--help", "--multimodal", "--no-multimodal")


def _small_plan() -> dict[str, Any]:
    result = plan(EngineConfig(max_num_seqs=9, max_num_batched_tokens=128,
                               num_speculative_tokens=2, spec_method="dflash"))
    doc: dict[str, Any] = json.loads(json.dumps(plan_json(result)))
    return doc


PLAN_DOC = _small_plan()
PROFILE_DOC = {"schema": PROFILE_SCHEMA, "device": "fuzz", "bytes_per_captured_token": 1e5,
               "per_graph_overhead_bytes": 1 << 20,
               "samples": [{"sizes": [8, 16], "pool_bytes": 3e6}]}
TRACE_DOC = {"schema": "graphfit.trace/1", "distribution": {"3": 5, "17": 2, "100": 1}}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:3]):
            out += _paths(value, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, doc: dict[str, Any]) -> str:
    """A valid document with one value replaced (or, sometimes, left intact)."""
    copy = json.loads(json.dumps(doc))
    path = draw(st.sampled_from(_paths(copy)))
    if not path:  # the root: keep the document intact, or replace it outright
        return json.dumps(copy) if draw(st.booleans()) else json.dumps(draw(json_values))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = draw(json_values)
    return json.dumps(copy)


def file_contents(flag: str) -> st.SearchStrategy[str]:
    doc = {"--plan": PLAN_DOC, "--trace": TRACE_DOC, "--graph-profile": PROFILE_DOC}[flag]
    valid = st.sampled_from((json.dumps(doc), "num_tokens\n3\n5\n"))
    return st.one_of(valid, mutated(doc), json_values.map(json.dumps), st.text(max_size=40))


@st.composite
def argv(draw: st.DrawFn, folder: Path) -> list[str]:
    command = draw(st.sampled_from((*COMMANDS, "bogus")))
    args = [command]
    if command == "explain" and draw(st.booleans()):
        args.append(draw(st.sampled_from(VALUES)))
    if draw(st.integers(0, 4)):  # most examples get a (possibly broken) base config
        args += ["--max-num-seqs", draw(st.sampled_from(("1", "7", "33", "64", "0", "x")))]
    config_flags = tuple(f.flag for f in CONFIG_FLAGS)
    for _ in range(draw(st.integers(0, 6))):
        pool = draw(st.sampled_from((config_flags, config_flags, OWN_FLAGS[command],
                                     OWN_FLAGS[command], ANY_FLAGS)))
        flag = draw(st.sampled_from(pool or config_flags))
        if flag in SWITCHES:
            args.append(flag)
        elif flag in FILE_FLAGS:
            suffix = draw(st.sampled_from((".json", ".csv", ".txt")))
            path = folder / f"{len(args)}{flag.strip('-')}{suffix}"
            if draw(st.integers(0, 9)):
                path.write_text(draw(file_contents(flag)))
            args += [flag, str(path)]
        else:
            args += [flag, draw(st.sampled_from(VALUES))]
    if command == "optimize" and draw(st.integers(0, 3)):
        path = folder / "trace.txt"  # no known suffix: the loader sniffs JSON vs CSV
        path.write_text(draw(file_contents("--trace")))
        args += ["--trace", str(path)]
    return args


WALL_SECONDS = 20.0  # per call, generous for a slow 2-core CI machine (typical: < 0.5 s)


def assert_clean_exit(args: list[str], code: object, out: str, err: str,
                      seconds: float = 0.0) -> None:
    assert code in (0, 1, 2), (args, code, err)
    assert "Traceback" not in out + err, args
    assert seconds < WALL_SECONDS, (args, seconds)
    if code == 1:
        assert args[0] in ("check", "memory", "sweep"), (args, out)
    if code in (0, 1) and "--json" in args and out.lstrip().startswith("{"):
        json.loads(out, parse_constant=_no_constant)  # valid JSON: never NaN or Infinity
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
        assert len(lines[0]) <= 200, (args, lines[0])


def _no_constant(name: str) -> object:
    raise AssertionError(f"{name} in --json output")


def timed_cli(args: list[str]) -> tuple[int, str, str, float]:
    start = time.perf_counter()
    code, out, err = run_cli(args)
    return code, out, err, time.perf_counter() - start


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@given(data=st.data())
def test_random_command_lines_exit_cleanly(folder: Path, data: st.DataObject) -> None:
    args = data.draw(argv(folder))
    assert_clean_exit(args, *timed_cli(args))


@given(text=file_contents("--plan"))
def test_random_plan_files_exit_cleanly(folder: Path, text: str) -> None:
    path = folder / "plan.json"
    path.write_text(text)
    args = ["check", "--plan", str(path)]
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    if text == json.dumps(PLAN_DOC):
        assert code == 0
    else:  # a plan file is exactly what graphfit writes, or bad input
        assert code == 2, (text, out)


@given(trace=file_contents("--trace"), profile=file_contents("--graph-profile"),
       extra=st.lists(st.sampled_from(["--json", "--budget-mib", "64", "--max-graphs", "3",
                                       "--multiple-of", "2"]), max_size=4))
def test_random_trace_and_profile_files_exit_cleanly(folder: Path, trace: str, profile: str,
                                                     extra: list[str]) -> None:
    (folder / "t.txt").write_text(trace)
    (folder / "p.json").write_text(profile)
    args = ["optimize", "--max-num-seqs", "33", "--max-num-batched-tokens", "512",
            "--trace", str(folder / "t.txt"), *extra]
    if len(extra) % 2:  # half the examples also read the (possibly broken) profile
        args += ["--graph-profile", str(folder / "p.json")]
    assert_clean_exit(args, *timed_cli(args))
