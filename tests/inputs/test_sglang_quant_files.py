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
