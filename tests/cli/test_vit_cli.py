"""`graphfit vit`: SGLang's vision-encoder graphs planned from a model directory and an image
workload (graphfit.inputs.sglang_vit reads the tower), proven, rehearsed on the CPU; bad
input is one `error:` line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit import ConfigError
from graphfit.inputs.sglang_vit import parse_images, read_geometry
from tests.helpers import ROOT, run_cli
from tests.oracle.sglang_stubs import write_qwen3_vl_model_dir

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EXAMPLE = ROOT / "examples" / "models" / "Qwen2.5-VL-7B-Instruct"


def _write(directory: Path, config: dict[str, object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_qwen3_vl_plan_is_proven_and_rehearsed(tmp_path: Path) -> None:
    model = write_qwen3_vl_model_dir(tmp_path / "q3")
    code, out, err = run_cli(["vit", str(model), "--images", "1x16x16,2x8x8",
                              "--max-images", "2", "--rehearse"])
    assert code == 0, err
    assert "PROVEN SAFE" in out and "REHEARSED" in out and "0 != eager" in out
    code, out, err = run_cli(["vit", str(model), "--images", "1x16x16", "--json"])
    data = json.loads(out)
    assert code == 0 and data["safe"] and data["keys"] == 1
    assert {b["name"]: b["rows"] for b in data["buffers"]}["block_input"] == 256


def test_geometry_of_each_family(tmp_path: Path) -> None:
    q25 = _write(tmp_path / "q25", {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "torch_dtype": "bfloat16",
        "max_position_embeddings": 128000,
        "vision_config": {"hidden_size": 1280, "num_heads": 16, "patch_size": 14,
                          "spatial_merge_size": 2, "window_size": 112, "out_hidden_size": 3584,
                          "fullatt_block_indexes": [7, 15, 23, 31], "depth": 32}})
    g = read_geometry(q25, tp=2)
    assert (g.family, g.heads_per_rank, g.head_dim, g.rotary_width, g.max_context_len) == (
        "qwen2_5_vl", 8, 80, 80, 128000)
    iv = _write(tmp_path / "iv", {
        "architectures": ["InternVLChatModel"], "force_image_size": 448,
        "vision_config": {"hidden_size": 1024, "num_attention_heads": 16, "image_size": 448,
                          "patch_size": 14}})
    assert read_geometry(iv).tokens_per_tile == 32 * 32 + 1
    # InternViT-6B: 25 heads padded with 7 dummy heads to split over 8 ranks
    iv6 = _write(tmp_path / "iv6", {
        "architectures": ["InternVLChatModel"],
        "vision_config": {"hidden_size": 3200, "num_attention_heads": 25, "image_size": 448,
                          "patch_size": 14, "num_dummy_heads": 7}})
    g6 = read_geometry(iv6, tp=8)
    assert (g6.heads_per_rank, g6.head_dim) == (4, 128)
    # SGLang recomputes the dummy heads from the attention TP size whatever config.json says
    # (update_vit_attn_dummy_heads_config, vision_utils.py:19-23): on 3 ranks 25 heads become
    # 27, 9 per rank (compared with SGLang's own code in the ViT oracle tests)
    assert read_geometry(iv6, tp=3).heads_per_rank == 9
    # a data-parallel encoder: InternVL's runs whole, with the dummy heads of the TP size
    assert read_geometry(iv6, tp=8, dp_encoder=True).heads_per_rank == 32
    with pytest.raises(ConfigError):
        read_geometry(iv6, tp=0)
    write_qwen3_vl_model_dir(tmp_path / "q3")
    g3 = read_geometry(tmp_path / "q3")
    assert (g3.family, g3.deepstack, g3.rotary_width) == ("qwen3_vl", 3, 32)


@pytest.mark.parametrize(("config", "argv"), [
    ({"architectures": ["LlamaForCausalLM"]}, ["--images", "1x2x2"]),
    ({"architectures": ["Qwen2_5_VLForConditionalGeneration"],
      "vision_config": {"hidden_size": 64, "num_heads": 4, "patch_size": 14}},
     ["--images", "1x2x2"]),  # no window_size
    ({"architectures": ["Qwen3VLForConditionalGeneration"],
      "vision_config": {"hidden_size": -1, "num_heads": 4, "patch_size": 16}},
     ["--images", "1x2x2"]),
    ({"architectures": ["Qwen3VLForConditionalGeneration"],
      "vision_config": {"hidden_size": 64, "num_heads": 4, "patch_size": 16}},
     ["--images", "1x2"]),
    ({"architectures": ["Qwen3VLForConditionalGeneration"],
      "vision_config": {"hidden_size": 64, "num_heads": 4, "patch_size": 16}},
     ["--images", "1x2x2", "--max-images", "0"]),
])
def test_bad_input_is_one_error_line(tmp_path: Path, config: dict[str, object],
                                     argv: list[str]) -> None:
    model = _write(tmp_path / "m", config)
    code, out, err = run_cli(["vit", str(model), *argv])
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and len(lines[0]) <= 200


def test_parse_images() -> None:
    assert parse_images("1x2x4, 2x8x8", 3).grids == ((1, 2, 4), (2, 8, 8))
    with pytest.raises(ConfigError):
        parse_images("1x2x4,", 1)


@pytest.mark.parametrize(("value", "noted"), [("1", True), ("True", True), ("y", True),
                                              ("0", False), ("on", False)])
def test_a_pasted_line_that_turns_vit_graphs_on_is_noted(value: str, noted: bool) -> None:
    """SGLang's EnvBool takes true / 1 / yes / y, any case (environ.py:143-150)."""
    code, out, err = run_cli(["plan", "--", f"SGLANG_VIT_ENABLE_CUDA_GRAPH={value}", "python",
                              "-m", "sglang.launch_server", "--model-path",
                              str(EXAMPLE), "--max-running-requests", "8"])
    assert code == 0, err
    assert (f"graphfit vit {EXAMPLE}" in out + err) is noted


