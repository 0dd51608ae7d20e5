"""`graphfit plan --json > p.json; graphfit check --plan p.json`: the round trip holds, and a
file that is not exactly what graphfit writes for its config is refused.

Exit codes:
- 0: the file is exactly the document `graphfit plan --json` writes for its config (re-planned
  and regenerated: same entries, same order, same types, same values), and it verifies;
- 1 (violations): only through `--capacity`, which audits other sizes against the file's
  config (`check --plan p.json --capacity drafter.positions=132`);
- 2 (bad input): anything else -- malformed JSON, duplicate keys, NaN, a wrong schema, an
  invalid config, and any difference from the regenerated document (a capacity, an offset, a
  fill, a ladder, a total; an entry added, removed, duplicated or reordered), named by the
  first path that differs, on one `error:` line.
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
from graphfit.cli.planning import plan_json
from tests.helpers import run_cli

CONFIGS = [
    ["--max-num-seqs", "33", "--num-speculative-tokens", "3", "--method", "dflash"],
    ["--max-num-seqs", "7", "--num-speculative-tokens", "1", "--method", "draft_model",
     "--max-num-batched-tokens", "512"],
    ["--max-num-seqs", "16", "--max-num-batched-tokens", "256", "--multimodal"],
]


def _small_plan() -> dict[str, Any]:
    """One small DFlash plan, as `plan --json` writes it (built once, in-process)."""
    result = plan(EngineConfig(max_num_seqs=9, max_num_batched_tokens=128,
                               num_speculative_tokens=2, spec_method="dflash"))
    doc: dict[str, Any] = json.loads(json.dumps(plan_json(result)))
    return doc


PLAN_DOC = _small_plan()


def plan_file_json(flags: list[str]) -> dict[str, Any]:
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
    """The buffers whose rows grow with the batch (a fixed-size one has nothing to audit)."""
    return [(name, i) for name, comp in doc["components"].items()
            for i, buf in enumerate(comp["buffers"]) if buf["axis"] != "fixed"]


def assert_refused(code: int, err: str, needle: str = "") -> None:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: plan"), err
    assert len(lines[0]) <= 200 and "Traceback" not in err
    assert needle in lines[0], (needle, lines[0])


@pytest.mark.parametrize("flags", CONFIGS)
def test_round_trip_is_safe(tmp_path: Path, flags: list[str]) -> None:
    doc = plan_file_json(flags)
    code, out, err = check(write(tmp_path, doc), "--json")
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["ok"] and verdict["violations"] == 0 and verdict["checked"] > 0


def test_the_shared_document_round_trips(tmp_path: Path) -> None:
    code, out, err = check(write(tmp_path, PLAN_DOC))
    assert code == 0 and "SAFE" in out, err


def test_plan_file_and_config_flags_do_not_mix(tmp_path: Path) -> None:
    path = write(tmp_path, PLAN_DOC)
    code, _, err = run_cli(["check", "--plan", str(path), "--max-num-seqs", "9"])
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize("flags", CONFIGS)
def test_every_capacity_is_tight_and_a_short_one_is_found(tmp_path: Path,
                                                           flags: list[str]) -> None:
    """graphfit's capacities are exactly the reachable peak: auditing one row less with
    --capacity against the plan file's config is a violation on that buffer only (buffers
    of a fixed size, such as MRV2's [S*k] sample slots, do not grow with the batch)."""
    doc = plan_file_json(flags)
    path = write(tmp_path, doc)
    for component, i in buffers(doc):
        buf = doc["components"][component]["buffers"][i]
        key = f"{component}.{buf['name']}"
        if buf["axis"] == "fixed":
            continue
        code, out, err = check(path, "--json", "--capacity", f"{key}={buf['capacity'] - 1}")
        assert code == 1, (key, err)
        verdict = json.loads(out)
        assert not verdict["ok"]
        assert {r["buffer"] for r in verdict["ranges"]} == {key}
        assert all(r["capacity"] == buf["capacity"] - 1 < r["needed"]
                   for r in verdict["ranges"])


