"""SGLang's ViT graphs as the plan's keyed component `vit`, end to end through the CLI:
`plan --vit-images` puts them in the plan (its buffers table and totals), `check --plan`
re-proves the written document and refuses an edited one, `--capacity vit.<buffer>=N` audits
them (exit 1 naming the call that goes short), and `rehearse` captures and replays them from
the plan (graph outputs == eager)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.planner.engines import sglang_vit as sv
from tests.helpers import ROOT, run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EXAMPLE = ROOT / "examples" / "models" / "Qwen2.5-VL-7B-Instruct"
LINE = ["SGLANG_VIT_ENABLE_CUDA_GRAPH=1", "python", "-m", "sglang.launch_server",
        "--model-path", str(EXAMPLE), "--max-running-requests", "4"]
VIT = ["--vit-images", "1x8x8,1x4x12", "--vit-max-images", "2"]
GRIDS = [(1, 8, 8), (1, 4, 12)]


def _write(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    code, out, err = run_cli(["plan", "--json", *VIT, "--", *LINE])
    assert code == 0, err
    path = tmp_path / "plan.json"
    path.write_text(out)
    return path, json.loads(out)


def test_the_plan_document_holds_vit_and_check_reproves_it(tmp_path: Path) -> None:
    path, doc = _write(tmp_path)
    keyed = doc["keyed_components"]["vit"]  # type: ignore[index]
    # the workload's calls: every ordered choice of 1..2 of the grids
    calls = [(g,) for g in GRIDS] + [(a, b) for a in GRIDS for b in GRIDS]
    largest = max(sum(t * h * w for t, h, w in c) for c in calls)
    caps = {b["name"]: b["capacity"] for b in keyed["buffers"]}
    assert caps["block_input"] == largest and keyed["bounds"][0] == 2
    for graph in keyed["graphs"]:  # each witness is a call of the workload
        assert tuple(map(tuple, graph["batch"])) in calls
        assert all(graph["rows"][name] <= caps[name] for name in caps)
    # the totals count the vit buffers
    assert doc["total_bytes"] == sum(c["total_bytes"] for c in doc["components"].values()) \
        + keyed["total_bytes"]
    assert doc["vit"]["proof"]["ok"]
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0 and out.startswith("SAFE"), (out, err)
    code, out, err = run_cli(["check", "--plan", str(path), "--json"])
    assert code == 0 and json.loads(out)["ok"], err


def test_an_edited_vit_entry_is_refused(tmp_path: Path) -> None:
    path, doc = _write(tmp_path)
    doc["keyed_components"]["vit"]["buffers"][0]["capacity"] -= 1  # type: ignore[index]
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and out == "" and err.startswith("error:") and len(err.splitlines()) == 1
    assert "keyed_components.vit.buffers[0].capacity" in err
    doc["keyed_components"]["vit"]["buffers"][0]["capacity"] += 1  # type: ignore[index]
    doc["config"]["options"]["vit"][-1][1] = 3  # type: ignore[index]  # max_images edited
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and "not what graphfit writes" in err, err


@pytest.mark.parametrize("buffer", ["block_input", "cu_seqlens", "cu_window_seqlens"])
def test_capacity_audits_a_vit_buffer(tmp_path: Path, buffer: str) -> None:
    path, doc = _write(tmp_path)
    keyed = doc["keyed_components"]["vit"]  # type: ignore[index]
    cap = {b["name"]: b["capacity"] for b in keyed["buffers"]}[buffer]
    code, out, err = run_cli(["check", "--plan", str(path), "--capacity",
                              f"vit.{buffer}={cap}"])
    assert code == 0, (out, err)
    code, out, err = run_cli(["check", "--plan", str(path), "--capacity",
                              f"vit.{buffer}={cap - 1}", "--json"])
    assert code == 1, err
    ranges = json.loads(out)["ranges"]
    assert [r["buffer"] for r in ranges] == [f"vit.{buffer}"]
    assert ranges[0]["padded"] == cap and ranges[0]["capacity"] == cap - 1
    code, out, err = run_cli(["plan", *VIT, "--capacity", f"vit.{buffer}={cap - 1}", "--",
                              *LINE])
    assert code == 1 and f"vit.{buffer}: a call of images" in out, err


def test_the_buffers_table_lists_vit_and_a_bad_name_is_one_error_line() -> None:
    code, out, err = run_cli(["plan", *VIT, "--", *LINE])
    assert code == 0, err
    assert "vit.block_input" in out and "graphs keyed on (tokens, layout)" in out
    code, out, err = run_cli(["plan", *VIT, "--capacity", "vit.block_inpt=4", "--", *LINE])
    assert code == 2 and "did you mean vit.block_input" in err and len(err.splitlines()) == 1


def test_rehearse_replays_the_plans_vit_graphs_equal_to_eager() -> None:
    geometry = sv.VitGeometry("qwen2_5_vl", 1280, 16, window_size=112,
                              fullatt_blocks=(7, 15, 23, 31), max_context_len=128000)
    keys = sv.reachable_keys(geometry, sv.VitWorkload(tuple(GRIDS), 2))
    code, out, err = run_cli(["rehearse", *VIT, "--", *LINE])
    assert code == 0, err
    assert f"  vit: {len(keys)} graphs captured, {len(keys)} replayed == eager" in out


def test_a_plan_3_document_from_before_the_vit_option_is_still_read(tmp_path: Path) -> None:
    """/3 documents written before `vit` existed lack it in config.options: it reads as its
    default (None), the plan is re-proven; an entry moved out of order is still refused."""
    code, out, err = run_cli(["plan", "--json", "--engine", "sglang",
                              "--max-running-requests", "8"])
    assert code == 0, err
    doc = json.loads(out)
    del doc["config"]["options"]["vit"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0 and out.startswith("SAFE"), (out, err)
    options = doc["config"]["options"]
    first = next(iter(options))
    doc["config"]["options"] = {**{k: v for k, v in options.items() if k != first},
                                first: options[first]}
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and "reordered" in err and len(err.splitlines()) == 1, err
