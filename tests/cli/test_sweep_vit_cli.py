"""`graphfit sweep --vit-images SET ... --vit-max-images 1..N`: the ViT workload as sweep
axes, end to end (graphfit/cli/vit_sweep.py): per point the ViT keys and bytes in --json,
one table row per workload in text, a bytes panel in the figure; bad input one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.planner.engines import sglang_vit as sv
from tests.helpers import ROOT, needs_matplotlib, run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EXAMPLE = ROOT / "examples" / "models" / "Qwen2.5-VL-7B-Instruct"
LINE = ["--", "SGLANG_VIT_ENABLE_CUDA_GRAPH=1", "python", "-m", "sglang.launch_server",
        "--model-path", str(EXAMPLE)]
SETS = ["1x8x8", "1x8x8,1x4x12"]
ARGS = ["sweep", "--max-num-seqs", "1..2", "--vit-images", SETS[0], "--vit-images", SETS[1],
        "--vit-max-images", "1..2"]


def test_sweep_reports_vit_keys_and_bytes_per_point() -> None:
    code, out, err = run_cli([*ARGS, "--json", *LINE])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["axes"]["vit_images"] == [0, 1, 2] and doc["axes"]["vit_max_images"] == [1, 2, 2]
    assert doc["vit_images"] == [[[1, 8, 8]], [[1, 8, 8], [1, 4, 12]]]
    assert len(doc["results"]) == 2 * 2 * 2
    geometry = sv.VitGeometry("qwen2_5_vl", 1280, 16, window_size=112,
                              fullatt_blocks=(7, 15, 23, 31), max_context_len=128000)
    for r in doc["results"]:
        grids = tuple(tuple(g) for g in doc["vit_images"][r["vit_images"]])
        vit = sv.plan_vit(geometry, sv.VitWorkload(grids, r["vit_max_images"]))
        assert r["vit"]["keys"] == len(vit.keys)
        assert r["vit"]["sglang_bytes"] == vit.sglang_bytes
        assert r["vit"]["bytes"] >= vit.total_bytes  # laid out in one aligned arena
    code, out, err = run_cli([*ARGS, *LINE])
    assert code == 0, err
    assert "ViT workloads" in out and "1x8x8,1x4x12 (<= 2 per call)" in out


@needs_matplotlib
def test_the_sweep_figure_has_the_vit_panel(tmp_path: Path) -> None:
    svg = tmp_path / "sweep.svg"
    code, _out, err = run_cli([*ARGS, "--svg", str(svg), *LINE])
    assert code == 0, err
    text = svg.read_text()
    assert "SGLang ViT graphs per image workload" in text and "ViT images" in text


@pytest.mark.parametrize("argv", [
    ["--vit-max-images", "1..2"],  # no image sets
    ["--vit-images", "1x8x7"],  # not whole merge blocks for this tower
    ["--vit-images", "1x8x8", "--vit-max-images", "0..2"],
    ["--vit-images", "1x8x8", "--vit-images", "1x8x8"],
    ["--vit-images", "8x8"],
])
def test_bad_vit_sweep_input_is_one_error_line(argv: list[str]) -> None:
    code, _out, err = run_cli(["sweep", "--max-num-seqs", "1..2", *argv, *LINE])
    assert code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1, err
    assert len(err.strip()) <= 200 and "Traceback" not in err
