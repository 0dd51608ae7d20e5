"""Engine files declare host buffers and host staging: `placement = "host"` and, on a host
buffer, `stages = "<device buffer>"`. Generated small descriptions: every well-formed pair is
read, carried into the plan (placement and stages on the copy), counted apart (adding the
copies changes no device figure; the host figure is the copies' own bytes) and rehearsed
through the copy (graph == eager, device rows == what the copy held); every ill-formed pair
is one error line. Planted runtime errors (no copy, stale copy, no tail fill) fail the
rehearsal."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers
from graphfit.cudagraph import runner as runner_module
from graphfit.cudagraph.rehearsal import rehearse
from graphfit.inputs.engine_file import description_from_data, load_engine_file
from graphfit.planner.engines.described import register_description
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "engines" / "tiny_staged.toml"
PLAIN = ROOT / "examples" / "engines" / "tiny_spec.toml"
FLAGS = ["--max-num-seqs", "6", "--max-num-batched-tokens", "64"]
NAME = "staged-gen"
SIZES = {"int32": 4, "int64": 8, "float32": 4, "bfloat16": 2}


@st.composite
def device_buffers(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 4))):
        # the first is per token: the rehearsal's toy forward reads those
        rows = "tokens" if i == 0 else draw(st.sampled_from(["tokens", "requests"]))
        buf: dict[str, Any] = {"name": f"b{i}", "dtype": draw(st.sampled_from(list(SIZES))),
                               "rows": rows, "allocates": "T + 1" if rows == "tokens"
                               else "S + 1"}
        if rows == "requests" and draw(st.booleans()):
            buf["offset"] = 1
        if draw(st.booleans()):
            buf["trailing"] = [draw(st.integers(1, 4))]
        out.append(buf)
    return out


@st.composite
def staged_descriptions(draw: st.DrawFn) -> dict[str, Any]:
    """A one-component engine: device buffers, a host staging copy of some of them (their
    dtype, rows, offset and trailing shape) and maybe a host buffer that stages nothing."""
    device = draw(device_buffers())
    staged = draw(st.sets(st.integers(0, len(device) - 1), min_size=1))
    copies = [{**device[i], "name": f"{device[i]['name']}_host", "placement": "host",
               "stages": device[i]["name"]} for i in sorted(staged)]
    loose = ([{"name": "h_loose", "dtype": "int32", "rows": "requests", "allocates": "S",
               "placement": "host"}] if draw(st.booleans()) else [])
    buffers = draw(st.permutations(device + copies + loose))
    top = draw(st.sampled_from([8, 16, 24]))
    return {"name": NAME, "version": "0.1",
            "components": [{"name": "target",
                            "ladder": {"keyed": "tokens", "grid": {"start": [1, 2, 4],
                                                                   "step": 8},
                                       "max": f"min(T, {top})"},
                            "families": [{"kind": "mixed"}, {"kind": "uniform_decode"}],
                            "buffers": list(buffers)}]}


def _without_host(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    comp = out["components"][0]
    comp["buffers"] = [b for b in comp["buffers"] if b.get("placement") != "host"]
    return out


def _plan(data: dict[str, Any], s: int = 4, t: int = 32) -> Any:
    register_description(description_from_data(data))
    return plan(EngineConfig(engine=NAME, max_num_seqs=s, max_num_batched_tokens=t))


def _bytes(buf: dict[str, Any], s: int, t: int) -> int:
    """A buffer's bytes, from the description alone: its rows at S and T, its trailing
    dims, its dtype's size."""
    rows = (t if buf["rows"] == "tokens" else s) + buf.get("offset", 0)
    return rows * math.prod(buf.get("trailing", [1])) * SIZES[buf["dtype"]]


@given(staged_descriptions(), st.integers(1, 8), st.integers(8, 40))
def test_staging_is_carried_into_the_plan_and_counted_apart(data: dict[str, Any], s: int,
                                                            t: int) -> None:
    p = _plan(data, s, t)
    bare = _plan(_without_host(data), s, t)
    rules = {b["name"]: b for b in data["components"][0]["buffers"]}
    target = p.component("target")
    for buf in target.buffers:
        rule = rules[buf.name]
        assert buf.placement.value == rule.get("placement", "device")
        assert buf.stages == rule.get("stages", "")
    # the host copies move no device figure, and the host figure is their own bytes
    assert p.total_bytes == bare.total_bytes
    assert p.reference_bytes == bare.reference_bytes
    host = [b for b in rules.values() if b.get("placement") == "host"]
    assert p.host_bytes == sum(_bytes(b, s, t) for b in host)


@given(staged_descriptions())
def test_generated_staged_engines_rehearse_through_their_copies(data: dict[str, Any]) -> None:
    p = _plan(data)
    result = rehearse(p)
    assert result.ok, result
    (target,) = [c for c in result.components if c.component == "target"]
    staged = {b["stages"] for b in data["components"][0]["buffers"] if "stages" in b}
    shown = {n.split(" ")[0] for n in target.inputs if n.endswith("(staged from host)")}
    # the toy forward reads the per-token buffers: those staged are shown staged
    reads = {n.split(" ")[0] for n in target.inputs}
    assert shown == staged & reads
    assert target.replayed >= target.graphs


MUTATIONS = {
    "unknown placement": ({"placement": "pinned"}, "placement 'pinned' is not one of"),
    "stages on a device buffer": ({"placement": "device"}, "needs placement"),
    "stages on a default-placed buffer": ({"placement": None}, "needs placement"),
    "stages a missing buffer": ({"stages": "nowhere"}, "not a device buffer"),
    "stages itself": ({"stages": "SELF"}, "stages another buffer"),
    "stages a host buffer": ({"stages": "h_loose"}, "not a device buffer"),
    "another dtype": ({"dtype": "OTHER_DTYPE"}, "a staging copy is"),
    "another trailing shape": ({"trailing": [9]}, "a staging copy is"),
    "another axis": ({"rows": "OTHER_ROWS"}, "a staging copy is"),
    "another offset": ({"offset": "OTHER_OFFSET"}, "the offset of"),
    "not a name": ({"stages": "no such name"}, "is not a name"),
}


