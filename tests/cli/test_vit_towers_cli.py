"""Bailing MM v1/v2 towers (chosen by vision_config) and the refused RADIO tower, through
graphfit.inputs.sglang_vit and `graphfit vit`. The SGLang side of each fact is checked by
tests/oracle/test_sglang_vit_towers_oracle.py (SGLang's constructor, runner and forwards)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.inputs.sglang_vit import read_geometry
from graphfit.planner.engines import sglang_vit as sv
from tests.helpers import run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
VISION = {"hidden_size": 1280, "num_heads": 16, "patch_size": 14, "spatial_merge_size": 2,
          "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
          "out_hidden_size": 3584, "deepstack_visual_indexes": [8, 16]}


def _write(directory: Path, config: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def _bailing(name: str | None, by_arch: bool, model_class: str, dtype: str) -> dict[str, Any]:
    vision: dict[str, Any] = dict(VISION)
    if name is not None:
        vision.update({"architectures": [name]} if by_arch else
                      {"architectures": [], "model_type": name})
    return {"architectures": [model_class], "max_position_embeddings": 4096,
            "llm_config": {"torch_dtype": dtype, "max_position_embeddings": 32768},
            "vision_config": vision}


@settings(max_examples=40)
@given(st.sampled_from([*sv.BAILING_MM_TOWERS, "SiglipVisionModel", "qwen3_vl_moe_vision",
                        None]),
       st.booleans(), st.sampled_from(sv.BAILING_MM_ARCHITECTURES),
       st.sampled_from(["bfloat16", "float16"]), st.sampled_from([1, 2, 4, 8]), st.booleans())
def test_bailing_mm_tower_is_the_one_vision_config_names(
        name: str | None, by_arch: bool, model_class: str, dtype: str, tp: int,
        dp: bool) -> None:
    with tempfile.TemporaryDirectory() as where:
        path = _write(Path(where), _bailing(name, by_arch, model_class, dtype))
        if name not in sv.BAILING_MM_TOWERS:
            with pytest.raises(ConfigError, match=r"not a tower Bailing|transformers class"):
                read_geometry(path, tp=tp, dp_encoder=dp)
            return
        g = read_geometry(path, tp=tp, dp_encoder=dp)
    assert g.family == sv.BAILING_MM_TOWERS[name]
    assert g.dtype == dtype  # the text model's (llm_config)
    assert g.heads_per_rank == (16 if dp else 16 // tp)  # data-parallel with the flag
    assert g.max_context_len is None  # never the text context: not passed to the tower
    assert g.deepstack == (2 if g.family == "qwen3_vl" else 0)
    assert (g.window_size is not None) == (g.family == "qwen2_5_vl")


def test_bailing_mm_plan_is_proven(tmp_path: Path) -> None:
    model = _write(tmp_path / "bl", _bailing("Qwen2_5_VisionTransformer", True,
                                             sv.BAILING_MM_ARCHITECTURES[1], "bfloat16"))
    code, out, err = run_cli(["vit", str(model), "--images", "1x36x52,1x64x64",
                              "--max-images", "2", "--tp", "2"])
    assert code == 0, err
    assert "qwen2_5_vl tower (hidden 1280, 8 heads per rank" in out
    assert "PROVEN SAFE" in out and "6 reachable keys" in out


@pytest.mark.parametrize("config", [
    {"architectures": ["NemotronH_Nano_VL_V2"], "vision_config": {}},
    {"architectures": ["NemotronH_Omni_Reasoning_V3"]},
    _bailing("SiglipVisionModel", True, sv.BAILING_MM_ARCHITECTURES[0], "bfloat16"),
    _bailing(None, True, sv.BAILING_MM_ARCHITECTURES[0], "bfloat16"),
    {"architectures": [sv.BAILING_MM_ARCHITECTURES[0]], "vision_config": None},
])
def test_refused_towers_are_one_error_line(tmp_path: Path, config: dict[str, Any]) -> None:
    model = _write(tmp_path / "m", config)
    code, out, err = run_cli(["vit", str(model), "--images", "1x16x16"])
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and len(lines[0]) <= 200
    assert " ... " not in lines[0]  # short enough to keep its citation whole


@pytest.mark.parametrize("model_class", ["Qwen3_5MoeForConditionalGeneration",
                                         "InternS1ProForConditionalGeneration"])
def test_qwen3_subclass_through_graphfit_vit(tmp_path: Path, model_class: str) -> None:
    """A Qwen3-VL subclass is planned by `graphfit vit` as a Qwen3-VL tower; Intern-S1-Pro's
    remote-code config without spatial_merge_size is one error line, exit 2 (SGLang's tower
    reads it with no default: the oracle test shows SGLang's constructor failing too)."""
    vision = {"hidden_size": 64, "num_heads": 4, "patch_size": 16}
    model = _write(tmp_path / "m", {"architectures": [model_class], "vision_config": vision})
    code, out, err = run_cli(["vit", str(model), "--images", "1x4x4", "--max-images", "1"])
    if model_class in sv.QWEN3_REMOTE_CONFIG:
        assert code == 2 and out == "", (out, err)
        assert err.startswith("error: ") and "spatial_merge_size missing" in err
        assert len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200
    else:
        assert code == 0, err
        assert "PROVEN SAFE" in out and "qwen3_vl" in out, out


def test_bailing_mm2_config_without_vision_config(tmp_path: Path) -> None:
    """model_type bailingmm_moe_v2_lite with no vision_config: SGLang's BailingMM2Config builds
    the default Qwen3VLMoeVisionConfig (configs/bailing_moe_v2.py:150-154), so the tower is
    Qwen3-VL's at its class defaults; with an audio_config it is one error line."""
    config = {"architectures": ["BailingMM2NativeForConditionalGeneration"],
              "model_type": "bailingmm_moe_v2_lite", "llm_config": {"torch_dtype": "bfloat16"}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    code, out, err = run_cli(["vit", str(tmp_path), "--images", "1x32x32"])
    assert code == 0, err
    assert "qwen3_vl tower (hidden 1152, 16 heads per rank, bfloat16)" in out
    (tmp_path / "config.json").write_text(json.dumps({**config, "audio_config": {}}))
    code, out, err = run_cli(["vit", str(tmp_path), "--images", "1x32x32"])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert "Audio is not supported" in lines[0]
