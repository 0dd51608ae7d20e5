"""The draft checkpoint SGLang 0.5.23 loads when a pasted line names no
`--speculative-draft-model-path`: the target's own checkpoint for the model classes that ship
their NEXTN / MTP layer inside it, and a DSPARK draft bundled in the target or kept in its
`dspark/` subfolder.

* EAGLE / EAGLE3 / NEXTN (an alias of EAGLE) / STANDALONE go through `_handle_eagle_family`
  (speculative/spec_info.py:256-264), which sets the draft path to `--model-path` when the
  target's first architecture is one of `FILLED_ARCHITECTURES`
  (arg_groups/speculative_hook.py:1120-1148).
* DSPARK (`_handle_dspark`) sets it to `--model-path` when the target's config carries one of
  the prefixed dspark_* keys (speculative_hook.py:720-734; `checkpoint_bundles_dspark_draft`,
  speculative/dspark_components/dspark_config.py:162-174), else to a local target's
  `dspark/` folder when it holds a config.json (speculative_hook.py:625-638, 735-745).

Why it matters here: the draft's ModelConfig and model loader then read THAT checkpoint
(graphfit.inputs.sglang_draft_quant), so the draft's quantization rules apply to the target's
directory. Only a local target directory is read (its config.json with the line's
`--json-model-override-args`, as SGLang's ModelConfig reads it); a hub id is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides

EAGLE_FAMILY = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE"})
# speculative_hook.py:1121-1137, in SGLang's order
FILLED_ARCHITECTURES = (
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM",
    "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM",
    "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM",
    "HYV4ForCausalLM", "Qwen4ExpForConditionalGeneration")
# checkpoint_bundles_dspark_draft's keys (dspark_config.py:166-174)
DSPARK_BUNDLE_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id",
                      "dspark_target_layer_ids")
DSPARK_SUBFOLDER = "dspark"  # speculative_hook.py:622


def _target(values: Mapping[str, Any]) -> tuple[Path, Mapping[str, Any]] | None:
    """(the local target directory, its config.json with the line's overrides), or None."""
    model = values.get("model_path")
    if not isinstance(model, str):
        return None
    folder = Path(model).expanduser()
    path = model_config.config_path(model)
    if path is None or not folder.is_dir():
        return None
    return folder, target_overrides.apply(model_config.load_config(path),
                                          target_overrides.parse(
                                              values.get("json_model_override_args")))


def draft_path(values: Mapping[str, Any]) -> str | None:
    """The draft checkpoint SGLang's draft worker loads (module docstring): the line's
    `--speculative-draft-model-path`, else the one SGLang fills in, else None."""
    given = values.get("speculative_draft_model_path")
    if given is not None:
        return given if isinstance(given, str) else None
    method = str(values.get("speculative_algorithm") or "").upper()
    if method not in EAGLE_FAMILY and method != "DSPARK":
        return None
    target = _target(values)
    if target is None:
        return None
    folder, data = target
    if method == "DSPARK":
        if any(data.get(key) is not None for key in DSPARK_BUNDLE_KEYS):
            return str(values["model_path"])
        sub = folder / DSPARK_SUBFOLDER
        return str(sub) if (sub / "config.json").is_file() else None
    arch = data.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    return str(values["model_path"]) if first in FILLED_ARCHITECTURES else None


def a2a_draft_config(values: Mapping[str, Any]
                     ) -> tuple[Path, Mapping[str, Any], str | None] | None:
    """`draft_config` for a line that names a draft all-to-all backend (None without one):
    the draft MoE-class and MTP-quantization readers both start from it."""
    if values.get("speculative_moe_a2a_backend") is None:
        return None
    return draft_config(values)


def draft_config(values: Mapping[str, Any]
                 ) -> tuple[Path, Mapping[str, Any], str | None] | None:
    """The local draft's config.json path, its contents with `--json-model-override-args`
    applied (SGLang applies them to the draft too) and its first architecture; None without
    a local draft."""
    draft = draft_path(values)
    path = model_config.config_path(draft) if isinstance(draft, str) else None
    if path is None:
        return None
    data = target_overrides.apply(model_config.load_config(path), target_overrides.parse(
        values.get("json_model_override_args")))
    names = data.get("architectures")
    first = names[0] if isinstance(names, list) and names else None
    return path, data, first if isinstance(first, str) else None


__all__ = ["DSPARK_BUNDLE_KEYS", "DSPARK_SUBFOLDER", "EAGLE_FAMILY", "FILLED_ARCHITECTURES",
           "a2a_draft_config", "draft_config", "draft_path"]
