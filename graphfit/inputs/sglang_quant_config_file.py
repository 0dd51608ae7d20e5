"""SGLang 0.5.23's search for a quantization config file when the checkpoint's config.json
declares none: `get_quant_config` (model_loader/weight_utils.py:269-425).

With no quantization_config in config.json (nor in its text_config), and no
compression_config (`resolve_checkpoint_quant_spec`, model_loader/checkpoint_quantization.py:
53-98), the loader looks in the model directory. If the method's config class names files
(`get_config_filenames`), it globs the directory's *.json for names ending in one of them
(weight_utils.py:342-380). It refuses when none match ("Cannot find the config file for X",
:382-389; modelopt_fp4 quantizes online instead, :383-388) and when more than one does
(:390-394). So `--quantization modelopt_fp8` on a local checkpoint without
hf_quant_config.json does not start.

Why in inputs: the answer hangs on the model directory's file names, which only the reader
sees. A hub id is not looked up (SGLang downloads its *.json, :360-372), nor is a model named by
its config.json file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.sglang_quant_files import checkpoint_quant
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_quantization import check_clash, checkpoint_method

_Q = "layers/quantization/"
# each method's config class's get_config_filenames, where it has any (the others: [], no
# file needed; mxfp8 / quark_mxfp4 / gguf / bitsandbytes build without one,
# weight_utils.py:276-278, 326-366)
CONFIG_FILES: dict[str, tuple[tuple[str, ...], str]] = {
    "modelopt": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "modelopt_fp8": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "modelopt_mixed": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "petit_nvfp4": (("hf_quant_config.json",), _Q + "petit.py:66-68"),
    "awq": (("quant_config.json", "quantize_config.json"), _Q + "awq/awq.py:118-124"),
    "awq_marlin": (("quantize_config.json",), _Q + "awq/awq.py:310-312"),
    "gptq_marlin": (("quantize_config.json",), _Q + "gptq/gptq.py:389-391"),
    "moe_wna16": (("quantize_config.json",), _Q + "moe_wna16.py:129-131"),
    "auto-round": (("quantization_config.json",), _Q + "auto_round.py:134-136"),
    "modelslim": (("quant_model_description.json",), _Q + "modelslim/modelslim.py:250-252"),
}
WHERE = "model_loader/weight_utils.py"


def declares_quantization(data: Mapping[str, Any]) -> bool:
    """`_select_hf_quant_metadata` (checkpoint_quantization.py:53-74) finds a config:
    quantization_config, text_config.quantization_config or compression_config."""
    text = data.get("text_config")
    return (data.get("quantization_config") is not None
            or (isinstance(text, Mapping) and text.get("quantization_config") is not None)
            or data.get("compression_config") is not None)


def check(flag: object, model: str, data: Mapping[str, Any]) -> None:
    """Refuse `--quantization flag` as SGLang's loader does on a local model directory
    `model` whose config.json (`data`) declares no quantization. The method is the one
    `_verify_quantization` leaves (`check_clash` on the config it reads: a local
    hf_quant_config.json or ModelSlim description, graphfit.inputs.sglang_quant_files); a
    line it refuses, or whose answer hangs on the GPU, is that rule's, not this one's."""
    folder = Path(model).expanduser()
    path = folder / "config.json"
    if not isinstance(flag, str) or not folder.is_dir() or declares_quantization(data):
        return
    cfg, _ = checkpoint_quant(path, dict(data), folder)
    try:
        method = check_clash(flag, None if cfg is None else checkpoint_method(cfg), cfg, None)
    except ConfigError:
        return
    if method is None or method not in CONFIG_FILES:
        return
    names, cite = CONFIG_FILES[method]
    found = sorted(p.name for p in folder.glob("*.json") if p.name.endswith(names))
    if not found:
        raise ConfigError(f"--quantization {method}: SGLang cannot find the config file, "
                          f"no {' / '.join(names)} in the model directory "
                          f"({WHERE}:382-389, {cite.removeprefix(_Q)})")
    if len(found) > 1:
        raise ConfigError(f"--quantization {method}: SGLang finds several config files "
                          f"({', '.join(found)[:60]}) and refuses ({WHERE}:390-394)")


def check_model(flag: object, model: str) -> None:
    """`check` on a pasted line's `--model-path`: a local directory's config.json is read
    (graphfit.inputs.model_config.load_config); anything else is left alone."""
    folder = Path(model).expanduser()
    path = model_config.config_path(model)
    if not isinstance(flag, str) or path is None or not folder.is_dir():
        return
    check(flag, model, model_config.load_config(path))


__all__ = ["CONFIG_FILES", "check", "check_model", "declares_quantization"]
