"""A Step-3.5 / 3.7 or Exaone-MoE TARGET config.json without the layer entry SGLang 0.5.23's
model build reads, or with one it cannot read (issue 23, s68d; the drafts' rule is
graphfit.inputs.sglang_draft_layer_entries, s67d).

Why refused here: SGLang reads these entries unguarded for every decoder layer of the
target, so such a model never starts, whatever the line. Paths under `sglang/srt/`:

* Step-3.5 (`Step3p5ForCausalLM`) and Step-3.7 (its Step-3.5 text config): each decoder layer
  asks `_is_moe_layer` for itself and the next layer (models/step3p5.py:475-476, 481), which
  runs `{int(x) for x in config.moe_layers_enum.split(",")}` (:543-545) -- the same parse on
  every layer, so layer 0 fails as the draft's layer 45 does: a missing key (SGLang's
  Step3p5Config default, a tuple) or any non-string is an AttributeError, a piece `int`
  refuses a ValueError. Before that, at the config's load in SGLang's resolution,
  transformers 5.25's Step3p7TextConfig parses the key (configuration_step3p7.py:212-218):
  a non-iterable value or a bad non-blank piece is refused there
  (graphfit.inputs.sglang_draft_layer_entries.entry_failure says which stage).
* Exaone-MoE (`ExaoneMoEForCausalLM` / `ExaoneMoeForCausalLM`): each decoder layer, after its
  attention, reads `config.is_moe_layer[layer_id]` and, below the last layer,
  `[layer_id + 1]` (models/exaone_moe.py:466, 497-502): indices 0 to num_hidden_layers - 1 in
  order, so the first index the value cannot give fails (absent: AttributeError, the key is
  not in transformers' ExaoneMoeConfig; a shorter list or string: IndexError; an object:
  KeyError, JSON keys being strings; null, a number or a bool: TypeError).

The target's `--model-path` config.json is read with the line's `--json-model-override-args`
(graphfit.inputs.model_config.load_config applies them). A load failure is refused with the
line's reading errors (SGLang's resolution); a build failure goes to
SglangOptions.target_build_failure, raised at the model's build.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_layer_entries import entry_failure
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_draft_moe_classes import MOE_LAYER_KEYS

TARGETS = frozenset({"Step3p5ForCausalLM", "Step3p7ForConditionalGeneration",
                     "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM"})
_SITES = {"ids": "models/step3p5.py:475-476, 543-545",
          "flags": "models/exaone_moe.py:466, 497-502"}
_LOAD_SITE = "transformers configuration_step3p7.py:212-218"


def target_failure(first: str, data: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(the entry's name, "load" or "build", the exception) where SGLang cannot load or build
    the target of architecture `first` with config `data` (module docstring), else None."""
    entry = MOE_LAYER_KEYS.get(first)
    if first not in TARGETS or entry is None:
        return None
    key, _draft_layer, in_text, form = entry
    if form == "ids":  # the same parse on every layer: the draft's answer
        return entry_failure(first, data)
    where = data.get("text_config") if in_text else data
    if not isinstance(where, Mapping):
        return None
    if key not in where:
        return key, "build", f"AttributeError: no attribute {key!r}"
    layers = where.get("num_hidden_layers")
    if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
        return None  # another reader's refusal
    value = where[key]
    for layer in range(min(layers, 4096)):
        try:
            value[layer]
        except (IndexError, KeyError, TypeError) as exc:
            return key, "build", f"{type(exc).__name__}: {exc}"
    return None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`target_build_failure` where the target's build fails on its layer entry; a load
    failure raised as the line's ConfigError (module docstring)."""
    model = values.get("model_path")
    path = model_config.config_path(model) if isinstance(model, str) else None
    if path is None:
        return []
    data = model_config.load_config(path)
    names = data.get("architectures")
    first = names[0] if isinstance(names, list) and names else None
    said = target_failure(first, data) if isinstance(first, str) else None
    if said is None:
        return []
    key, stage, why = said
    name = (Path(path).parent.name or "model")[:40]
    if stage == "load":
        raise ConfigError(f"the target {name}: {key!r} fails its config load ({why[:70]}; "
                          f"{_LOAD_SITE})"[:200])
    site = _SITES[MOE_LAYER_KEYS[str(first)][3]]
    return [Setting("target_build_failure",
                    f"the target {name}: {key!r} fails the model build ({why[:70]}; "
                    f"{site})"[:200],
                    "the model's config.json (as SGLang's model build reads it)", FILE)]


__all__ = ["TARGETS", "settings", "target_failure"]
