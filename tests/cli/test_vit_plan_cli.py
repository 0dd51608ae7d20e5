"""SGLang's ViT graphs inside `graphfit plan` / `graphfit rehearse` (graphfit/cli/vit_plan.py):
`--vit-images` with a pasted `sglang.launch_server` line plans the component `vit` from the
line's --model-path, proves it, reports it in text and (only then) in --json, and rehearses
it without --vit-model; bad input is one `error:` line and exit 2."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli
from tests.oracle.sglang_stubs import write_qwen3_vl_model_dir

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EXAMPLE = ROOT / "examples" / "models" / "Qwen2.5-VL-7B-Instruct"
LINE = ["python", "-m", "sglang.launch_server", "--model-path", str(EXAMPLE),
        "--max-running-requests", "8"]
IMAGES = [(1, 36, 52), (1, 64, 64)]


def _plan(*argv: str, env: bool = True) -> tuple[int, str, str]:
    pasted = (["SGLANG_VIT_ENABLE_CUDA_GRAPH=1"] if env else []) + LINE
    return run_cli(["plan", *argv, "--", *pasted])


def test_plan_shows_the_vit_component_proven() -> None:
    code, out, err = _plan("--vit-images", "1x36x52,1x64x64", "--vit-max-images", "2")
    assert code == 0, err
    assert "PROVEN SAFE (vit)" in out and "one row less" in out
    # the largest call: two 64x64 images, 8192 patch tokens, one block_input row each
    largest = max(sum(t * h * w for t, h, w in call)
                  for k in (1, 2) for call in product(IMAGES, repeat=k))
    assert f"vit.block_input: {largest:,} rows" in out
    assert "PROVEN SAFE (vit)" not in _plan()[1]


def test_plan_json_has_vit_only_when_asked() -> None:
    code, out, err = _plan("--vit-images", "1x36x52,1x64x64", "--vit-max-images", "2",
                           "--json")
    assert code == 0, err
    vit = json.loads(out)["vit"]
    assert vit["family"] == "qwen2_5_vl" and vit["max_images"] == 2
    assert vit["proof"]["ok"] and vit["proof"]["violations"] == 0
    rows = {b["name"]: b["rows"] for b in vit["buffers"]}
    assert {w["buffer"] for w in vit["proof"]["one_row_less"]} == set(rows)
    for w in vit["proof"]["one_row_less"]:
        assert w["capacity"] == rows[w["buffer"]] - 1 < w["rows"]
        assert 1 <= len(w["call"]) <= 2 and all(tuple(g) in IMAGES for g in w["call"])
    assert vit["bytes"] == sum(b["bytes"] for b in vit["buffers"]) < vit["sglang_bytes"]
    assert "notes" not in vit  # only when there are notes
    code, out, err = _plan("--json")
    assert code == 0 and "vit" not in json.loads(out)


def test_plan_notes_a_line_without_the_environment_flag() -> None:
    code, out, err = _plan("--vit-images", "1x8x8", env=False)
    assert code == 0, err
    assert "does not set SGLANG_VIT_ENABLE_CUDA_GRAPH=1" in out


@pytest.mark.parametrize("argv", [
    ["plan", "--vit-images", "1x8x8", "--engine", "sglang", "--max-running-requests", "2"],
    ["plan", "--vit-max-images", "2", "--", *LINE],
    ["plan", "--vit-images", "1x8", "--", *LINE],
    ["plan", "--vit-images", "1x9x8", "--", *LINE],  # not whole merge blocks
    ["plan", "--vit-images", "1x8x8", "--vit-max-images", "0", "--", *LINE],
    ["plan", "--vit-images", "1x8x8", "--", "vllm", "serve", str(EXAMPLE)],
    ["plan", "--vit-images", "1x8x8", "--", "python", "-m", "sglang.launch_server",
     "--model-path", "/nonexistent/model"],
])
def test_bad_vit_input_is_one_error_line(argv: list[str]) -> None:
    code, _out, err = run_cli(argv)
    assert code == 2 and err.startswith("error:") and "Traceback" not in err, (argv, err)
    assert len(err.strip().splitlines()[0]) <= 200


def test_rehearse_takes_the_tower_from_the_pasted_line() -> None:
    code, out, err = run_cli(["rehearse", "--vit-images", "1x8x8,1x4x12", "--vit-max-images",
                              "2", "--", "SGLANG_VIT_ENABLE_CUDA_GRAPH=1", *LINE[:-1], "2"])
    assert code == 0, err
    assert "  vit: 6 graphs captured, 6 replayed == eager" in out and "REHEARSED" in out


@pytest.mark.parametrize(("extra", "heads"), [([], 16), (["--tp-size", "2"], 8),
                                              (["--tp-size", "2", "--mm-enable-dp-encoder"], 16)])
def test_heads_per_rank_follow_the_lines_tp(extra: list[str], heads: int) -> None:
    """Qwen2.5-VL-7B's tower has 16 heads: split over TP, whole with a data-parallel encoder
    (the heads SGLang's own VisionAttention gets are compared in the ViT oracle tests)."""
    code, out, err = run_cli(["plan", "--vit-images", "1x8x8", "--json", "--", *LINE, *extra])
    assert code == 0, err
    assert json.loads(out)["vit"]["heads_per_rank"] == heads


def test_a_qwen3_vl_line(tmp_path: Path) -> None:
    model = write_qwen3_vl_model_dir(tmp_path / "q3")
    code, out, err = run_cli(["plan", "--vit-images", "1x16x16,2x8x8", "--vit-max-images", "2",
                              "--json", "--", "python", "-m", "sglang.launch_server",
                              "--model-path", str(model), "--max-running-requests", "4"])
    assert code == 0, err
    vit = json.loads(out)["vit"]
    assert vit["family"] == "qwen3_vl" and vit["proof"]["ok"]
    # the largest call: two 16x16 images, 512 patch tokens
    assert {b["name"]: b["rows"] for b in vit["buffers"]}["block_input"] == 512
