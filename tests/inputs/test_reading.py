"""graphfit.inputs.reading: the one layer every file and structured value is read through."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.inputs.reading import (
    decode,
    load_data,
    parse_float,
    parse_int,
    parse_json,
    parse_yaml,
    read_bytes,
)
from graphfit.planner.core.errors import excerpt
from graphfit.planner.core.limits import MAX_DEPTH, MAX_INT

json_data = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_INT, MAX_INT) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e18, max_value=1e18),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=20)


@settings(max_examples=50, deadline=None)
@given(json_data)
def test_valid_json_reads_back_unchanged(data: object) -> None:
    assert parse_json(json.dumps(data)) == data


@pytest.mark.parametrize(("text", "needle"), [
    ('{"a": 1, "a": 2}', "duplicate key 'a'"), ("[NaN]", "NaN"), ("[-Infinity]", "Infinity"),
    ("[1e999]", "finite"), ("[" + "9" * 5000 + "]", "out of range"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper"),
    ("[" * 100_000, "nested deeper"), ("{", "malformed JSON"),
])
def test_json_hazards_are_named(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse_json(text, "x")


@pytest.mark.parametrize(("text", "needle"), [
    ("a: &x 1\nb: *x\n", "aliases"), ("a: 1\na: 2\n", "duplicate key"),
    ("a: " + "[" * 70 + "]" * 70, "nested deeper"), ("a: .inf\n", "finite"),
    ("a: " + "9" * 5000 + "\n", "out of range"), ("a: !!python/name:os.system\n", "malformed"),
    ("a: [1\n", "malformed YAML"),
])
def test_yaml_hazards_are_named(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse_yaml(text, "y")


def test_yaml_alias_bomb_is_refused_at_once() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    with pytest.raises(ConfigError, match="aliases"):
        parse_yaml("\n".join(lines))


digits = st.characters(categories=["Nd"]).filter(lambda c: not "0" <= c <= "9")


@settings(max_examples=50, deadline=None)
@given(st.integers(-MAX_INT, MAX_INT), st.text(digits, min_size=1, max_size=3))
def test_integers_are_ascii_digits_in_range(n: int, other: str) -> None:
    assert parse_int("n", f" {n} ", minimum=-MAX_INT) == n
    with pytest.raises(ConfigError):
        parse_int("n", other)  # int() would take these
    with pytest.raises(ConfigError):
        parse_int("n", f"{n}{other}", minimum=-MAX_INT)


@pytest.mark.parametrize("text", ["1.5", "1_000", "1,,2", "", "0x10", "9" * 20, "-1", "²"])
def test_integer_texts_that_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_int("n", text)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e308", "Infinity", "0x1p3", "1,5"])
def test_float_texts_that_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_float("f", text)


def test_text_encodings() -> None:
    assert decode(b"\xef\xbb\xbfa: 1", "f") == "a: 1"
    for data, needle in ((b"\xff\xfea\x00", "UTF-16"), ("a: 1\n".encode("utf-16-le"), "UTF-16"),
                         (b"\x00\x01\x02", "binary"), (b"a\xffb", "not UTF-8")):
        with pytest.raises(ConfigError, match=needle):
            decode(data, "f")


def test_files(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"a": [1, 2]}')
    assert load_data(path) == {"a": [1, 2]}
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(1025)
    with pytest.raises(ConfigError, match="larger than 1 KiB"):
        read_bytes(big, limit=1024)
    with pytest.raises(ConfigError, match="directory"):
        read_bytes(tmp_path)
    with pytest.raises(ConfigError, match="No such file"):
        read_bytes(tmp_path / "missing")
    if os.path.exists("/dev/zero"):
        with pytest.raises(ConfigError, match="regular file"):
            read_bytes("/dev/zero")


def test_excerpts_stay_short() -> None:
    for value in ("x" * 100_000, list(range(10_000)), {"k": "v" * 1000}, 10 ** 300):
        assert len(excerpt(value)) <= 48
    deep: list[object] = []
    for _ in range(10_000):
        deep = [deep]
    assert len(excerpt(deep)) <= 48