@given(st.data())
def test_tampered_capacities_are_refused_and_audits_fail_exactly_when_too_small(
        tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    chosen = data.draw(st.lists(st.sampled_from(buffers(PLAN_DOC)), min_size=1, max_size=4,
                                unique=True))
    short = changed = False
    audit: list[str] = []
    for component, i in chosen:
        buf = tampered["components"][component]["buffers"][i]
        delta = data.draw(st.integers(-buf["capacity"], 64))
        audit += ["--capacity", f"{component}.{buf['name']}={buf['capacity'] + delta}"]
        resize(buf, buf["capacity"] + delta)
        short |= delta < 0
        changed |= delta != 0
    folder = tmp_path_factory.mktemp("plan")
    code, _, err = check(write(folder, tampered))
    if changed:
        assert_refused(code, err, "components.")
    else:
        assert code == 0, err
    code, out, err = check(write(folder, PLAN_DOC), *audit)
    assert code == (1 if short else 0), err
    assert ("UNSAFE" in out) == short and "Traceback" not in err


def _components(d: dict[str, Any]) -> dict[str, Any]:
    comps: dict[str, Any] = d["components"]
    return comps


def _mutations() -> list[tuple[str, Any, str]]:
    """(name, mutation, a path the error must name)."""
    def ladder(d: dict[str, Any]) -> None:
        d["ladder"]["capture_sizes"] = d["ladder"]["capture_sizes"][:-1]

    def schema(d: dict[str, Any]) -> None:
        d["schema"] = "graphfit.plan/0"

    def unknown_buffer(d: dict[str, Any]) -> None:
        _components(d)["target"]["buffers"][0]["name"] = "no_such_buffer"

    def missing_buffer(d: dict[str, Any]) -> None:
        _components(d)["drafter"]["buffers"].pop()

    def extra_component(d: dict[str, Any]) -> None:
        _components(d)["other"] = copy.deepcopy(_components(d)["target"])

    def buffer_twice_short_copy_first(d: dict[str, Any]) -> None:
        bufs = _components(d)["target"]["buffers"]
        short = copy.deepcopy(bufs[0])
        resize(short, short["capacity"] - 1)
        bufs.insert(0, short)

    def negative(d: dict[str, Any]) -> None:
        _components(d)["target"]["buffers"][0]["capacity"] = -1

    def boolean(d: dict[str, Any]) -> None:
        _components(d)["target"]["buffers"][0]["capacity"] = True

    def text(d: dict[str, Any]) -> None:
        _components(d)["target"]["buffers"][0]["capacity"] = "136"

    def float_capacity(d: dict[str, Any]) -> None:
        buf = _components(d)["target"]["buffers"][0]
        buf["capacity"] = float(buf["capacity"])

    def config(d: dict[str, Any]) -> None:
        d["config"]["max_num_seqs"] = 0

    def config_key(d: dict[str, Any]) -> None:
        d["config"]["surprise"] = 1

    def components(d: dict[str, Any]) -> None:
        d["components"] = []

    def overlapping_offsets(d: dict[str, Any]) -> None:
        _components(d)["target"]["buffers"][1]["offset"] = 0

    def fill_keep(d: dict[str, Any]) -> None:
        for buf in _components(d)["target"]["buffers"]:
            if buf["name"] == "slot_mapping":
                buf["fill"] = {"kind": "keep", "value": 0}

    def graph_sizes_widened(d: dict[str, Any]) -> None:
        _components(d)["drafter"]["graph_sizes"].append(10 ** 6)

    def total_bytes(d: dict[str, Any]) -> None:
        d["total_bytes"] -= 1

    def layout(d: dict[str, Any]) -> None:
        _components(d)["target"]["layout"] = "separate"

    def alignment(d: dict[str, Any]) -> None:
        _components(d)["target"]["alignment"] = 1

    def huge_padding(d: dict[str, Any]) -> None:
        d["padding"][0]["worst_waste"] = 10 ** 18

    def removed_field(d: dict[str, Any]) -> None:
        del d["reference_bytes"]

    def reordered(d: dict[str, Any]) -> None:
        d["ladder"] = dict(reversed(list(d["ladder"].items())))

    def verdict(d: dict[str, Any]) -> None:
        d["engine"]["ok"] = not d["engine"]["ok"]

    return [
        ("ladder", ladder, "ladder.capture_sizes"), ("schema", schema, "schema"),
        ("unknown_buffer", unknown_buffer, "buffers[0].name"),
        ("missing_buffer", missing_buffer, "drafter.buffers"),
        ("extra_component", extra_component, "components.other"),
        ("buffer_twice", buffer_twice_short_copy_first, "target.buffers[0]"),
        ("negative", negative, "buffers[0].capacity"),
        ("boolean", boolean, "buffers[0].capacity"),
        ("text", text, "buffers[0].capacity"),
        ("float_capacity", float_capacity, "buffers[0].capacity"),
        ("config", config, "max_num_seqs"), ("config_key", config_key, "surprise"),
        ("components", components, "components"),
        ("overlapping_offsets", overlapping_offsets, "buffers[1].offset"),
        ("fill_keep", fill_keep, ".fill.kind"),
        ("graph_sizes_widened", graph_sizes_widened, "drafter.graph_sizes"),
        ("total_bytes", total_bytes, "total_bytes"),
        ("layout", layout, "target.layout"), ("alignment", alignment, "target.alignment"),
        ("huge_padding", huge_padding, "padding[0].worst_waste"),
        ("removed_field", removed_field, "reference_bytes"),
        ("reordered", reordered, "ladder"), ("verdict", verdict, "engine.ok"),
    ]


@pytest.mark.parametrize(("name", "mutate", "path"), _mutations(),
                         ids=[m[0] for m in _mutations()])
def test_a_document_that_is_not_this_plan_is_bad_input(tmp_path: Path, name: str,
                                                       mutate: Any, path: str) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    mutate(tampered)
    code, _, err = check(write(tmp_path, tampered))
    assert_refused(code, err, path)


def test_a_duplicate_key_whose_first_copy_is_shrunk_is_refused(tmp_path: Path) -> None:
    """json.loads keeps the last copy; graphfit refuses the file before looking."""
    text = json.dumps(PLAN_DOC)
    buf = PLAN_DOC["components"]["target"]["buffers"][0]
    needle = f'"capacity": {buf["capacity"]}'
    assert needle in text
    forged = text.replace(needle, f'"capacity": 1, {needle}', 1)
    code, _, err = check(write(tmp_path, forged))
    assert_refused(code, err, "duplicate key 'capacity'")


@pytest.mark.parametrize(("text", "needle"), [
    ("", "malformed JSON"), ("{", "malformed JSON"), ("[]", "schema"), ("null", "schema"),
    ('"plan"', "schema"), ("\x00\x01", "binary"), ('{"schema": NaN}', "NaN"),
    ("[" * 10_000 + "]" * 10_000, "nested deeper"),
])
def test_malformed_files_are_bad_input(tmp_path: Path, text: str, needle: str) -> None:
    code, _, err = check(write(tmp_path, text))
    assert_refused(code, err, needle)


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    code, _, err = check(tmp_path / "nope.json")
    assert code == 2 and err.startswith("error: ") and "nope.json" in err


def test_shape_that_disagrees_with_capacity_is_bad_input(tmp_path: Path) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    buf = tampered["components"]["drafter"]["buffers"][1]
    buf["shape"][0] -= 4
    code, _, err = check(write(tmp_path, tampered))
    assert_refused(code, err, "shape")


def test_unknown_config_key_with_a_newline_is_one_error_line(tmp_path: Path) -> None:
    tampered = copy.deepcopy(PLAN_DOC)
    tampered["config"]["bad\nkey"] = 1
    code, _, err = check(write(tmp_path, tampered))
    assert_refused(code, err, "unknown key")
