"""A LongCat-Flash config whose `rope_scaling` is null or absent: SGLang 0.5.23 cannot build
its attention, target or NextN draft (issue 23, s68d).

Why refused here: SGLang loads `longcat_flash` with its own LongcatFlashConfig, which calls
`PretrainedConfig.__init__` first and then sets `self.rope_scaling = rope_scaling`
(configs/longcat_flash.py:41, 62-76, 102). Under transformers 5.25 that attribute is a setter
that writes `rope_parameters` (configuration_utils.py:730-737), so a null or missing
`rope_scaling` leaves `rope_parameters` None -- a written `rope_parameters` included, which it
overwrites. Every LongCat attention then evaluates `"rope_theta" in getattr(config,
"rope_parameters", {})` (target: models/longcat_flash.py:375-378, the first module of layer 0;
NextN draft: models/longcat_flash_nextn.py:140-143): TypeError, at the model's build. An
empty dict builds (the `in` is False; `rope_theta` is read instead).

`--json-model-override-args` is applied after the load, key by key in its order
(utils/hf_transformers/config.py:405-424): `rope_scaling` through the same setter,
`rope_parameters` directly, a dict merged into a current dict (graphfit.inputs.
target_overrides); both keys end in `rope_parameters`, so the last one given decides.

Read for the target (`--model-path`) and for a local draft the EAGLE family builds
(graphfit.inputs.sglang_draft_path), both with the line's override args, as SGLang's draft
ModelConfig takes them (configs/model_config.py:950-975). The target's failure is raised at its
model build (`target_build_failure`), the draft's at the draft's build after the target's
(`draft_build_failure`, graphfit.planner.engines.sglang_draft_deepep.check).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.reading import load_json
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_path import EAGLE_FAMILY, draft_path

# LongCat-Flash's classes (the draft ModelConfig renames the first to the second,
# configs/model_config.py) and the model type SGLang's config class is registered for
ARCHITECTURES = frozenset({"LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN"})
MODEL_TYPE = "longcat_flash"
_ROPE_KEYS = ("rope_scaling", "rope_parameters")
_SITES = {"the target": "models/longcat_flash.py:375-378",
          "the draft": "models/longcat_flash_nextn.py:140-143"}


def rope_parameters_none(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> bool:
    """Whether the loaded LongcatFlashConfig's `rope_parameters` is None for the config.json
    object `data` (as written) and the override args `overrides` (module docstring)."""
    value = data.get("rope_scaling")
    for key, given in overrides.items():
        if key in _ROPE_KEYS:
            value = {**value, **given} if isinstance(value, dict) and isinstance(
                given, dict) else given
    return value is None


def _failure(model: object, values: Mapping[str, Any], who: str) -> str | None:
    """The error line where the LongCat config at `model` fails its build, else None."""
    path = model_config.config_path(model) if isinstance(model, str) else None
    if path is None:
        return None
    data = load_json(path, "model config")
    if not isinstance(data, dict) or data.get("model_type") != MODEL_TYPE:
        return None
    names = data.get("architectures")
    if not (isinstance(names, list) and names and names[0] in ARCHITECTURES):
        return None
    if not rope_parameters_none(data, target_overrides.parse(
            values.get("json_model_override_args"))):
        return None
    name = (Path(path).parent.name or "model")[:30]
    return (f"{who} {name}: rope_scaling null or absent leaves LongCat's rope_parameters "
            f"None: `\"rope_theta\" in` it fails (TypeError, {_SITES[who]})")[:200]


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`target_build_failure` and `draft_build_failure` for LongCat-Flash configs SGLang
    cannot build (module docstring)."""
    out = []
    said = _failure(values.get("model_path"), values, "the target")
    if said is not None:
        out.append(Setting("target_build_failure", said, "the model's config.json (as "
                           "SGLang's LongcatFlashConfig loads it)", FILE))
    method = str(values.get("speculative_algorithm") or "").upper()
    said = _failure(draft_path(values), values, "the draft") if method in EAGLE_FAMILY else None
    if said is not None:
        out.append(Setting("draft_build_failure", said, "the draft's config.json (as "
                           "SGLang's LongcatFlashConfig loads it)", FILE))
    return out


__all__ = ["ARCHITECTURES", "MODEL_TYPE", "rope_parameters_none", "settings"]
