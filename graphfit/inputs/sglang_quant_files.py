"""The files a local checkpoint's quantization config comes from, read as SGLang 0.5.23's
ModelConfig reads them, so graphfit verifies `--quantization` against the config SGLang sees.

SGLang's `_verify_quantization` (configs/model_config.py:2060-2071) takes ONE config: a
ModelSlim `quant_model_description.json` in the model directory (any target model; it wins,
:1824-1836), else config.json's `quantization_config` (ModelOpt-parsed, :1727-1741), else its
`compression_config` (compressed-tensors' old key, :1743-1745), else a local
`hf_quant_config.json` (:1814-1822). Which one wins is the planner's rule
(graphfit.planner.engines.sglang_quantization.effective_config); this module only finds and
loads the files, each bounded and strict (graphfit.inputs.reading). A hub id is not looked
up: nothing is downloaded (SGLang's hub branch, :1746-1813, is not restated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphfit.inputs.reading import load_json, shown_path
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_quantization import effective_config

MODELSLIM = "quant_model_description.json"  # model_config.py:1827
HF_QUANT = "hf_quant_config.json"  # model_config.py:1814-1818


def _mapping(path: Path, what: str) -> dict[str, Any]:
    data = load_json(path, what)
    if not isinstance(data, dict):
        raise ConfigError(f"{shown_path(path)}: expected a JSON object, got {excerpt(data)} "
                          f"(SGLang stops with a TypeError reading it)")
    return data


def _key(path: Path, data: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise ConfigError(f"{shown_path(path)}: {key}: expected an object, got "
                          f"{excerpt(value)}")
    return value


def hf_quantization_config(config_json: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """config.json's `quantization_config` as SGLang's hf_config holds it: a Kimi K3 model
    (model_type kimi_k3) takes its text_config's when that has one (KimiK3Config copies it
    over the top-level one, configs/kimi_k3.py:92-97, 113-114)."""
    text = data.get("text_config") if data.get("model_type") == "kimi_k3" else None
    if isinstance(text, dict) and text.get("quantization_config") is not None:
        return _key(config_json, text, "quantization_config")
    return _key(config_json, data, "quantization_config")


def mxfp4_pack(data: dict[str, Any]) -> bool | None:
    """`_is_mxfp4_pack_quantized` (arg_groups/model_override_base.py:366-377) on a Kimi K3
    config.json: its text_config's quantization_config (KimiLinearConfig keeps the key as
    given) has a config group whose format names mxfp4. None for another model type."""
    if data.get("model_type") != "kimi_k3":
        return None
    text = data.get("text_config")
    qc = text.get("quantization_config") if isinstance(text, dict) else None
    if not isinstance(qc, dict):
        return False
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, dict):
        raise ConfigError(f"text_config.quantization_config.config_groups: expected an "
                          f"object, got {excerpt(groups)} (SGLang stops reading it)")
    return any("mxfp4" in str(g.get("format", "")) for g in groups.values()
               if isinstance(g, dict))


def checkpoint_quant(config_json: Path, data: dict[str, Any], folder: Path | None
                     ) -> tuple[dict[str, Any] | None, Path | None]:
    """(the config `_verify_quantization` reads, the file it came from), or (None, None)
    when the checkpoint has none. `config_json`: the model's config.json, `data`: its
    object; `folder`: the model directory (SGLang's model_path), None when the model was
    named by its config.json file (no directory for SGLang to look in)."""
    quant = hf_quantization_config(config_json, data)
    compression = _key(config_json, data, "compression_config")
    modelslim = hf_quant = None
    if folder is not None and (folder / MODELSLIM).is_file():  # model_config.py:1828
        modelslim = _mapping(folder / MODELSLIM, "ModelSlim description")
    if quant is None and compression is None and folder is not None and (
            (folder / HF_QUANT).exists()):  # model_config.py:1814
        hf_quant = _mapping(folder / HF_QUANT, "ModelOpt quant config")
    cfg = effective_config(quant, compression, hf_quant, modelslim)
    if cfg is None:
        return None, None
    if modelslim is not None and folder is not None:
        return cfg, folder / MODELSLIM
    if quant is None and compression is None and folder is not None:
        return cfg, folder / HF_QUANT
    return cfg, config_json


__all__ = ["HF_QUANT", "MODELSLIM", "checkpoint_quant", "hf_quantization_config", "mxfp4_pack"]
