"""Plan files with SGLang's `vit` component written by older graphfit versions
(`check --plan`: graphfit.inputs.plan_file, graphfit.planner.engines.sglang_vit_keyed
`vit_pairs_completed`). The files under tests/cli/data were written by graphfit itself:

* `vit-plan-before-s28v-*.json` by commit d82b628^1, before the tower's fields
  `spatial_merge_width` and `attention_backend` existed (its `vit` pairs lack them; it
  planned a square merge and no backend) -- read as written, their plans unchanged since;
* `vit-plan-c91e348-kimi_k3-flashinfer_cudnn.json` by main c91e348, before the encoder's
  128 MiB flashinfer_cudnn workspace was planned -- refused, in one line that says so.

Kimi K3 files written before s37v lack the tower's rope freqs_cis table
(`rope_freqs_table`), and before s50m the prefill runner's mamba tracking inputs (Kimi K3 is a
hybrid linear-attention model): refused in one line that names the difference found first.

A plan file is never trusted: anything else that differs is still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
DATA = ROOT / "tests" / "cli" / "data"
BEFORE = ("vit-plan-before-s28v-qwen2_5.json", "vit-plan-before-s28v-kimi_k3.json")
CUDNN = DATA / "vit-plan-c91e348-kimi_k3-flashinfer_cudnn.json"


def _one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) <= 207, err
    return lines[0]


@pytest.mark.parametrize("name", BEFORE)
def test_a_plan_written_before_the_later_tower_fields_is_read(name: str) -> None:
    path = DATA / name
    old = json.loads(path.read_text())
    written = [p[0] for p in old["config"]["options"]["vit"]]
    assert "attention_backend" not in written and "spatial_merge_width" not in written
    code, out, err = run_cli(["check", "--plan", str(path)])
    if "kimi_k3" not in name:
        assert code == 0 and "SAFE" in out, err
        return
    # its pairs were completed (the difference is past them); what it lacks is named
    assert code == 2 and out == ""
    line = _one_error(err)
    assert ("rope freqs_cis table" in line or "prefill mamba tracking inputs" in line) \
        and "plan again" in line, line


@pytest.mark.parametrize("name", BEFORE)
def test_an_edit_of_an_old_plan_is_still_refused(name: str, tmp_path: Path) -> None:
    old = json.loads((DATA / name).read_text())
    pairs = old["config"]["options"]["vit"]
    edits = {
        "reordered": [pairs[1], pairs[0], *pairs[2:]],
        "unknown": [*pairs[:3], ["vision_dtype", "bfloat16"], *pairs[3:]],
        "a later field set": [*pairs[:-2], ["attention_backend", "fa3"], *pairs[-2:]],
        "rows": None,
    }
    for what, vit in edits.items():
        doc = json.loads(json.dumps(old))
        if vit is None:
            graph = doc["keyed_components"]["vit"]["graphs"][0]["rows"]
            first = next(iter(graph))
            graph[first] += 1
        else:
            doc["config"]["options"]["vit"] = vit
        path = tmp_path / f"{what}.json"
        path.write_text(json.dumps(doc))
        code, out, err = run_cli(["check", "--plan", str(path)])
        assert code == 2 and out == "", what
        _one_error(err)


def test_a_kimi_flashinfer_cudnn_plan_without_the_workspace_is_one_clear_line() -> None:
    code, out, err = run_cli(["check", "--plan", str(CUDNN)])
    assert code == 2 and out == ""
    line = _one_error(err)
    # the workspace, the rope table (s37v) and the prefill tracking inputs (s50m) are
    # missing: the first found is named
    assert ("128 MiB flashinfer_cudnn workspace" in line or "rope freqs_cis table" in line
            or "prefill mamba tracking inputs" in line), line
    assert "plan again" in line, line


def _kimi_plan_now(tmp_path: Path) -> str:
    """`plan --json` of the CUDNN file's line, planned by graphfit now."""
    model = tmp_path / "k3"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["KimiK3ForConditionalGeneration"],
        "vision_config": {"vt_hidden_size": 64, "vt_num_attention_heads": 4,
                          "qkv_hidden_size": 64, "merge_kernel_size": [2, 2]}}))
    line = ["SGLANG_VIT_ENABLE_CUDA_GRAPH=1", "python", "-m", "sglang.launch_server",
            "--model-path", str(model), "--max-running-requests", "4",
            "--mm-attention-backend", "flashinfer_cudnn"]
    code, out, err = run_cli(["plan", "--json", "--vit-images", "1x4x4,1x8x4",
                              "--vit-max-images", "2", "--", *line])
    assert code == 0, err
    return out


def test_the_same_config_planned_now_has_the_workspace(tmp_path: Path) -> None:
    """What graphfit writes now for that file's config is accepted: the workspace on every
    key, once in the reference bytes."""
    old = json.loads(CUDNN.read_text())
    out = _kimi_plan_now(tmp_path)
    doc = json.loads(out)
    assert doc["config"]["options"]["vit"] == old["config"]["options"]["vit"]
    vit = doc["keyed_components"]["vit"]
    assert all(g["rows"]["attention_workspace"] == 128 * 2**20 for g in vit["graphs"])
    (tmp_path / "now.json").write_text(out)
    code, out, err = run_cli(["check", "--plan", str(tmp_path / "now.json")])
    assert code == 0 and "SAFE" in out, err


def test_a_plan_without_the_prefill_tracking_inputs_says_so(tmp_path: Path) -> None:
    """Only a file that lacks the prefill runner's mamba tracking inputs gets that reason; any
    other prefill difference is named as it is."""
    doc = json.loads(_kimi_plan_now(tmp_path))
    prefill = doc["components"]["prefill"]
    names = [b["name"] for b in prefill["buffers"]]
    assert {"mamba_track_indices", "mamba_track_mask", "mamba_track_seqlens"} <= set(names)
    older = json.loads(json.dumps(doc))
    older["components"]["prefill"]["buffers"] = [
        b for b in prefill["buffers"] if not b["name"].startswith("mamba_track_")]
    edited = json.loads(json.dumps(doc))
    edited["components"]["prefill"]["total_bytes"] += 1
    for what, text in (("older", older), ("edited", edited)):
        path = tmp_path / f"{what}.json"
        path.write_text(json.dumps(text))
        code, out, err = run_cli(["check", "--plan", str(path)])
        assert code == 2 and out == "", what
        line = _one_error(err)
        said = "prefill mamba tracking inputs" in line and "plan again" in line
        assert said == (what == "older"), line
