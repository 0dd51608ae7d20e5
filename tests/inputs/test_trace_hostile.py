"""Hostile trace files: whatever a trace holds, reading it is a result or one ConfigError that
names the file (and the line, where there is one), never another exception, a hang or memory
that grows with a number written in the file.

The cases are what broke graphfit.inputs.traces before: 5,000-digit and 10**30 integers in
CSV cells, log rows and Prometheus samples, unicode digits, NaN and huge bucket bounds
(`le="1e18"` spread one size at a time), counts that add up past int64, JSON that is not
strict, and line patterns whose regular expressions went quadratic.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig
from graphfit.inputs import traces
from graphfit.inputs.traces import TraceFormat, parse_trace, read_trace, sniff
from graphfit.planner.core.limits import (
    MAX_CAPTURE_SIZES,
    MAX_ERROR_CHARS,
    MAX_INT,
    MAX_SPREAD_TOKENS,
)
from tests.helpers import ROOT, run_cli

NAME = "bad.trace"
FEW = settings(max_examples=150, deadline=None)
HUGE = "9" * 5000
BIG = str(10**30)
PREFIX = "(APIServer pid=7) INFO 06-01 12:00:10 [cuda_graph.py:123] "
HEADER = (PREFIX + "| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |\n"
          + PREFIX + "|---|---|---|---|---|\n")
SETTINGS = PREFIX + "**CUDAGraph Config Settings:**\n" + PREFIX + "- Mode: FULL\n"


def _log(*rows: str, sizes: str = "1, 2, 4") -> str:
    return (SETTINGS + PREFIX + f"- Capture sizes: [{sizes}]\n" + HEADER
            + "".join(PREFIX + f"| {r} |\n" for r in rows))


def _prom(*buckets: tuple[str, str], extra: str = "") -> str:
    head = "# TYPE vllm:iteration_tokens_total histogram\n"
    return head + "".join(f'vllm:iteration_tokens_total_bucket{{engine="0",le="{le}"}} {v}\n'
                          for le, v in buckets) + extra


def _refused(text: str, *needles: str) -> str:
    """The ConfigError reading `text` as file NAME raises; it names the file and `needles`."""
    start = time.perf_counter()
    with pytest.raises(ConfigError) as info:
        parse_trace(text, NAME)
    assert time.perf_counter() - start < 2.0
    message = str(info.value)
    assert message.startswith(f"trace {NAME}"), message
    for needle in needles:
        assert needle in message, (needle, message)
    assert len(message) < 400, message  # user values are excerpts, never echoed whole
    return message


# -- anything at all -------------------------------------------------------------------------

def _only_config_errors(text: str) -> None:
    start = time.perf_counter()
    try:
        reading = parse_trace(text, NAME)
    except ConfigError as exc:
        assert str(exc).startswith(f"trace {NAME}"), str(exc)
    else:
        assert reading.trace.total_weight > 0
        try:
            reading.for_config(EngineConfig(max_num_seqs=8))
        except ConfigError as exc:
            assert NAME in str(exc)
    assert time.perf_counter() - start < 5.0


@FEW
@given(st.text(max_size=200))
def test_random_text_is_a_trace_or_a_config_error(text: str) -> None:
    _only_config_errors(text)


PIECES = st.sampled_from([
    "\n", "\r\n", ",", " ", "|", "1", "3", "0", "-", ".", "e", "[", "]", "{", "}", '"', ":",
    "num_tokens", "count", "batch_size", "#", "FULL", "NONE", PREFIX, HEADER, "|---|---|",
    "- Mode: FULL", "- Capture sizes: [", 'vllm:iteration_tokens_total_bucket{le="', '"} ',
    "+Inf", "NaN", "1e18", "1e30", "vllm:iteration_tokens_total_sum ", "# TYPE x histogram ",
    '"distribution"', '"num_tokens"', HUGE, BIG, "\u0661\u0662", "1_0", "²", "\x00", "\x1b[31m",
])


@FEW
@given(st.lists(PIECES, max_size=40).map("".join))
def test_trace_shaped_junk_is_a_trace_or_a_config_error(text: str) -> None:
    _only_config_errors(text)


@settings(max_examples=15, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_in_a_file_are_a_trace_or_a_config_error(
        tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("bytes") / NAME
    path.write_bytes(data)
    try:
        read_trace(path)
    except ConfigError as exc:
        assert NAME in str(exc)


# -- CSV -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "needles"), [
    (f"num_tokens\n{HUGE}\n", ("line 2", "not a positive integer")),
    (f"num_tokens\n{BIG}\n", ("line 2", f"at most {MAX_INT}")),
    (f"{BIG}\n", ("line 1", f"at most {MAX_INT}")),  # headerless: a number of any size
    (f"num_tokens,count\n4,{HUGE}\n", ("line 2", "out of range")),
    (f"num_tokens,count\n4,{BIG}\n", ("line 2", "out of range")),
    ("num_tokens,count\n4,1e400\n", ("line 2", "not a number")),
    ("num_tokens\n\u0661\u0662\n", ("line 2", "not a positive integer")),
    ("num_tokens\n1_000\n", ("line 2", "not a positive integer")),
    (f"num_tokens,count\n4,{MAX_INT}\n4,1\n", ("line 3", "add up")),
    ('num_tokens\n"' + "1" * 200_000 + '"\n', ("malformed CSV",)),
])
def test_hostile_csv(text: str, needles: tuple[str, ...]) -> None:
    _refused(text, *needles)


# -- vLLM log --------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "needles"), [
    (_log(f"3 | 4 | 1 | FULL | {HUGE}"), ("line 6", "count", "out of range")),
    (_log(f"{BIG} | {BIG} | 0 | NONE | 1"), ("line 6", "unpadded tokens", f"{MAX_INT}")),
    (_log(f"3 | {BIG} | 1 | FULL | 1"), ("line 6", "padded tokens")),
    (_log("3 | 4 | -1 | FULL | 1"), ("line 6", "inconsistent")),
    (_log("\u0663 | 4 | 1 | FULL | 1"), ("line 6", "not a CUDAGraph Stats row")),
    (_log(f"3 | 4 | 1 | FULL | {MAX_INT}", "3 | 4 | 1 | FULL | 1"), ("line 7", "add up")),
    (_log("0 | 0 | 0 | NONE | 1", f"0 | 0 | 0 | NONE | {MAX_INT}"), ("line 7", "add up")),
    (_log("3 | 4 | 1 | FULL | 1", sizes=f"1, {HUGE}"), ("line 3", "capture size")),
    (_log("3 | 4 | 1 | FULL | 1", sizes="1, ²"), ("line 3", "not integers")),
    (_log("3 | 4 | 1 | FULL | 1", sizes=", ".join(["1"] * (MAX_CAPTURE_SIZES + 1))),
     ("line 3", f"{MAX_CAPTURE_SIZES:,} capture sizes")),
])
def test_hostile_vllm_log(text: str, needles: tuple[str, ...]) -> None:
    _refused(text, *needles)


def test_log_line_patterns_stay_linear() -> None:
    """A line of 200,000 unclosed size lists, or of mode marks, reads in linear time."""
    start = time.perf_counter()
    for line in ("- Capture sizes: [" * 200_000, "- Mode: " * 200_000, "|" * 1_000_000,
                 "| Unpadded Tokens " * 100_000):
        _refused(SETTINGS + PREFIX + line + "\n", "without CUDAGraph Stats tables")
    assert time.perf_counter() - start < 5.0


def test_many_logged_settings_give_bounded_warnings() -> None:
    text = "".join(_log("3 | 4 | 1 | FULL | 1", sizes=f"1, 2, {n}") for n in range(4, 2004))
    reading = parse_trace(text, NAME)
    assert len(reading.logged) == 2000 and reading.trace.total_weight == 2000
    _, warnings = reading.for_config(EngineConfig(max_num_seqs=8))
    assert len(warnings) < 20 and all(len(w) < 1000 for w in warnings)
    assert any("1,992 more settings headers" in w for w in warnings)


# -- Prometheus ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "needles"), [
    (_prom(("1.0", HUGE), ("+Inf", "3.0")), ("line 2", "out of range")),
    (_prom((HUGE, "3.0"), ("+Inf", "3.0")), ("line 2", "le", "out of range")),
    (_prom(("1e30", "3.0"), ("+Inf", "3.0")), ("line 2", "le", "out of range")),
    (_prom(("1.0", BIG), ("+Inf", BIG)), ("line 2", "out of range")),
    (_prom(("NaN", "3.0"), ("+Inf", "3.0")), ("line 2", "le is NaN")),
    (_prom(("1.0", "NaN"), ("+Inf", "3.0")), ("line 2", "is NaN")),
    (_prom(("1.0", "+Inf"), ("+Inf", "+Inf")), ("line 2", "not a number")),
    (_prom(("\u0661", "3.0"), ("+Inf", "3.0")), ("line 2", "not a number")),
    (_prom(("1.0", "-3.0"), ("+Inf", "3.0")), ("line 2", "negative")),
    (_prom(("1.0", "5.0"), ("4.0", "2.0"), ("+Inf", "5.0")), ("not cumulative",)),
    (_prom(("1.0", "1.0"), ("1", "1.0"), ("+Inf", "5.0")), ("line 3", "second le")),
    (_prom(("1.0", "0.0"), ("+Inf", "1e-300"),
           extra='vllm:iteration_tokens_total_sum{engine="0"} 1e18\n'),
     ("_sum", "inconsistent")),
    ('vllm:iteration_tokens_total_bucket{le="1",' + "x" * 10_000 + "} 3\n",
     ("line 1", "malformed labels")),
    ('vllm:iteration_tokens_total_bucket{engine="0",engine="1",le="+Inf"} 3\n',
     ("line 1", "label 'engine' is given twice")),
    ('vllm:iteration_tokens_total_bucket{le="1.0",le="+Inf"} 3\n',
     ("line 1", "label 'le' is given twice")),
])
def test_hostile_prometheus(text: str, needles: tuple[str, ...]) -> None:
    _refused(text, *needles)


def test_a_bucket_to_1e18_is_spread_only_where_it_matters() -> None:
    """`le="1e18"` once looped over 10^18 sizes: now the part above MAX_SPREAD_TOKENS keeps
    its count and mean at one or two points, and reading it takes well under a second."""
    text = _prom(("1.0", "2.0"), ("1e18", "6.0"), ("+Inf", "6.0"))
    start = time.perf_counter()
    reading = parse_trace(text, NAME)
    trace, _ = reading.for_config(EngineConfig(max_num_seqs=256, max_num_batched_tokens=2048))
    assert time.perf_counter() - start < 1.0
    assert len(reading.trace.sizes) <= MAX_SPREAD_TOKENS + 2
    assert reading.trace.total_weight == pytest.approx(6)
    # 4 steps spread evenly over 2..10^18: their mean is (2 + 10^18) / 2
    assert reading.trace.mean == pytest.approx((2 * 1 + 4 * (2 + 10**18) / 2) / 6)
    assert any(f"above {MAX_SPREAD_TOKENS:,} tokens" in w for w in reading.warnings)
    assert trace.max_size == 2048 and trace.total_weight == pytest.approx(6)


def test_buckets_below_the_spread_limit_are_spread_exactly() -> None:
    high = MAX_SPREAD_TOKENS + 10_000
    reading = parse_trace(_prom(("8.0", "0.0"), (f"{high}.0", "6.0"), ("+Inf", "6.0")), NAME)
    weights = dict(zip(reading.trace.sizes, reading.trace.weights))
    share = 6 / (high - 8)
    assert weights[9] == weights[MAX_SPREAD_TOKENS] == share
    assert reading.trace.total_weight == pytest.approx(6)
    assert reading.trace.mean == pytest.approx((9 + high) / 2)
    assert max(reading.trace.sizes) < high and len(reading.trace.sizes) <= MAX_SPREAD_TOKENS
    plain = parse_trace(_prom(("8.0", "0.0"), ("16384.0", "6.0"), ("+Inf", "6.0")), NAME)
    assert len(plain.trace.sizes) == 16384 - 8
    assert not any("above" in w for w in plain.warnings)


# -- JSON ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "needles"), [
    ('{"distribution": {"4": 1, "4": 2}}', ("duplicate key",)),
    ('{"num_tokens": [1], "num_tokens": [2]}', ("duplicate key",)),
    ("[" * 5000 + "]" * 5000, ("nested deeper",)),
    ('{"distribution": ' * 100 + "{}" + "}" * 100, ("nested deeper",)),
    (f"[1, {HUGE}]", ("out of range",)),
    (f"[1, {BIG}]", ("out of range",)),
    ("[1, NaN]", ("NaN",)),
    ('{"distribution": {"4": Infinity}}', ("Infinity",)),
    ('{"distribution": {"4": 1e400}}', ("finite",)),
    ('{"distribution": {"\u0661": 1}}', ("not an integer",)),
    (f'{{"distribution": {{"{HUGE}": 1}}}}', ("out of range",)),
    (f'{{"distribution": [[4, {MAX_INT}], [4, 1]]}}', ("add up",)),
    ('{"distribution": {"4": 1}, "unit": ["tokens"]}', ("unit must be",)),
    ('{"schema": ' + '"x' * 1000 + '", "num_tokens": [1]}', ("malformed JSON",)),
])
def test_hostile_json(text: str, needles: tuple[str, ...]) -> None:
    message = _refused(text, *needles)
    assert sniff(text) is TraceFormat.JSON, message


def test_json_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = traces.parse_json

    def counted(text: str, origin: str = "") -> object:
        calls.append(len(text))
        return real(text, origin)

    monkeypatch.setattr(traces, "parse_json", counted)
    reading = parse_trace("[" + "3, " * 100_000 + "3]", NAME)
    assert reading.trace.total_weight == 100_001 and len(calls) == 1


def test_a_log_whose_lines_start_like_json_is_still_a_log() -> None:
    text = "[pod-0] starting\n" + _log("3 | 4 | 1 | FULL | 2")
    assert sniff(text) is TraceFormat.VLLM_LOG
    assert parse_trace(text, NAME).trace.total_weight == 2


# -- lines read a piece at a time ------------------------------------------------------------

def test_reading_in_pieces_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines and CSV rows are read a piece of the text at a time: pieces of a few characters
    give what one piece does (CR LF endings, quoted cells over two lines, comments)."""
    texts = [
        _log("3 | 4 | 1 | FULL | 5", "4 | 4 | 0 | FULL | 2").replace("\n", "\r\n") * 3,
        _prom(("1.0", "2.0"), ("8.0", "9.0"), ("+Inf", "9.0"),
              extra="vllm:iteration_tokens_total_sum 40\n"),
        "# steps\nstep,num_tokens\n1,3\n2,5\r\n3,\"7\"\n\n4,3\n",
        'num_tokens,notes\n3,"two\nlines"\n5,x\n',
        (ROOT / "examples" / "traces" / "vllm_metrics_default.prom").read_text(),
    ]
    whole = [parse_trace(t, NAME) for t in texts]
    monkeypatch.setattr(traces, "_CHUNK_CHARS", 7)
    for text, expected in zip(texts, whole):
        got = parse_trace(text, NAME)
        assert (got.trace, got.warnings, got.format) == (
            expected.trace, expected.warnings, expected.format)
    with pytest.raises(ConfigError, match="line 7:"):
        parse_trace(_log("3 | 4 | 1 | FULL | 1", "3 | 4 | 1 | FULL | x"), NAME)


