"""`graphfit plan --json > p.json; graphfit check --plan p.json`: the round trip holds, and a
tampered plan is rejected.

Exit codes, kept consistent with `check --capacity`:
- 1 (violations): the file is a well-formed plan, but some capacity is too small; the output
  names the buffer and the batches that would go short;
- 2 (bad input): the file is not a plan this config produces (malformed JSON, wrong schema,
  a ladder that does not follow from its config, unknown/missing buffers, non-integer
  capacities).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.planner.document import plan_document
from tests.helpers import run_cli

CONFIGS = [
    ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"],
    ["--max-num-seqs", "7", "--num-speculative-tokens", "1", "--method", "draft_model",
     "--max-num-batched-tokens", "512"],
    ["--max-num-seqs", "16", "--max-num-batched-tokens", "256", "--multimodal"],
]


def _small_plan() -> dict[str, Any]:
    """One small DFlash plan shared by the hypothesis examples (built once, in-process)."""
    result = plan(EngineConfig(max_num_seqs=9, max_num_batched_tokens=128,
                               num_speculative_tokens=2, spec_method="dflash"))
    return plan_document(result, result.verify())


PLAN_DOC = _small_plan()


def plan_json(flags: list[str]) -> dict[str, Any]:
    code, out, err = run_cli(["plan", "--json", *flags])
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def check(path: Path, *extra: str) -> tuple[int, str, str]:
    """`graphfit check --plan FILE`: the file carries its own config."""
    return run_cli(["check", "--plan", str(path), *extra])


def write(tmp: Path, doc: dict[str, Any] | str) -> Path:
    path = tmp / "p.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def resize(buf: dict[str, Any], capacity: int) -> None:
    """Tamper consistently: capacity, the scaled dim of shape, and bytes all change together."""
    row_bytes = buf["bytes"] // buf["capacity"]
    axis_dim = buf["shape"].index(buf["capacity"])
    buf["shape"][axis_dim] = capacity
    buf["capacity"], buf["bytes"] = capacity, row_bytes * capacity


def buffers(doc: dict[str, Any]) -> list[tuple[str, int]]:
    return [(name, i) for name, comp in doc["components"].items()
            for i in range(len(comp["buffers"]))]


@pytest.mark.parametrize("flags", CONFIGS)
def test_round_trip_is_safe(tmp_path: Path, flags: list[str]) -> None:
    doc = plan_json(flags)
    code, out, err = check(write(tmp_path, doc), "--json")
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["ok"] and verdict["violations"] == 0 and verdict["checked"] > 0


def test_plan_file_and_config_flags_do_not_mix(tmp_path: Path) -> None:
    path = write(tmp_path, PLAN_DOC)
    code, _, err = run_cli(["check", "--plan", str(path), "--max-num-seqs", "9"])
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize("flags", CONFIGS)
def test_every_capacity_is_tight_and_a_short_one_is_rejected(tmp_path: Path,
                                                             flags: list[str]) -> None:
    """graphfit's capacities are exactly the reachable peak: one row less is a violation."""
    doc = plan_json(flags)
    for component, i in buffers(doc):
        tampered = copy.deepcopy(doc)
        buf = tampered["components"][component]["buffers"][i]
        resize(buf, buf["capacity"] - 1)
        code, out, err = check(write(tmp_path, tampered), "--json")
        assert code == 1, (component, buf["name"], err)
        verdict = json.loads(out)
        assert not verdict["ok"]
        assert {r["buffer"] for r in verdict["ranges"]} == {f"{component}.{buf['name']}"}
        assert all(r["capacity"] == buf["capacity"] < r["needed"] for r in verdict["ranges"])


@given(st.data())
def test_tampered_capacities_fail_exactly_when_too_small(tmp_path_factory: pytest.TempPathFactory,
                                                         data: st.DataObject) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    chosen = data.draw(st.lists(st.sampled_from(buffers(PLAN_DOC)), min_size=1, max_size=4,
                                unique=True))
    short = False
    for component, i in chosen:
        buf = tampered["components"][component]["buffers"][i]
        delta = data.draw(st.integers(-buf["capacity"], 64))
        resize(buf, buf["capacity"] + delta)
        short |= delta < 0
    path = write(tmp_path_factory.mktemp("plan"), tampered)
    code, out, err = check(path)
    assert code == (1 if short else 0), err
    assert ("UNSAFE" in out) == short and "Traceback" not in err


def _mutations() -> list[tuple[str, Any]]:
    def ladder(d: dict[str, Any]) -> None:
        d["ladder"]["capture_sizes"] = d["ladder"]["capture_sizes"][:-1]

    def schema(d: dict[str, Any]) -> None:
        d["schema"] = "graphfit.plan/0"

    def unknown_buffer(d: dict[str, Any]) -> None:
        d["components"]["target"]["buffers"][0]["name"] = "no_such_buffer"

    def missing_buffer(d: dict[str, Any]) -> None:
        d["components"]["drafter"]["buffers"].pop()

    def unknown_component(d: dict[str, Any]) -> None:
        d["components"]["other"] = d["components"]["target"]

    def negative(d: dict[str, Any]) -> None:
        d["components"]["target"]["buffers"][0]["capacity"] = -1

    def boolean(d: dict[str, Any]) -> None:
        d["components"]["target"]["buffers"][0]["capacity"] = True

    def text(d: dict[str, Any]) -> None:
        d["components"]["target"]["buffers"][0]["capacity"] = "136"

    def config(d: dict[str, Any]) -> None:
        d["config"]["max_num_seqs"] = 0

    def config_key(d: dict[str, Any]) -> None:
        d["config"]["surprise"] = 1

    def components(d: dict[str, Any]) -> None:
        d["components"] = []

    return [(f.__name__, f) for f in (ladder, schema, unknown_buffer, missing_buffer,
                                      unknown_component, negative, boolean, text, config,
                                      config_key, components)]


@pytest.mark.parametrize(("name", "mutate"), _mutations())
def test_a_document_that_is_not_this_plan_is_bad_input(tmp_path: Path, name: str,
                                                       mutate: Any) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    mutate(tampered)
    code, out, err = check(write(tmp_path, tampered))
    assert code == 2, (name, out)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '"plan"', "\x00\x01"])
def test_malformed_files_are_bad_input(tmp_path: Path, text: str) -> None:
    code, _, err = check(write(tmp_path, text))
    assert code == 2 and err.startswith("error: plan") and "Traceback" not in err


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    code, _, err = check(tmp_path / "nope.json")
    assert code == 2 and err.startswith("error: ") and "nope.json" in err


def test_shape_that_disagrees_with_capacity_is_bad_input(tmp_path: Path) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    buf = tampered["components"]["drafter"]["buffers"][1]
    buf["shape"][0] -= 4
    code, _, err = check(write(tmp_path, tampered))
    assert code == 2 and "shape" in err


def test_unknown_config_key_with_a_newline_is_one_error_line(tmp_path: Path) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    tampered["config"]["bad\nkey"] = 1
    code, _, err = check(write(tmp_path, tampered))
    assert code == 2 and "unknown key" in err and len(err.strip().splitlines()) == 1
