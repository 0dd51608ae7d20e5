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

A quantized LOCAL draft checkpoint (a quantization config in config.json, or a local
hf_quant_config.json / ModelSlim description, graphfit.inputs.sglang_quant_files) is read too
(`_quantized`, issue 23 s50r): its config goes to SglangOptions.draft_quant_config and the
flag (None: none) to draft_quantization; the draft ModelConfig's answer -- the draft takes its
checkpoint's method where the flag clashes (model_config.py:2122-2137) -- hangs on the GPU
(the AWQ / GPTQ Marlin overrides), so graphfit.planner.engines.sglang_draft_quant settles it
and makes the loader's GPU / dtype checks. The class the loader builds from the draft's
config (graphfit.inputs.sglang_quant_config_file, the target's rule) is checked here on the
method the draft settles on an SM 9.0 GPU.

The draft is the line's `--speculative-draft-model-path`, else the checkpoint SGLang fills in
for it (the target's own for NEXTN-shipping classes, a bundled or `dspark/` DSPARK draft:
graphfit.inputs.sglang_draft_path).

A hub-id draft is not restated: nothing is checked, as before. quark_int4fp8_moe is
restated since s60d like any other method: its config class builds with no arguments
(quark_int4fp8_moe.py:57-84; it names the TP rank only in a progress bar), so the loader's GPU
(SM 7.0) and dtype (float16 / bfloat16) checks decide. humming is
restated as the target's is (issue 23, s54d): its config class takes any config
(humming.py:450-478, 496-497; its override makes a quantized draft's method humming, :502-508)
and the loader's GPU (SM 7.5, :488-489) and dtype (bfloat16 / float16, :484-485) checks
decide; graphfit assumes the optional humming-kernels package it imports (:54-80) is
installed, as for a target's `--quantization humming`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs import sglang_quant_config_file as config_file
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.sglang_draft_path import draft_path
from graphfit.inputs.sglang_quant_config_file import CONFIG_FILES
from graphfit.inputs.sglang_quant_files import checkpoint_quant
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_quant_overrides as overrides
from graphfit.planner.engines.sglang_draft_quant import draft_method
from graphfit.planner.engines.sglang_quantization import KNOWN_METHODS, UNQUANT

FLAG = "--speculative-draft-model-quantization"
# the algorithms whose worker builds a draft ModelConfig of --speculative-draft-model-path
ALGORITHMS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "DFLASH", "DSPARK"})
# each CUDA config class's get_config_filenames() where it names files (the loader looks for a
# *.json ending so in the draft directory, weight_utils.py:377-389): the target's table
FILE_METHODS = CONFIG_FILES
# classes with no config file that the loader builds as `quant_cls()` (weight_utils.py:375)
# and that refuse it
ARGLESS_REFUSED = config_file.ARGLESS_REFUSED  # the target's table (issue 23 s63c)
# methods whose draft is not checked (none since s60d: quark_int4fp8_moe is; the humming
# oracle's plant puts humming back here)
NOT_RESTATED: frozenset[str] = frozenset()
# every file name a config class looks for, plus the ModelOpt file the ModelConfig reads
# (model_config.py:1746-1822): a draft directory holding one is not "unquantized"
_QUANT_FILES = frozenset(name for names, _ in FILE_METHODS.values() for name in names)
# the keys of the draft checkpoint's config that its ModelConfig reads: the method and what
# the overrides compare (sglang_quant_overrides: quant_algo, AWQ / GPTQ shapes)
OVERRIDE_KEYS = ("quant_method", "quant_algo", "bits", "group_size", "zero_point", "sym",
                 "desc_act", "checkpoint_format", "is_marlin_format")
# the GPU the loader's class check assumes (its class is the same on every SM80+ GPU)
CLASS_CHECK_GPU = 90


def draft_flag(values: Mapping[str, Any]) -> str | None:
    """The draft ModelConfig's quantization before verification: the draft flag, else the
    target's as written; `unquant` is none (serving_hook.py:685-708)."""
    flag = values.get("speculative_draft_model_quantization")
    if flag is None:
        flag = values.get("quantization")
    if not isinstance(flag, str) or flag.lower() == UNQUANT:
        return None
    return flag.lower()  # _verify_quantization lower-cases it (model_config.py:2057-2058)


def unchecked_note(values: Mapping[str, Any]) -> list[str]:
    """A hub-id draft (issue 23 s63c): its ModelConfig and loader run the target's search on
    the draft repository's *.json (the draft worker's get_quant_config, weight_utils.py:
    327-394) for the draft's flag; graphfit downloads nothing, so the target's note
    (graphfit.inputs.sglang_quant_config_file.unchecked_note) is said for the draft."""
    method = str(values.get("speculative_algorithm") or "").upper()
    draft = draft_path(values)
    if method not in ALGORITHMS or not isinstance(draft, str) or (
            model_config.config_path(draft) is not None or Path(draft).expanduser().exists()):
        return []
    explicit = values.get("speculative_draft_model_quantization") is not None
    return config_file.unchecked_note(
        draft_flag(values), draft, FLAG if explicit else "--quantization",
        " (the draft)" if explicit else " (the draft, which inherits the flag)")


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
    draft = draft_path(values)  # the line's, else the one SGLang fills in (s50r)
    flag = draft_flag(values)
    if method not in ALGORITHMS or not isinstance(draft, str):
        return []
    path = model_config.config_path(draft)
    if path is None:
        return []
    data = target_overrides.apply(model_config.load_config(path), target_overrides.parse(
        values.get("json_model_override_args")))
    if flag in NOT_RESTATED:
        return []
    if not _unquantized(path, data):
        return _quantized(path, data, values)
    if flag is None:
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


def _quantized(path: Path, data: Mapping[str, Any], values: Mapping[str, Any]
               ) -> list[Setting]:
    """A quantized local draft (module docstring): its config (the keys its ModelConfig
    reads) and the flag for the planner, after the loader's class check on the method the
    draft settles on an SM 9.0 GPU (the target's rule, its message naming the draft)."""
    flag = draft_flag(values)
    cfg, _ = checkpoint_quant(path, dict(data), path.parent)
    if cfg is None:
        return []  # only a quantization file the ModelConfig does not read
    kept = {key: cfg[key] for key in OVERRIDE_KEYS if key in cfg}
    try:
        text = overrides.quant_config_text(kept)
    except ConfigError:
        return []  # a config SGLang's reader stops on: not this rule's to word
    try:
        method: str | None = draft_method(flag, kept, CLASS_CHECK_GPU)
    except ConfigError:
        method = None  # refused (an unknown method): the planner says so with the GPU
    if method in NOT_RESTATED:
        return []
    try:
        if method is not None:
            config_file.check(method, str(path.parent), data)
    except ConfigError as exc:
        why = str(exc).removeprefix(f"--quantization {method}: ")
        raise ConfigError(f"the draft's quantization {method} (its own model loader): "
                          f"{why}"[:200]) from None
    given = (FLAG if values.get("speculative_draft_model_quantization") is not None
             else "the draft checkpoint's config")
    out = [Setting("draft_quant_config", text, f"{given} (the draft's ModelConfig)",
                   COMMAND_LINE)]
    if flag is not None:
        out.append(Setting("draft_quantization", flag, f"{given} (the draft's ModelConfig)",
                           COMMAND_LINE))
    return out


__all__ = ["ALGORITHMS", "ARGLESS_REFUSED", "CLASS_CHECK_GPU", "FILE_METHODS", "FLAG",
           "NOT_RESTATED", "OVERRIDE_KEYS", "draft_flag", "settings", "unchecked_note"]
