"""Trace loading: every format reduces to the same distribution; bad input is a ConfigError."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.inputs.traces import load_trace, parse_csv_trace, parse_json_trace
from graphfit.planner.tuning.trace import Trace
from tests.helpers import ROOT, load_module

TRACES = ROOT / "examples" / "traces"


def _generator() -> ModuleType:
    return load_module(TRACES / "generate.py", "trace_generate")


samples_st = st.lists(st.integers(1, 300), min_size=1, max_size=80)


def _as_dict(trace: Trace) -> dict[int, float]:
    return dict(zip(trace.sizes, trace.weights))


@given(samples_st)
def test_every_format_gives_the_same_distribution(samples: list[int]) -> None:
    expected = dict(Counter(samples))
    counts = Counter(samples)
    formats = [
        parse_csv_trace("\n".join(map(str, samples))),
        parse_csv_trace("step,num_tokens,num_reqs\n"
                        + "\n".join(f"{i},{n},1" for i, n in enumerate(samples))),
        parse_csv_trace("\n".join(f"{n},{c}" for n, c in counts.items())),
        parse_csv_trace("num_tokens,count\n" + "\n".join(f"{n},{c}" for n, c in counts.items())),
        parse_json_trace(json.dumps(samples)),
        parse_json_trace(json.dumps({"schema": "graphfit.trace/1", "num_tokens": samples})),
        parse_json_trace(json.dumps({"distribution": {str(n): c for n, c in counts.items()}})),
        parse_json_trace(json.dumps({"distribution": [[n, c] for n, c in counts.items()]})),
        parse_json_trace(json.dumps([{"num_tokens": n, "count": c} for n, c in counts.items()])),
    ]
    for trace in formats:
        assert _as_dict(trace) == expected
        assert list(trace.sizes) == sorted(expected)
        assert trace.total_weight == len(samples)
        assert trace.mean == pytest.approx(sum(samples) / len(samples))


@given(samples_st, st.integers(0, 320))
def test_weight_above_counts_the_eager_steps(samples: list[int], limit: int) -> None:
    trace = Trace.from_samples(samples)
    assert trace.weight_above(limit) == sum(1 for n in samples if n > limit)


def test_probability_weights_and_comments() -> None:
    text = "# a comment\n\nnum_tokens,weight\n4,0.25\n8,0.75\n4,0.0\n"
    trace = parse_csv_trace(text)
    assert _as_dict(trace) == {4: 0.25, 8: 0.75}
    assert _as_dict(parse_json_trace('{"distribution": {"3": 0.5, "9": 0}}')) == {3: 0.5}


@pytest.mark.parametrize(("text", "message"), [
    ("", "no rows"),
    ("num_tokens\n", "header but no rows"),
    ("size,count\n1,2\n", "no num_tokens column"),
    ("1,2,3\n", "without a header"),
    ("num_tokens\n5\nfive\n", "line 3"),
    ("num_tokens\n0\n", "positive integer"),
    ("num_tokens\n-4\n", "positive integer"),
    ("num_tokens\n2.5\n", "not a positive integer"),
    ("num_tokens,count\n4,-1\n", ">= 0"),
    ("num_tokens,count\n4,nan\n", "finite"),
    ("num_tokens,count\n4,lots\n", "not a number"),
    ("num_tokens,count,weight\n4,1,1\n", "keep one"),
    ("step,num_tokens\n1\n", "expected 2 columns"),
    ("num_tokens,count\n4,0\n", "positive weight"),
])
def test_bad_csv_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_csv_trace(text, "t.csv")


@pytest.mark.parametrize(("doc", "message"), [
    ("[1, 2", "malformed JSON"),
    ("[]", "no batch sizes"),
    ("5", "list or object"),
    ('{"schema": "other/1", "num_tokens": [1]}', "schema"),
    ('{"num_tokens": [1], "distribution": {"1": 1}}', "exactly one"),
    ('{"distrib": {"1": 1}}', "unknown key"),
    ('{"num_tokens": 5}', "list of integers"),
    ('{"num_tokens": [1, true]}', "positive integer"),
    ('[1, 2.5]', "not \\[n, weight\\]"),
    ('{"distribution": {"x": 1}}', "not an integer"),
    ('{"distribution": {"4": -1}}', ">= 0"),
    ('{"distribution": {"4": "1"}}', "must be a number"),
    ('{"distribution": 7}', "object or a list"),
    ('[{"num_tokens": 4, "count": 1, "extra": 2}]', "unexpected keys"),
    ('[[0, 1]]', "positive integer"),
])
def test_bad_json_names_the_problem(doc: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_json_trace(doc, "t.json")


def test_trace_validates_its_fields() -> None:
    with pytest.raises(ConfigError, match="ascending"):
        Trace((4, 2), (1, 1))
    with pytest.raises(ConfigError, match="weights"):
        Trace((2,), (1, 1))
    with pytest.raises(ConfigError, match="> 0"):
        Trace((2,), (0,))


def test_load_trace_by_suffix_and_sniffing(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("num_tokens\n3\n3\n")
    (tmp_path / "a.json").write_text("[3, 3]")
    (tmp_path / "a.log").write_text("[3, 3]")
    (tmp_path / "b.log").write_text("3\n3\n")
    for name in ("a.csv", "a.json", "a.log", "b.log"):
        trace = load_trace(tmp_path / name)
        assert _as_dict(trace) == {3: 2} and trace.source == name
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(ConfigError, match="UTF-16"):
        load_trace(tmp_path / "bin.csv")
    with pytest.raises(ConfigError, match="No such file"):
        load_trace(tmp_path / "missing.csv")


def test_committed_traces_regenerate_byte_for_byte(tmp_path: Path) -> None:
    """The example traces are what generate.py writes with its fixed seeds."""
    generator = _generator()
    for path in generator.write_all(tmp_path):
        assert path.read_bytes() == (TRACES / path.name).read_bytes(), path.name
        trace = load_trace(TRACES / path.name)
        assert trace.total_weight == next(w.steps for w in generator.WORKLOADS
                                          if w.file_name == path.name)