# -- the CLI ---------------------------------------------------------------------------------

BAD_FILES = {
    "csv.csv": f"num_tokens\n{HUGE}\n",
    "big.csv": f"num_tokens,count\n3,{BIG}\n",
    "log.log": _log(f"3 | 4 | 1 | FULL | {HUGE}"),
    "nan.prom": _prom(("NaN", "1.0"), ("+Inf", "1.0")),
    "dup.json": '{"distribution": {"4": 1, "4": 2}}',
    "deep.json": "[" * 3000 + "]" * 3000,
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_optimize_with_a_hostile_trace_is_one_error_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(BAD_FILES[name])
    code, out, err = run_cli(["optimize", "--max-num-seqs", "8", "--trace", str(path)])
    assert code == 2, (out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: trace "), err
    assert name in lines[0] and len(lines[0]) <= MAX_ERROR_CHARS


def test_optimize_on_a_bucket_to_1e18_answers_at_once(tmp_path: Path) -> None:
    path = tmp_path / "wide.prom"
    path.write_text(_prom(("1.0", "2.0"), ("8.0", "5.0"), ("1e18", "9.0"), ("+Inf", "9.0")))
    start = time.perf_counter()
    code, out, err = run_cli(["optimize", "--max-num-seqs", "8", "--max-num-batched-tokens",
                              "64", "--trace", str(path)])
    assert code == 0, err
    assert time.perf_counter() - start < 5.0
    assert "wide.prom" in out
