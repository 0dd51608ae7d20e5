"""Hostile input through the CLI: files, numbers, work and plan tampering.

Every call ends with exit 0, 1 or 2, no traceback, inside a wall-time bound generous for a
slow 2-core machine; exit 2 is exactly one `error:` line of at most 200 characters. The
generators draw what broke graphfit before issue 14: binary, UTF-16, nested, huge and
wrongly typed files; unicode digits, 5,000-digit, non-finite and fractional numbers; values
asking for unbounded work (10^18 tokens, 10^9-size ladders, 10^12-point sweeps); and plan
files with entries added, duplicated, removed or reordered.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cli.planning import plan_json
from graphfit.planner.core.limits import MAX_FILE_BYTES
from tests.cli.test_cli_fuzz import assert_clean_exit, timed_cli
from tests.helpers import run_cli

FEW = settings(max_examples=25, deadline=None)

# -- files -----------------------------------------------------------------------------------

CONFIG = {"max_num_seqs": 8, "max_num_batched_tokens": 64}
nested = st.integers(65, 3000).map(lambda d: "[" * d + "]" * d)
wrong_types = st.sampled_from([[1], {"a": 1}, "x", None, True, 1.5, -3, 2 ** 70])
json_docs = st.one_of(
    st.just(json.dumps(CONFIG)),
    wrong_types.map(lambda v: json.dumps({"max_num_seqs": v})),
    wrong_types.map(lambda v: json.dumps({"max_num_seqs": 8, "speculative_config": v})),
    wrong_types.map(lambda v: json.dumps({"max_num_seqs": 8, "cuda_graph_config": v})),
    nested, st.just('{"max_num_seqs": 8, "max_num_seqs": 9}'), st.just('{"a": NaN}'),
    st.just('{"max_num_seqs": ' + "9" * 5000 + "}"), st.just("[1e999]"),
)
yaml_docs = st.sampled_from([
    "max_num_seqs: 8\n", "a: &a [x, x]\nb: [*a, *a]\n", "max_num_seqs: 4\nmax_num_seqs: 8\n",
    "max_num_seqs: !!python/object:os.system ls\n", "max_num_seqs: .inf\n",
    "max-num-seqs: {a: 1}\n", "- 1\n- 2\n", "", "a: " + "[" * 200 + "]" * 200 + "\n",
    "max_num_seqs: " + "9" * 5000 + "\n", "speculative-config: {method: [1]}\n",
])


@st.composite
def file_bytes(draw: st.DrawFn) -> tuple[str, bytes]:
    """(suffix, content): text that is wrong in every way a file can be."""
    kind = draw(st.sampled_from(("json", "yaml", "binary", "utf16", "bom", "text")))
    if kind == "json":
        return ".json", draw(json_docs).encode()
    if kind == "yaml":
        return ".yaml", draw(yaml_docs).encode()
    if kind == "binary":
        return draw(st.sampled_from((".json", ".yaml", ".csv"))), draw(st.binary(max_size=64))
    if kind == "utf16":
        return ".json", json.dumps(CONFIG).encode("utf-16")
    if kind == "bom":
        return ".json", b"\xef\xbb\xbf" + json.dumps(CONFIG).encode()
    return ".yaml", draw(st.text(max_size=60)).encode("utf-8", "surrogatepass")


FILE_COMMANDS = [
    ("plan", ["--max-num-seqs", "8"], "--config"),
    ("check", [], "--plan"),
    ("optimize", ["--max-num-seqs", "8", "--max-num-batched-tokens", "64"], "--trace"),
    ("memory", ["--max-num-seqs", "8"], "--graph-profile"),
]


@FEW
@given(content=file_bytes(), which=st.sampled_from(FILE_COMMANDS))
def test_hostile_files_exit_cleanly(tmp_path_factory: pytest.TempPathFactory,
                                    content: tuple[str, bytes],
                                    which: tuple[str, list[str], str]) -> None:
    suffix, data = content
    path = tmp_path_factory.mktemp("files") / f"f{suffix}"
    path.write_bytes(data)
    command, base, flag = which
    args = [command, *base, flag, str(path)]
    assert_clean_exit(args, *timed_cli(args))


@FEW
@given(content=file_bytes(), how=st.sampled_from(("vllm", "sglang", "trtllm", "model")))
def test_hostile_files_in_pasted_commands_exit_cleanly(
        tmp_path_factory: pytest.TempPathFactory, content: tuple[str, bytes],
        how: str) -> None:
    suffix, data = content
    folder = tmp_path_factory.mktemp("pasted")
    path = folder / f"f{'.yaml' if how != 'model' else suffix}"
    path.write_bytes(data)
    line = {"vllm": ["vllm", "serve", "m", "--max-num-seqs", "8", "--config", str(path)],
            "sglang": ["sglang", "serve", "m", "--max-running-requests", "8", "--config",
                       str(path)],
            "trtllm": ["trtllm-serve", "m", "--extra_llm_api_options", str(path)],
            "model": ["vllm", "serve", str(path), "--max-num-seqs", "8"]}[how]
    args = ["plan", "--", *line]
    assert_clean_exit(args, *timed_cli(args))


def _refused(args: list[str], needle: str) -> None:
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    assert code == 2 and needle in err, (args, err)


def test_special_files_are_refused_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: refused from its size, never read
    _refused(["plan", "--max-num-seqs", "8", "--config", str(big)], "larger than")
    _refused(["check", "--plan", str(big)], "larger than")
    _refused(["plan", "--max-num-seqs", "8", "--config", str(tmp_path)], "directory")
    if os.path.exists("/dev/zero"):
        _refused(["plan", "--max-num-seqs", "8", "--config", "/dev/zero"], "regular file")
        _refused(["optimize", "--max-num-seqs", "8", "--trace", "/dev/zero"], "regular file")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)  # opening it would block until a writer came
        _refused(["check", "--plan", str(fifo)], "regular file")


@pytest.mark.parametrize(("text", "needle"), [
    ("a: &a [x, x]\nb: [*a, *a]\nc: [*b, *b]\n", "aliases"),
    ("max_num_seqs: 4\nmax_num_seqs: 8\n", "duplicate key"),
    ("a: " + "[" * 100 + "]" * 100 + "\n", "nested deeper"),
    ("max_num_seqs: .nan\n", "finite"),
])
def test_yaml_hazards_are_named(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    _refused(["plan", "--max-num-seqs", "8", "--config", str(path)], needle)


# -- numbers ---------------------------------------------------------------------------------

hostile_numbers = st.one_of(
    st.sampled_from(["²", "١٢", "\uff11\uff12", "۳", "1_000", "1,,2", "1.5", "2.0", "1e3", "0x10",
                     "nan", "inf", "-inf", "Infinity", "1e308", "", " ", "-0", "+5",
                     "9" * 30, "1" + "0" * 5000, "[Infinity]", "[1.5]", "[1,,2]", "[" * 500]),
    st.integers(-(2 ** 70), 2 ** 70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
NUMBER_FLAGS = [
    ["plan", "--max-num-seqs", "8", "--max-num-batched-tokens"],
    ["plan", "--max-num-seqs"],
    ["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes"],
    ["plan", "--max-num-seqs", "8", "--max-cudagraph-capture-size"],
    ["plan", "--max-num-seqs", "8", "--engine", "sglang", "--cuda-graph-max-bs-decode"],
    ["plan", "--max-num-seqs", "8", "--max-num-tokens"],
    ["memory", "--max-num-seqs", "8", "--bytes-per-token"],
    ["memory", "--max-num-seqs", "8", "--bytes-per-token", "1", "--budget-mib"],
    ["sweep", "--max-num-seqs"],
    ["explain", "--max-num-seqs", "8", "--"],
    ["check", "--max-num-seqs", "8", "--capacity"],
]


@FEW
@given(value=hostile_numbers, where=st.sampled_from(NUMBER_FLAGS))
def test_hostile_numbers_exit_cleanly(value: str, where: list[str]) -> None:
    if where[0] == "explain":
        args = ["explain", value, *where[1:3]]
    elif where[-1] == "--capacity":
        args = [*where, f"target.input_ids={value}"]
    else:
        args = [*where, value]
    assert_clean_exit(args, *timed_cli(args))


@pytest.mark.parametrize("value", ["²", "١٢", "1_000", "1.5", "1,,2", "9" * 30, "nan"])
def test_integers_are_ascii_digits_in_range(value: str) -> None:
    _refused(["plan", "--max-num-seqs", value], "--max-num-seqs")
    spec = json.dumps({"method": "eagle", "num_speculative_tokens": value})
    _refused(["plan", "--max-num-seqs", "8", "--speculative-config", spec],
             "num_speculative_tokens")


@pytest.mark.parametrize("sizes", ["[1.5]", "1,,2", "[Infinity]", "[1, 2.0]", "²"])
def test_capture_sizes_are_never_rounded_or_skipped(sizes: str) -> None:
    _refused(["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes", sizes],
             "--cudagraph-capture-sizes")


@pytest.mark.parametrize("budget", ["-5", "nan", "inf", "0"])
def test_a_budget_must_be_a_positive_finite_number(budget: str) -> None:
    for extra in ([], ["--json"], ["--cudagraph-mode", "NONE"]):
        _refused(["memory", "--max-num-seqs", "8", "--bytes-per-token", "1",
                  "--budget-mib", budget, *extra], "--budget-mib")


def test_memory_json_stays_finite() -> None:
    code, out, err = run_cli(["memory", "--max-num-seqs", "8", "--bytes-per-token", "1e18",
                              "--graph-overhead-mib", "1e11", "--json"])
    assert code == 0, err
    assert "Infinity" not in out and "NaN" not in out and json.loads(out)["graph_bytes"] > 0


# -- work bounded by capture sizes, never by a typed number ----------------------------------

BIG = str(10 ** 18)


@pytest.mark.parametrize("args", [
    ["plan", "--max-num-seqs", "8", "--max-num-tokens", BIG],
    ["plan", "--max-num-seqs", "8", "--max-num-batched-tokens", str(10 ** 8),
     "--cudagraph-capture-sizes", "1,100000000"],
    ["plan", "--max-batch-size", str(10 ** 12), "--max-num-tokens", str(10 ** 13)],
    ["plan", "--max-batch-size", str(10 ** 12), "--max-num-tokens", str(10 ** 13),
     "--cuda-graph-config", '{"max_batch_size": 1000000000000, "enable_padding": false}'],
    ["plan", "--max-num-seqs", BIG, "--max-num-batched-tokens", BIG,
     "--num-speculative-tokens", "3", "--method", "dflash"],
    ["explain", BIG, "--max-num-seqs", "8", "--max-num-batched-tokens", BIG],
    # the most capture sizes graphfit plans (16,384, one per batch size): O(sizes), not O(n^2)
    ["plan", "--max-num-seqs", "16384", "--max-num-batched-tokens", "65536", "--engine",
     "sglang", "--disable-cuda-graph-padding", "--cuda-graph-max-bs-decode", "16384"],
    ["check", "--max-num-seqs", BIG, "--max-num-batched-tokens", BIG,
     "--capacity", "target.input_ids=1", "--capacity", "target.positions=1"],
])
def test_huge_values_answer_fast(args: list[str]) -> None:
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    assert code in (0, 1), err


def test_explain_refuses_a_batch_the_scheduler_never_builds() -> None:
    args = ["explain", BIG, "--max-num-seqs", "8"]
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    assert code == 2 and "exceeds max_num_batched_tokens 8,192" in err


@pytest.mark.parametrize(("args", "needle"), [
    (["plan", "--max-num-seqs", str(10 ** 9), "--max-num-batched-tokens", str(10 ** 9),
      "--engine", "sglang", "--cuda-graph-max-bs-decode", str(10 ** 9)], "capture sizes"),
    (["plan", "--max-num-seqs", "8", "--max-num-batched-tokens", BIG,
      "--max-cudagraph-capture-size", BIG], "capture sizes"),
    (["plan", "--max-batch-size", "8", "--cuda-graph-config",
      '{"max_batch_size": 1000000000000, "enable_padding": true}'], "capture sizes"),
    (["sweep", "--max-num-seqs", f"1..{10 ** 12}"], "100,000"),
    (["sweep", "--max-num-seqs", "1..1000", "--num-speculative-tokens", "0..1000",
      "--method", "eagle"], "100,000"),
])
def test_unbounded_work_is_refused_at_a_documented_limit(args: list[str], needle: str) -> None:
    _refused(args, needle)


def test_tiny_capacities_give_a_bounded_summary() -> None:
    caps = [c for key in ("input_ids", "positions", "slot_mapping", "query_start_loc")
            for c in ("--capacity", f"target.{key}=1")]
    args = ["check", "--max-num-seqs", "1024", "--num-speculative-tokens", "3", "--method",
            "dflash", *caps]
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    assert code == 1 and len(out.splitlines()) <= 40 and "more ranges" in out


@pytest.mark.parametrize("value", ["bogus", "0"])
def test_a_value_invalid_for_every_sweep_point_is_bad_input(value: str) -> None:
    flag = "--cudagraph-mode" if value == "bogus" else "--hidden-size"
    _refused(["sweep", "--max-num-seqs", "1..4", flag, value, "--workers", "1"],
             "every config of the sweep is invalid")


@pytest.mark.parametrize(("left", "needle"), [
    ("[1,2,4]", ""), ("engine=foo", "engine"), ("max_num_seqs=--5", "max_num_seqs"),
    ("dtype=[1,2]", "dtype"), ("a=1;a=2", "twice"), ("=3", "key=value"),
])
def test_compare_variants_are_read_strictly(left: str, needle: str) -> None:
    args = ["compare", "--max-num-seqs", "8", left, "vllm"]
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    assert code == (0 if not needle else 2) and needle in err


# -- output ----------------------------------------------------------------------------------

def test_echoed_values_are_cut_and_escaped(tmp_path: Path) -> None:
    code, _, err = run_cli(["plan", "--max-num-seqs", "8", "--dtype", "x" * 100_000])
    assert code == 2 and len(err.strip()) <= 200
    code, _, err = run_cli(["plan", "--max-num-seqs", "8", "--dtype", "a\x1b[31mb\nc"])
    assert code == 2 and "\x1b" not in err and len(err.strip().splitlines()) == 1
    path = tmp_path / "[bold]t:smile:.csv"
    path.write_text("num_tokens\n3\n5\n")
    code, out, err = run_cli(["optimize", "--max-num-seqs", "8", "--max-num-batched-tokens",
                              "64", "--trace", str(path)])
    assert code == 0, err
    assert "[bold]t:smile:.csv" in out


def test_bare_graphfit_prints_help() -> None:
    code, out, err = run_cli([])
    assert code == 0 and "Usage" in out and not err.strip()


# -- plan tampering --------------------------------------------------------------------------

def _doc() -> dict[str, Any]:
    result = plan(EngineConfig(max_num_seqs=5, max_num_batched_tokens=64,
                               num_speculative_tokens=1, spec_method="dflash"))
    doc: dict[str, Any] = json.loads(json.dumps(plan_json(result)))
    return doc


DOC = _doc()


def _containers(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if isinstance(doc, (dict, list)) and doc else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _containers(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:4]):
            out += _containers(value, (*path, i))
    return out


@st.composite
def tampered(draw: st.DrawFn) -> str:
    """The plan document with one entry added, duplicated, removed or reordered."""
    doc = copy.deepcopy(DOC)
    path = draw(st.sampled_from(_containers(doc)))
    node: Any = doc
    for key in path:
        node = node[key]
    how = draw(st.sampled_from(("add", "duplicate", "remove", "reorder", "duplicate_key")))
    if isinstance(node, list):
        i = draw(st.integers(0, len(node) - 1))
        if how == "add":
            node.insert(i, draw(st.sampled_from([0, 1, "x", None, [], {}])))
        elif how == "remove":
            node.pop(i)
        elif how == "reorder" and len(node) > 1 and node[0] != node[-1]:
            node.reverse()
        else:
            node.insert(i, copy.deepcopy(node[i]))
        return json.dumps(doc)
    keys = list(node)
    key = draw(st.sampled_from(keys))
    if how == "add":
        node["extra"] = draw(st.sampled_from([0, 1, "x", None, [], {}]))
    elif how == "remove":
        del node[key]
    elif how == "reorder" and len(keys) > 1:
        items = list(node.items())
        node.clear()
        node.update(reversed(items))
    else:  # a duplicate key: its first copy differs, the second is the real one
        marker = "@@DUP@@"
        node[marker] = None
        text = json.dumps(doc)
        first = json.dumps(draw(st.sampled_from([0, -1, 10 ** 6, "x", None])))
        return text.replace(f'"{marker}": null', f"{json.dumps(key)}: {first}")
    return json.dumps(doc)


@FEW
@given(text=tampered())
def test_tampered_plans_are_refused_with_the_path(tmp_path_factory: pytest.TempPathFactory,
                                                  text: str) -> None:
    path = tmp_path_factory.mktemp("plan") / "p.json"
    path.write_text(text)
    args = ["check", "--plan", str(path)]
    code, out, err, seconds = timed_cli(args)
    assert_clean_exit(args, code, out, err, seconds)
    if text == json.dumps(DOC):
        assert code == 0, err  # the tampering was a no-op
    else:
        assert code == 2 and err.startswith("error: plan"), (text[:200], err)


# -- inline JSON: the same bounded reader as files (issue 26) --------------------------------

DEEP_INLINE = ["[" * 30000 + "]" * 30000, '{"a":' * 20000 + "1" + "}" * 20000,
               "[" * 65 + "]" * 65]
INLINE_JSON_LINES = [
    ["plan", "--max-running-requests", "8", "--cuda-graph-config"],
    ["plan", "--engine", "trtllm", "--max-batch-size", "8", "--cuda-graph-config"],
    ["plan", "--max-num-seqs", "8", "--speculative-config"],
    ["plan", "--max-num-seqs", "8", "--compilation-config"],
    ["plan", "--max-num-seqs", "8", "--cudagraph-capture-sizes"],
    ["plan", "--", "vllm", "serve", "m", "--max-num-seqs", "8", "-cc"],
    ["plan", "--", "vllm", "serve", "m", "--max-num-seqs", "8", "--speculative-config"],
    ["plan", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
     "--max-running-requests", "8", "--cuda-graph-config"],
]


@pytest.mark.parametrize("line", INLINE_JSON_LINES, ids=lambda a: " ".join(a[-2:]))
def test_deep_inline_json_is_one_error_line(line: list[str]) -> None:
    for text in DEEP_INLINE:
        args = [*line, text]
        code, out, err, seconds = timed_cli(args)
        assert_clean_exit(args, code, out, err, seconds)
        assert code == 2, err
        if text.startswith("[") or line[-1] != "--cudagraph-capture-sizes":  # a list or JSON
            assert "nested deeper than 64 levels" in err, err


def test_inline_json_larger_than_a_file_is_refused() -> None:
    from graphfit.inputs.reading import parse_json

    with pytest.raises(ConfigError, match="larger than"):
        parse_json("[" + " " * MAX_FILE_BYTES + "]", "--speculative-config")


# -- pastes: read as bash reads them, in linear time, with a bound (issue 26) ----------------

def test_a_hash_inside_a_word_is_not_a_comment() -> None:
    code, out, err = run_cli(["plan", "--json", "--",
                              "vllm serve foo#bar --max-num-seqs 8"])
    assert code == 0, err
    assert json.loads(out)["config"]["max_num_seqs"] == 8


def test_a_bare_newline_ends_the_pasted_command() -> None:
    code, out, err = run_cli(["plan", "--json", "--",
                              "vllm serve m --max-num-seqs 8\nvllm serve m --max-num-seqs 16"])
    assert code == 0, err
    assert json.loads(out)["config"]["max_num_seqs"] == 8


@pytest.mark.parametrize("one_string", [True, False], ids=["one string", "words"])
def test_a_120000_word_paste_ends_at_once(tmp_path: Path, one_string: bool) -> None:
    """The engines' argparse is quadratic in the options given (120,000 words ran 82 CPU-s):
    the paste is bounded. The timeout only guards against a hang."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    words = ["vllm", "serve", "m", *["--max-num-seqs", "8"] * 60_000]
    script = ("import sys; from graphfit.cli import main; "
              "main(['plan', '--json', '--', *(sys.argv[1:] if len(sys.argv) > 2 "
              "else [open(sys.argv[1]).read()])])")
    (tmp_path / "paste.txt").write_text(" ".join(words))
    args = [str(tmp_path / "paste.txt")] if one_string else words
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT, check=False)
    assert done.returncode == 2, done.stderr[-400:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "MAX_PASTE_WORDS" in lines[0], lines