@given(staged_descriptions(), st.sampled_from(sorted(MUTATIONS)))
def test_each_ill_formed_pair_is_one_error_line(data: dict[str, Any], which: str) -> None:
    bad = copy.deepcopy(data)
    buffers = bad["components"][0]["buffers"]
    if not any(b["name"] == "h_loose" for b in buffers):
        buffers.append({"name": "h_loose", "dtype": "int32", "rows": "requests",
                        "allocates": "S", "placement": "host"})
    (copy_buf, *_) = [b for b in buffers if "stages" in b]
    staged = next(b for b in buffers if b["name"] == copy_buf["stages"])
    change, message = MUTATIONS[which]
    for key, value in change.items():
        if value is None:
            copy_buf.pop(key)
        elif value == "SELF":
            copy_buf[key] = copy_buf["name"]
        elif value == "OTHER_DTYPE":
            copy_buf[key] = "float32" if staged["dtype"] != "float32" else "int32"
        elif value == "OTHER_ROWS":
            copy_buf[key] = "requests" if staged["rows"] == "tokens" else "tokens"
            copy_buf.pop("offset", None)
        elif value == "OTHER_OFFSET":
            copy_buf[key] = staged.get("offset", 0) + 1
            copy_buf["rows"] = staged["rows"]
        else:
            copy_buf[key] = value
    with pytest.raises(ConfigError, match=message) as caught:
        description_from_data(bad)
    assert "\n" not in str(caught.value) and len(str(caught.value)) <= 200


def test_the_cli_plans_and_rehearses_the_staged_example() -> None:
    code, out, err = run_cli(["rehearse", "--engine-file", str(EXAMPLE), *FLAGS])
    assert code == 0, err
    assert "tok_ids (staged from host)" in out and "REHEARSED" in out
    code, out, err = run_cli(["plan", "--engine-file", str(EXAMPLE), *FLAGS, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    entries = [b for c in doc["components"].values() for b in c["buffers"]] \
        if isinstance(doc["components"], dict) else \
        [b for c in doc["components"] for b in c["buffers"]]
    (host,) = [b for b in entries if b.get("placement") == "host"]
    assert host["stages"] == "tok_ids" and doc["host_bytes"] == 64 * 4
    code, plain, err = run_cli(["plan", "--engine-file", str(PLAIN), *FLAGS, "--json"])
    assert code == 0, err
    assert json.loads(plain)["total_bytes"] == doc["total_bytes"]


def test_bad_staging_in_a_file_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    cases = {"device.toml": text.replace('placement = "host"\n', ""),
             "missing.toml": text.replace('stages = "tok_ids"', 'stages = "tok_idz"'),
             "dtype.toml": text.replace('dtype = "int32"\nrows = "tokens"\nallocates = "T"\n'
                                        'placement', 'dtype = "int64"\nrows = "tokens"\n'
                                        'allocates = "T"\nplacement'),
             "typo.toml": text.replace("stages =", "stage =")}
    for name, bad in cases.items():
        assert bad != text, name
        path = tmp_path / name
        path.write_text(bad)
        code, out, err = run_cli(["plan", "--engine-file", str(path), *FLAGS])
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 1, (name, err)
        assert lines[0].startswith("error: engine file") and len(lines[0]) <= 200, lines[0]


@pytest.fixture
def staged_plan() -> Any:
    load_engine_file(EXAMPLE)
    return plan(EngineConfig(engine="tiny-staged", max_num_seqs=6, max_num_batched_tokens=64))


def _no_copy(device_rows: torch.Tensor, host_rows: torch.Tensor) -> None:
    pass


def _stale_copy(device_rows: torch.Tensor, host_rows: torch.Tensor) -> None:
    device_rows.copy_(torch.zeros_like(host_rows))


def _real_rows_only(graph: Any, n: int, r: int, turn: int = 0) -> tuple[()]:
    return ()


@pytest.mark.parametrize(("where", "plant"), [("_copy_rows", _no_copy),
                                              ("_copy_rows", _stale_copy),
                                              ("_tail_fills", _real_rows_only)])
def test_planted_staging_errors_fail_the_rehearsal(staged_plan: Any, where: str, plant: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert rehearse(staged_plan).ok
    monkeypatch.setattr(runner_module, where, plant)
    assert not rehearse(staged_plan).ok


def test_the_runner_writes_staged_inputs_into_the_host_copy(staged_plan: Any) -> None:
    bufs = StaticBuffers.allocate(staged_plan, "cpu", "target")
    runner = GraphRunner(lambda v: v["tok_ids"].float().unsqueeze(1), staged_plan, bufs,
                         graph_inputs=("tok_ids",))
    assert dict(runner.staging) == {"tok_ids": "tok_ids_host"}
    ids = torch.arange(5, dtype=torch.int32) + 7
    bufs.poison(["tok_ids", "tok_ids_host"])
    out = runner.step({"tok_ids": ids})
    assert torch.equal(out.squeeze(1), ids.float())
    assert torch.equal(bufs.view("tok_ids_host", 5), ids)
    assert torch.equal(bufs.view("tok_ids", 8)[5:], torch.zeros(3, dtype=torch.int32))
    with pytest.raises(ConfigError, match="host staging copy of tok_ids"):
        GraphRunner(lambda v: v["tok_ids_host"], staged_plan, bufs,
                    graph_inputs=("tok_ids_host",))
