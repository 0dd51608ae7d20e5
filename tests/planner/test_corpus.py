"""The bug corpus: every case file in tests/corpus/ replays its bug and graphfit's fix holds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from graphfit import ConfigError
from graphfit.inputs.cases import case_files, load_case
from graphfit.planner.analysis.corpus import Case, check_case
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "corpus"
FILES = case_files(CORPUS)


def test_corpus_covers_the_known_bugs() -> None:
    cases = [load_case(p) for p in FILES]
    refs = " ".join(c.reference for c in cases)
    assert len(cases) >= 9 and len({c.id for c in cases}) == len(cases)
    for number in ("50065", "50488", "54933", "57355", "28207", "46324", "5076", "10892",
                   "24401"):
        assert number in refs, number
    # vLLM 0.33 reproduces neither #32591 (the scheduler keeps the draft model's extra slot
    # inside T) nor #53970 (DFlash's active sequences are capped at T // q): no case claims them
    assert "32591" not in refs and "53970" not in refs
    for case in cases:
        if case.id.startswith("vllm-"):
            assert case.version.startswith("vLLM"), case.id


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_case_holds(path: Path) -> None:
    case = load_case(path)
    assert check_case(case) == [], case.title


def _tamper(case: Case) -> Case:
    """The same case with every expected counterexample shifted: it must no longer hold."""
    expect = dict(case.expect)
    for kind in ("violations", "fill_violations"):
        if kind in expect:
            expect[kind] = [{**e, "first": e["first"] + 1} for e in expect[kind]]
    if "counterexamples" in expect:
        expect["counterexamples"] = [*expect["counterexamples"], 10 ** 6]
    return dataclasses.replace(case, expect=expect)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_wrong_expectations_are_detected(path: Path) -> None:
    assert check_case(_tamper(load_case(path)))


def test_a_sizing_that_is_not_buggy_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "fine.yaml"
    path.write_text("id: x\ntitle: t\nreference: none\nconfig: {max_num_seqs: 33}\n"
                    "buggy: {capacities: {target.input_ids: T}}\nexpect: {}\n")
    assert "buggy: the bug's sizing/ladder produced no counterexample" in \
        check_case(load_case(path))


@pytest.mark.parametrize(("text", "needle"), [
    ("id: x\ntitle: t\nreference: r\nconfig: {max_num_seqs: 4}\nexpect: {}\n", "buggy missing"),
    ("id: x\ntitle: t\nreference: r\nconfig: {max_num_seqs: 4}\nbuggy: {oops: 1}\n"
     "expect: {}\n", "buggy needs capacities, fills or property"),
    ("id: x\ntitle: t\nreference: r\nconfig: {}\nbuggy: {fills: {}}\nexpect: {}\nextra: 1\n",
     "unknown key(s) extra"),
    ("[1]\n", "a case is a mapping"),
])
def test_malformed_cases_are_rejected(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_case(path)
    assert needle in str(info.value)
