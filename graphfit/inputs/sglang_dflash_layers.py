"""Which target layers a DFLASH / DSPARK target captures, and when SGLang 0.5.23 cannot pick them.

The target's model runner resolves its aux hidden-state config at start-up
(model_runner.py:598 -> `resolve_spec_aux_hidden_state_config`,
model_runner_components/spec_aux_hidden_state.py:53-81). For the DFLASH family (DFLASH and
DSPARK, spec_info.py:126-127) on the target worker, `_resolve_dflash_aux_hidden_state`
(:199-283) parses the draft's config and:

* takes the draft's layer count, `require_num_layers()` (:219; dflash_utils.py:545-551):
  a draft config without `num_hidden_layers` (of its text config) raises; the loaded config
  carries its class's default where the file writes none (s60d:
  graphfit.inputs.sglang_draft_layer_default);
* takes the target's layer count from its hf_text_config's `num_hidden_layers` times its
  `num_loops` (default 1) (:222-233);
* resolves the layer ids (:247-250; dflash_utils.py:553-585): the draft's
  `dflash_config.target_layer_ids` (else a top-level `target_layer_ids`, dflash_utils.py:
  657-670) must each lie in [0, target layers); without them `build_target_layer_ids`
  (:348-385) picks one per draft layer, which for a draft of more than one layer needs a
  target of at least 4 layers (:371-378).

DSPARK runs the same resolution before it swaps in its own `dspark_target_layer_ids`
(:260-277), so a DSPARK draft naming only those still needs the DFLASH rule to pass.

This is a start-up failure after every argument hook: graphfit refuses the line with
SGLang's sentence (issue 23, s53k). The target's text config is the dict SGLang's
`get_hf_text_config` picks (a `thinker_config` / `llm_config` / `language_config` before a
`text_config`, utils/hf_transformers/common.py:547-613; graphfit.inputs.
sglang_hf_text_config, issue 23 s54d); where that is a class default graphfit does not
restate, the line is not judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_draft_layer_default, sglang_hf_text_config, target_overrides
from graphfit.inputs.model_config import local_config
from graphfit.planner.core.errors import ConfigError

SITE = "spec_aux_hidden_state.py:219-250"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def target_depth(target: Mapping[str, Any]) -> int | None:
    """The target's layer count as SGLang's aux resolution counts it: num_hidden_layers x
    num_loops of its text config (spec_aux_hidden_state.py:222-233). None where graphfit does
    not read it (a class-default text config, a missing or non-integer value)."""
    text = sglang_hf_text_config.text_config(target)
    if text is None:
        return None
    layers = _int(text.get("num_hidden_layers"))
    loops = _int(text.get("num_loops", 1))
    return None if layers is None or loops is None else layers * loops


def refusal(target: Mapping[str, Any], draft: Mapping[str, Any]) -> str | None:
    """SGLang's ValueError for this target / draft pair (both after the line's override
    args), worded as SGLang words it, or None where SGLang resolves the ids (or where
    graphfit does not read the target's depth). The draft has passed SGLang's DFLASH parse
    (graphfit.inputs.sglang_draft.parse_problem), so its values are well formed."""
    layers = sglang_draft_layer_default.composite_layers(draft)  # s62d: a composite class
    if layers is None:
        layers = _int(_text(draft).get("num_hidden_layers"))
    if layers is None:  # s60d: the loaded config's class default, where restated
        layers = sglang_draft_layer_default.class_default(draft)
    if layers is None:  # require_num_layers (dflash_utils.py:545-551)
        return ("DFLASH requires draft num_hidden_layers in config. Got config without "
                "num_hidden_layers.")
    depth = target_depth(target)
    if depth is None:
        text = sglang_hf_text_config.text_config(target)
        if text is not None and (sglang_hf_text_config.bare(target) or (
                "num_hidden_layers" in text and text["num_hidden_layers"] is None
                and sglang_hf_text_config.keeps_null(target))):
            # none (or null) where no class defaults it (spec_aux_hidden_state.py:223-230);
            # a class that types the key refuses a null one at load (not this rule's words)
            return ("Block-draft-with-target-kv spec requires target num_hidden_layers in "
                    "config. Got target=None.")
        return None
    if depth <= 0:  # resolve_target_layer_ids (dflash_utils.py:556-566)
        return f"target_num_layers must be positive, got {depth}."
    nested = draft.get("dflash_config")
    nested = nested if isinstance(nested, dict) else {}
    ids = nested["target_layer_ids"] if "target_layer_ids" in nested \
        else draft.get("target_layer_ids")  # dflash_utils.py:657-660
    if ids is None:
        if layers > 1 and depth - 3 < 1:  # build_target_layer_ids (:368-379)
            return ("DFlash layer selection requires num_target_layers >= 4. "
                    f"Got num_target_layers={depth}.")
        return None
    for index, value in enumerate(ids):  # :578-585, on int() of each id (:670)
        number = int(value)
        if number < 0 or number >= depth:
            return ("DFLASH target_layer_ids contains an out-of-range layer id. "
                    f"target_layer_ids[{index}]={number}, target_num_layers={depth}.")
    return None


def check(values: Mapping[str, Any], draft: Mapping[str, Any], origin: str) -> None:
    """Refuse a DFLASH / DSPARK line whose local target and draft (`draft`: the draft's
    config after the line's override args) SGLang's target runner cannot resolve, with
    SGLang's sentence. A target that is not a local directory is not read (nothing is
    downloaded); its ModelConfig applies the same override args (model_config.py:612-626)."""
    model = values.get("model_path")
    target = local_config(str(model)) if model else None
    if target is None:
        return
    overrides = target_overrides.parse(values.get("json_model_override_args"))
    target = target_overrides.apply(target, overrides) if overrides else target
    problem = refusal(target, draft)
    if problem is not None:
        raise ConfigError(f"{origin}: {problem} (SGLang's target runner, {SITE})")
