"""A Qwen3.5 / Qwen4-Exp MTP draft whose checkpoint's quantization SGLang 0.5.23 drops for
the MTP module (issue 23, s68d).

Why read: the MTP class builds its one layer with `_mtp_quant_config(quant_config)`, not the
loader's config (models/qwen3_5_mtp.py:50-91, 123; Qwen4-Exp's subclass calls the same
function, models/qwen4_exp_mtp.py:19, 47). That function returns None -- the layer, its
experts included, is built unquantized -- where (paths under `sglang/srt/`):

* the config is ModelOpt MIXED_PRECISION (`modelopt_mixed`) and no `quantized_layers` name
  starts with `mtp.` (qwen3_5_mtp.py:59-63; the map as ModelOptMixedPrecisionConfig reads it,
  flat or under `quantization`, layers/quantization/modelopt_quant.py:850-880; the MTP class
  has no weight-name mapper to rename it, model_loader/loader.py:273-280);
* the config is ModelOpt FP4 (`modelopt_fp4`) of a serialized NVFP4 checkpoint: its
  `quant_algo` contains "NVFP4" (qwen3_5_mtp.py:64-68; modelopt_quant.py:1616-1680);
* the config is Quark (`quark`) and its `exclude` list holds an `mtp.` entry naming
  `mlp.experts` (qwen3_5_mtp.py:76-89; quark/quark.py:355).

So a quantized checkpoint's MoE MTP draft meets DeepEPMoE's UNQUANTIZED assert under a
DeepEP / pplx draft backend (graphfit.planner.engines.sglang_draft_deepep), never the
quantized ones. This module says which method's config the MTP drops; the planner compares it
with the method the draft's ModelConfig settles (flag against checkpoint, on the GPU:
graphfit.planner.engines.sglang_draft_quant). The NPU branch (:69-70) is not CUDA's.

Read where the draft is a local checkpoint SGLang renames to one of these classes and a
`--speculative-moe-a2a-backend` is given (the only rule that reads it), with the line's
`--json-model-override-args`; the config the draft loader hands the quantization class:
config.json's `quantization_config`, else a local hf_quant_config.json
(model_loader/weight_utils.py:327-394).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_path import a2a_draft_config
from graphfit.inputs.sglang_quant_files import HF_QUANT, hf_quantization_config
from graphfit.planner.engines.sglang_draft_deepep import MTP_CLASSES
from graphfit.planner.engines.sglang_draft_moe_classes import MOE_DRAFTS

SITE = "models/qwen3_5_mtp.py:50-91"


def _flat(cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    """A ModelOpt config's quantization section: the flat form where `quant_algo` is given
    (config.json), else the nested `quantization` (hf_quant_config.json;
    modelopt_quant.py:1615-1616, 856-880)."""
    if cfg.get("quant_algo") is not None:
        return cfg
    nested = cfg.get("quantization")
    return nested if isinstance(nested, Mapping) else {}


def dropped_method(cfg: Mapping[str, Any]) -> str | None:
    """The method whose config `_mtp_quant_config` drops for the checkpoint quantization
    config `cfg` (module docstring), or None where it keeps every one."""
    method = cfg.get("quant_method")
    if isinstance(method, str) and method.lower() == "quark":
        excludes = cfg.get("exclude", [])
        if isinstance(excludes, list) and any(
                isinstance(layer, str) and layer.startswith("mtp.") and "mlp.experts" in layer
                for layer in excludes):
            return "quark"
        return None
    section = _flat(cfg)
    algo = section.get("quant_algo")
    if algo == "MIXED_PRECISION":
        layers = section.get("quantized_layers")
        if isinstance(layers, Mapping) and not any(
                str(name).startswith("mtp.") for name in layers):
            return "modelopt_mixed"
        return None
    if isinstance(algo, str) and "NVFP4" in algo:
        return "modelopt_fp4"
    return None


def checkpoint_config(path: Path, data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The config the draft's loader passes its quantization class: config.json's
    `quantization_config`, else the draft directory's hf_quant_config.json."""
    quant = hf_quantization_config(path, dict(data))
    if isinstance(quant, Mapping):
        return quant
    file = path.parent / HF_QUANT
    if not file.is_file():
        return None
    try:
        loaded = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the quantization readers word this refusal
    return loaded if isinstance(loaded, Mapping) else None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_mtp_unquantized` (the dropped method) for the line's local MTP draft, else
    nothing."""
    found = a2a_draft_config(values)
    if found is None:
        return []
    path, data, first = found
    built = MOE_DRAFTS.get(first) if first is not None else None
    if built is None or built[0] not in MTP_CLASSES:
        return []
    cfg = checkpoint_config(path, data)
    dropped = dropped_method(cfg) if cfg is not None else None
    if dropped is None:
        return []
    return [Setting("draft_mtp_unquantized", dropped,
                    f"{shown_path(path)}: the MTP module drops its {dropped} config "
                    f"({SITE})", FILE)]


__all__ = ["SITE", "checkpoint_config", "dropped_method", "settings"]
