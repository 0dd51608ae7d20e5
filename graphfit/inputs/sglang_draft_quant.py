"""The draft model's quantization on a pasted SGLang line, where graphfit can restate it.

SGLang gives the draft `--speculative-draft-model-quantization`, else the target's
`--quantization` as written (`unquant` is none; arg_groups/serving_hook.py:676-708). The
draft's own ModelConfig verifies that flag against the DRAFT checkpoint
(configs/model_config.py:923-978, 2000-2160) and the draft model loader builds its config
class (model_loader/loader.py:214-270, weight_utils.py:269-395). A flag SGLang accepts for
the target can stop the draft worker: an NVFP4 target's `--quantization modelopt` becomes
modelopt_fp4 through the target's checkpoint (base_config.py:223-253), while an unquantized
draft keeps `modelopt`, whose config class needs an hf_quant_config.json the draft lacks.

Why restated only for an unquantized LOCAL draft (config.json with no quantization_config /
compression_config, no quantization file in its directory): there nothing of the draft's
checkpoint is read, so the flag alone decides --

* not a CUDA method (gptq, mlx_q4, mlx_q8): "Unknown quantization method"
  (model_config.py:2150-2155);
* a config class that needs a quantization file the draft directory lacks: "Cannot find the
  config file" (weight_utils.py:379-389; `FILE_METHODS`);
* a class built without arguments that refuses that (`ARGLESS_REFUSED`, weight_utils.py:375);
* otherwise the loader's GPU and dtype checks on the draft (loader.py:253-270), which need the
  GPU and the draft dtype: the method goes to SglangOptions.draft_quantization and
  graphfit.planner.engines.sglang_draft_quant checks it.

A quantized draft checkpoint (the draft takes its checkpoint's method where the flag clashes,
model_config.py:2119-2133), a hub-id draft, humming (it needs the optional humming-kernels
package, humming.py) and quark_int4fp8_moe (its config class reads the tensor-parallel rank)
are not restated: nothing is checked, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.sglang_quant_config_file import CONFIG_FILES
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_quantization import KNOWN_METHODS, UNQUANT

FLAG = "--speculative-draft-model-quantization"
# the algorithms whose worker builds a draft ModelConfig of --speculative-draft-model-path
ALGORITHMS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "DFLASH", "DSPARK"})
# each CUDA config class's get_config_filenames() where it names files (the loader looks for a
# *.json ending so in the draft directory, weight_utils.py:377-389): the target's table
FILE_METHODS = CONFIG_FILES
# classes with no config file that the loader builds as `quant_cls()` (weight_utils.py:375)
# and that refuse it
ARGLESS_REFUSED: dict[str, tuple[str, str]] = {
    "compressed-tensors": ("CompressedTensorsConfig() lacks 5 required arguments",
                           "compressed_tensors.py:118"),
    "quark": ("QuarkConfig(): Either quant_config or online_scheme must be provided",
              "quark.py:348"),
}
NOT_RESTATED = frozenset({"humming", "quark_int4fp8_moe"})
# every file name a config class looks for, plus the ModelOpt file the ModelConfig reads
# (model_config.py:1746-1822): a draft directory holding one is not "unquantized"
_QUANT_FILES = frozenset(name for names, _ in FILE_METHODS.values() for name in names)


def draft_flag(values: Mapping[str, Any]) -> str | None:
    """The draft ModelConfig's quantization before verification: the draft flag, else the
    target's as written; `unquant` is none (serving_hook.py:685-708)."""
    flag = values.get("speculative_draft_model_quantization")
    if flag is None:
        flag = values.get("quantization")
    if not isinstance(flag, str) or flag.lower() == UNQUANT:
        return None
    return flag.lower()  # _verify_quantization lower-cases it (model_config.py:2057-2058)


def _unquantized(path: Path, data: Mapping[str, Any]) -> bool:
    """No quantization metadata in the draft's config.json (top level, text_config:
    checkpoint_quantization.py:75-98) nor a quantization file beside it."""
    text = data.get("text_config")
    for where in (data, text if isinstance(text, dict) else {}):
        if where.get("quantization_config") is not None or where.get(
                "compression_config") is not None:
            return False
    folder = path.parent
    return not any(entry.name.endswith(name) for entry in folder.glob("*.json")
                   for name in _QUANT_FILES)


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """The draft's quantization (module docstring): SGLang's refusal as one ConfigError, the
    method for the planner's GPU / dtype checks, or nothing where it is not restated."""
    method = str(values.get("speculative_algorithm") or "").upper()
    draft = values.get("speculative_draft_model_path")
    flag = draft_flag(values)
    if method not in ALGORITHMS or not isinstance(draft, str) or flag is None:
        return []
    path = model_config.config_path(draft)
    if path is None:
        return []
    data = target_overrides.apply(model_config.load_config(path), target_overrides.parse(
        values.get("json_model_override_args")))
    if not _unquantized(path, data) or flag in NOT_RESTATED:
        return []
    given = (FLAG if values.get("speculative_draft_model_quantization") is not None
             else "--quantization (the draft inherits it)")
    name = path.parent.name or shown_path(path.parent)
    if flag not in KNOWN_METHODS:
        raise ConfigError(f"{given}: Unknown quantization method: {flag}, kept by the "
                          f"unquantized draft {name}'s ModelConfig "
                          f"(configs/model_config.py:2150-2155)")
    if flag in FILE_METHODS:
        _names, cite = FILE_METHODS[flag]
        raise ConfigError(f"{given}: Cannot find the config file for {flag} in the draft "
                          f"{name} (model_loader/weight_utils.py:379-389; {cite})")
    if flag in ARGLESS_REFUSED:
        text, cite = ARGLESS_REFUSED[flag]
        raise ConfigError(f"{given}: {flag} on an unquantized draft: {text} ({cite}, "
                          f"weight_utils.py:375)")
    return [Setting("draft_quantization", flag, f"{given} (the draft's ModelConfig)",
                    COMMAND_LINE)]


__all__ = ["ALGORITHMS", "ARGLESS_REFUSED", "FILE_METHODS", "FLAG", "NOT_RESTATED",
           "draft_flag", "settings"]