def test_the_example_model_plan() -> None:
    code, out, err = run_cli(["vit", str(EXAMPLE), "--images",
                              "1x36x52,1x64x64", "--max-images", "2"])
    assert code == 0, err
    assert "6 reachable keys" in out and "block_ws: 8192 rows x [16, 80]" in out


def test_kimi_k3_lists_its_capturable_keys_and_the_graph_bound(tmp_path: Path) -> None:
    model = _write(tmp_path / "k3", {
        "architectures": ["KimiK3ForConditionalGeneration"],
        "vision_config": {"vt_hidden_size": 1152, "vt_num_attention_heads": 16,
                          "hidden_size": 7168, "num_attention_heads": 64}})
    assert read_geometry(model).hidden_size == 1152
    code, out, _ = run_cli(["vit", str(model), "--images", "1x64x64,1x100x100",
                              "--max-images", "2", "--json"])
    data = json.loads(out)
    # an image of 1x100x100 (10000 patches) is over SGLang's default max_seqlen 6144 (per
    # image): of the 6 orders only (64x64) and (64x64, 64x64) are capturable; at most 2 graphs
    assert code == 0 and data["keys"] == 2 and data["max_graphs"] == 2


def test_capacity_audit() -> None:
    base = ["vit", str(EXAMPLE), "--images", "1x36x52,1x64x64", "--max-images", "2"]
    code, out, _ = run_cli([*base, "--capacity", "block_ws=4096", "--rehearse"])
    assert code == 1 and "UNSAFE" in out and "block_ws 5968 > 4096" in out
    code, out, _ = run_cli([*base, "--capacity", "block_ws=8192,rotary_cos=8192"])
    assert code == 0 and "PROVEN SAFE" in out
    for bad in ("nope=3", "block_ws", "block_ws=-1"):
        code, out, err = run_cli([*base, "--capacity", bad])
        assert code == 2 and err.startswith("error:") and len(err.strip()) <= 200, bad


def test_rehearse_includes_the_vit_graphs() -> None:
    code, out, err = run_cli(["rehearse", "--engine", "sglang", "--max-running-requests", "2",
                              "--vit-model", str(EXAMPLE),
                              "--vit-images", "1x8x8,1x4x12", "--vit-max-images", "2"])
    assert code == 0, err
    assert "  vit: 6 graphs captured, 6 replayed == eager" in out and "REHEARSED" in out
    for argv in (["--vit-images", "1x8x8"],
                 ["--vit-model", str(EXAMPLE)],
                 ["--engine", "vllm", "--vit-model", str(EXAMPLE), "--vit-images", "1x8x8"]):
        code, out, err = run_cli(["rehearse", "--max-num-seqs", "2", *argv])
        assert code == 2 and err.startswith("error:") and "Traceback" not in err, argv


def test_nested_and_mapped_towers(tmp_path: Path) -> None:
    """Qwen3-Omni's tower sits under thinker_config and never runs data-parallel; Intern-S1
    is InternVL's tower (heads split even with --dp-encoder); Bailing MoE V3 VL is Qwen3-VL's
    (the oracle tests compare each with SGLang's own classes)."""
    vision = {"hidden_size": 1152, "num_heads": 16, "patch_size": 16, "spatial_merge_size": 2,
              "deepstack_visual_indexes": [8, 16, 24]}
    omni = _write(tmp_path / "omni", {"architectures": ["Qwen3OmniMoeForConditionalGeneration"],
                                      "thinker_config": {"vision_config": vision}})
    g = read_geometry(omni, tp=2, dp_encoder=True)
    assert (g.family, g.heads_per_rank, g.deepstack) == ("qwen3_vl", 8, 3)
    bailing = _write(tmp_path / "bl", {"architectures": ["BailingMoeV3VLForConditionalGeneration"],
                                       "vision_config": vision})
    assert read_geometry(bailing, tp=2, dp_encoder=True).heads_per_rank == 16
    s1 = _write(tmp_path / "s1", {"architectures": ["InternS1ForConditionalGeneration"],
                                  "vision_config": {"hidden_size": 3200,
                                                    "num_attention_heads": 25,
                                                    "image_size": [448, 448],
                                                    "patch_size": [14, 14]}})
    assert read_geometry(s1, tp=4, dp_encoder=True).heads_per_rank == 7  # 28 heads / 4
    # no thinker_config: the config class builds its default thinker, whose default vision
    # config is the tower; a top-level vision_config is not read (the oracle's
    # test_qwen3_omni_and_bailing_v3_defaults_are_their_config_classes compares with it)
    top = _write(tmp_path / "top", {"architectures": ["Qwen3OmniMoeForConditionalGeneration"],
                                    "vision_config": {**vision, "hidden_size": 64}})
    g = read_geometry(top)
    assert (g.hidden_size, g.num_heads, g.patch_size) == (1152, 16, 16)
    broken = _write(tmp_path / "broken", {"architectures": ["Qwen3OmniMoeForConditionalGeneration"],
                                          "thinker_config": [vision]})
    with pytest.raises(ConfigError, match="thinker_config"):
        read_geometry(broken)
