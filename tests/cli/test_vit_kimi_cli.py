"""Kimi K3's ViT graphs in the plan: `plan --vit-images` sizes the buffers each captured key
keeps (pixel input, merger outputs, rope / position metadata, boundaries), the totals count
them, `check --plan` re-proves them and `--capacity vit.<buffer>=N` audits them; the
runtime's rehearsal refuses the whole-tower graphs in one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.planner.engines import sglang_vit as sv
from tests.helpers import run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
GRIDS = [(1, 32, 32), (1, 64, 48), (2, 80, 80)]  # 2x80x80: 12,800 patches > max_seqlen 6144
VIT = ["--vit-images", ",".join("x".join(map(str, g)) for g in GRIDS), "--vit-max-images",
       "2"]


def _model(tmp_path: Path) -> Path:
    model = tmp_path / "k3"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["KimiK3ForConditionalGeneration"],
        "vision_config": {"vt_hidden_size": 1152, "vt_num_attention_heads": 16}}))
    return model


def _line(model: Path) -> list[str]:
    return ["SGLANG_VIT_ENABLE_CUDA_GRAPH=1", "python", "-m", "sglang.launch_server",
            "--model-path", str(model), "--max-running-requests", "4"]


def test_kimi_buffers_are_planned_counted_and_reproven(tmp_path: Path) -> None:
    model = _model(tmp_path)
    code, out, err = run_cli(["plan", "--json", *VIT, "--", *_line(model)])
    assert code == 0, err
    doc = json.loads(out)
    keyed = doc["keyed_components"]["vit"]
    caps = {b["name"]: b["capacity"] for b in keyed["buffers"]}
    assert set(caps) == {"pixel_values", "outputs", "rope_freqs_cis", "position_embeddings",
                         "cu_seqlens", "seq_lens", "rope_freqs_table"}
    assert caps["rope_freqs_table"] == 512 * 512  # the tower's (y, x) rope table
    # the capturable calls: images of at most 6144 patches (the 2x80x80 one never is)
    small = [g for g in GRIDS if g[0] * g[1] * g[2] <= 6144]
    calls = [(g,) for g in small] + [(a, b) for a in small for b in small]
    assert caps["pixel_values"] == max(sum(t * h * w for t, h, w in c) for c in calls)
    assert caps["outputs"] == max(sum(h * w // 4 for _, h, w in c) for c in calls)
    assert caps["cu_seqlens"] == 3 and caps["seq_lens"] == 2
    geometry = sv.VitGeometry("kimi_k3", 1152, 16, qkv_hidden_size=1536)
    row_bytes = {b.name: b.row_bytes for b in sv.key_buffers(geometry, (small[0],))}
    assert {b["name"]: b["bytes"] for b in keyed["buffers"]} == {
        n: caps[n] * row_bytes[n] for n in caps}
    # laid out in one arena (each offset aligned): at least the buffers' bytes
    assert keyed["total_bytes"] >= sum(b["bytes"] for b in keyed["buffers"]) > 0
    assert doc["total_bytes"] == sum(c["total_bytes"] for c in doc["components"].values()) \
        + keyed["total_bytes"]
    path = tmp_path / "plan.json"
    path.write_text(out)
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0 and out.startswith("SAFE"), (out, err)
    for name, cap in caps.items():
        code, out, err = run_cli(["check", "--plan", str(path), "--capacity",
                                  f"vit.{name}={cap - 1}", "--json"])
        assert code == 1, (name, err)
        ranges = json.loads(out)["ranges"]
        assert [r["buffer"] for r in ranges] == [f"vit.{name}"]
        assert ranges[0]["padded"] == cap and ranges[0]["capacity"] == cap - 1


def test_kimi_rehearsal_is_refused_in_one_line(tmp_path: Path) -> None:
    model = _model(tmp_path)
    code, _out, err = run_cli(["vit", str(model), "--images", "1x32x32", "--rehearse"])
    assert code == 2 and err.startswith("error:") and "Kimi K3" in err
    assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200


def test_kimi_tower_defaults_and_a_non_square_kernel(tmp_path: Path) -> None:
    """Keys absent from config.json take SGLang's KimiK3VisionConfig defaults (hidden 1024,
    12 heads, qkv 1536, patch 14, kernel 2x2; the oracle compares them with the class);
    a non-square merge kernel is planned (h by its height, w by its width; the oracle
    compares its buffers with SGLang's entry), a bad one is one error line."""
    from graphfit.inputs.sglang_vit import read_geometry

    model = tmp_path / "k3d"
    model.mkdir()
    config = {"architectures": ["KimiK3ForConditionalGeneration"],
              "vision_config": {"hidden_size": 7168}}
    (model / "config.json").write_text(json.dumps(config))
    g = read_geometry(model)
    assert (g.hidden_size, g.num_heads, g.head_dim, g.patch_size, g.spatial_merge_size) == (
        1024, 12, 128, 14, 2)
    config["vision_config"] = {"merge_kernel_size": [2, 4]}
    (model / "config.json").write_text(json.dumps(config))
    code, out, err = run_cli(["vit", str(model), "--images", "1x2x8", "--json"])
    assert code == 0, err
    outputs = {b["name"]: b for b in json.loads(out)["buffers"]}["outputs"]
    assert (outputs["rows"], outputs["row_shape"]) == (2, [8, 1024])  # (2/2)(8/4) x 2*4
    code, _out, err = run_cli(["vit", str(model), "--images", "1x2x6"])  # 6 % 4
    assert code == 2 and "2x4" in err and len(err.strip().splitlines()) == 1
    config["vision_config"] = {"merge_kernel_size": [2, 0]}
    (model / "config.json").write_text(json.dumps(config))
    code, _out, err = run_cli(["vit", str(model), "--images", "1x8x8"])
    assert code == 2 and "merge_kernel_size" in err and len(err.strip().splitlines()) == 1


def test_kimi_activations_are_named_as_not_counted() -> None:
    """Kimi K3's plan says its blocks' activations are pool memory it does not count
    (graphfit.planner.engines.sglang_vit.KIMI_ACTIVATIONS_NOTE), and where SGLang logs them."""
    from graphfit.planner.engines import sglang_vit as sv

    geometry = sv.VitGeometry("kimi_k3", 64, 4, patch_size=14, spatial_merge_size=2)
    plan = sv.plan_vit(geometry, sv.VitWorkload(((1, 4, 4),), 1))
    assert sv.KIMI_ACTIVATIONS_NOTE in plan.notes
    assert "reserved_delta_mib" in sv.KIMI_ACTIVATIONS_NOTE
    qwen = sv.plan_vit(sv.VitGeometry("qwen3_vl", 64, 4, patch_size=14, spatial_merge_size=2,
                                      out_hidden_size=8, deepstack=0),
                       sv.VitWorkload(((1, 4, 4),), 1))
    assert sv.KIMI_ACTIVATIONS_NOTE not in qwen.notes
