"""The files a local checkpoint's quantization config is read from
(graphfit.inputs.sglang_quant_files); which file wins is compared with SGLang's own
ModelConfig in tests/oracle/test_sglang_quant_files_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import model_config
from graphfit.planner.core.errors import ConfigError


def _settings(folder: Path, model: str | None = None) -> dict[str, object]:
    return {s.field: s.value for s in model_config.quant_settings(model or str(folder))}


def test_each_file_is_read_where_sglang_reads_it(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["X"]}))
    assert _settings(tmp_path) == {}
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(
        {"quantization": {"quant_algo": "NVFP4"}}))
    got = _settings(tmp_path)
    assert json.loads(str(got["checkpoint_quant_config"]))["quant_method"] == "modelopt_fp4"
    assert "checkpoint_quant_method" not in got  # the SM100 copy reads config.json only
    # named by its config.json file, the model has no directory for SGLang to look in
    assert _settings(tmp_path, str(tmp_path / "config.json")) == {}
    (tmp_path / "quant_model_description.json").write_text(json.dumps({"a": "W8A8"}))
    got = _settings(tmp_path)
    assert json.loads(str(got["checkpoint_quant_config"]))["quant_method"] == "modelslim"


@pytest.mark.parametrize(("name", "data"), [
    ("quant_model_description.json", [1]), ("hf_quant_config.json", "FP8"),
    ("config.json", {"compression_config": 3})])
def test_a_malformed_file_is_one_error_line(tmp_path: Path, name: str, data: object) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["X"]}))
    (tmp_path / name).write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        model_config.quant_settings(str(tmp_path))
    assert name in str(caught.value) and "\n" not in str(caught.value)


def _header_file(path: Path, header: dict[str, object]) -> None:
    import struct

    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text)


def test_deepseek_v3_headers_are_read_only_where_sglang_reads_them(tmp_path: Path) -> None:
    """A DeepseekV3ForCausalLM directory without quant_method gets checkpoint_fp8_experts
    (SGLang's answer on such files: tests/oracle/test_sglang_safetensors_oracle.py); another
    class, or a checkpoint naming its method, is not read."""
    config = {"architectures": ["DeepseekV3ForCausalLM"]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    _header_file(tmp_path / "model.safetensors",
                 {"model.layers.3.mlp.experts.0.up_proj.weight": {"dtype": "F8_E4M3"}})
    assert _settings(tmp_path) == {"checkpoint_fp8_experts": True}
    (tmp_path / "config.json").write_text(json.dumps(
        {**config, "quantization_config": {"quant_method": "fp8"}}))
    assert "checkpoint_fp8_experts" not in _settings(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["Qwen3MoeForCausalLM"]}))
    assert _settings(tmp_path) == {}


def test_a_fifo_shard_is_one_error_line(tmp_path: Path) -> None:
    """SGLang would block on a FIFO; graphfit names it instead."""
    import os

    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["DeepseekV3ForCausalLM"]}))
    os.mkfifo(tmp_path / "model.safetensors")
    with pytest.raises(ConfigError, match="not a regular file") as exc:
        _settings(tmp_path)
    assert "\n" not in str(exc.value) and len(str(exc.value)) <= 200


def test_kimi_k3_takes_its_text_configs_quantization(tmp_path: Path) -> None:
    """KimiK3Config copies text_config.quantization_config over the top-level one
    (configs/kimi_k3.py:113-114); the MXFP4 pack is read from it
    (model_override_base.py:366-377)."""
    pack = {"quant_method": "compressed-tensors",
            "config_groups": {"g": {"format": "mxfp4-pack-quantized"}}}
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3",
        "quantization_config": {"quant_method": "fp8"}, "text_config": {
            "quantization_config": pack}}))
    got = _settings(tmp_path)
    assert got["kimi_mxfp4_pack"] is True
    assert got["checkpoint_quant_method"] == "compressed-tensors"
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3",
        "quantization_config": pack}))
    got = _settings(tmp_path)
    assert got["kimi_mxfp4_pack"] is False  # the top-level config is not the text model's
