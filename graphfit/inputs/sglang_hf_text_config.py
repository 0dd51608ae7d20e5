"""Which dict of a config.json SGLang 0.5.23's `hf_text_config` is built from, for a rule that
reads the text model's own written keys (num_hidden_layers, num_loops).

The target's ModelConfig sets `hf_text_config = get_hf_text_config(hf_config)`
(configs/model_config.py:636; utils/hf_transformers/common.py:547-613):

* a `Llava*ForCausalLM` first architecture keeps the top-level config (:551-558);
* else `thinker_config` wins, then `llm_config`, then `language_config`, then `text_config`
  (:589-606). A thinker config with a `text_config` gives that (:591-598), one without it
  is the text config itself (:599-600); a null sub-config leaves the top level
  (`text_config` stays None, :611-613), except a null `llm_config` / `text_config`, whose
  `num_attention_heads` assert fails (:594, :605).

Before that, SGLang's get_config builds the sub-configs of the classes it knows
(graphfit.inputs.sglang_sub_configs.SUB_CONFIGS; transformers' Qwen2.5-Omni /
Qwen3-Omni-MoE thinker configs), which keep every written key of the dict, but which build
the sub-config from their class defaults where the file has none (measured through
SGLang's get_config: `qwen2_5_omni` without a thinker text_config reads 28 layers,
`internvl_chat` without llm_config 32): graphfit does not restate those defaults. A plain
sub-config dict of another class is turned into a bare PretrainedConfig (:565-571), and a
thinker's nested text_config dict then fails (`setattr` on a dict, :593-597).

`bare` says where the picked dict becomes a class without a `num_hidden_layers` default (a
plain sub-config dict of another class, or LlavaConfig's own top level for a
`Llava*ForCausalLM`; measured through SGLang's get_config): a key left out there reads None.

The order is graphfit.inputs.sglang_text_pick's (`PRIORITY`, `first_key`: s69s, one
statement of it); what this module adds is the reading of the classes that build their own
sub-configs, which the pick on the written file does not model.

`text_config` returns None wherever the dict is not one graphfit reads (a class default,
or a load failure another check reports), so its caller does not judge the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_text_pick
from graphfit.inputs.sglang_sub_configs import SUB_CONFIGS

SITE = "utils/hf_transformers/common.py:547-613"
# model_type -> the sub-config its class always builds (from defaults when not written)
THINKERS = ("qwen2_5_omni", "qwen3_omni_moe")
BUILT: Mapping[str, str] = {
    **{kind: name for kind, (name, _) in SUB_CONFIGS.items()},
    **dict.fromkeys(THINKERS, "thinker_config"),
}
# SGLang's own sub-config classes (plain PretrainedConfig subclasses: a written null stays
# null, where transformers' typed classes refuse it at load): bailing_moe_v2.py:157-161,
# deepseekvl2.py:675-679, InternVL's InternLM2Config (internvl.py:307-311)
UNTYPED = ("bailingmm_moe_v2_lite", "deepseek_vl_v2")
ORDER = sglang_text_pick.PRIORITY  # the pick's priority, stated once there (s69s)


def _dict(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, dict) else None


def _first_architecture(data: Mapping[str, Any]) -> str:
    names = data.get("architectures")
    first = names[0] if isinstance(names, list) and names else None
    return first if isinstance(first, str) else ""


def text_config(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The dict SGLang's hf_text_config holds for this config.json object (after the line's
    override args), or None where graphfit does not read it (module docstring)."""
    first = _first_architecture(data)
    if first.startswith("Llava") and first.endswith("ForCausalLM"):
        return data
    kind = data.get("model_type")
    built = BUILT.get(kind) if isinstance(kind, str) else None
    if built is not None and _dict(data.get(built)) is None:
        return None  # the class's own defaults
    name = sglang_text_pick.first_key(data)
    if name is None:
        return data
    if name == "text_config":  # read as before issue 23 s54d (transformers classes build it)
        nested = _dict(data[name])
        return data if nested is None else nested
    sub = data[name]
    if sub is None:  # the top level, or llm_config's assert (:594)
        return None if name == "llm_config" else data
    found = _dict(sub)
    if found is None:
        return None
    if name == "thinker_config":
        if "text_config" in found:
            nested = _dict(found["text_config"])
            return nested if kind in THINKERS else None
        return None if kind in THINKERS else found
    if name == "llm_config" and built is None and "num_attention_heads" not in found:
        return None  # the assert (:594) fails on a bare PretrainedConfig
    return found


def bare(data: Mapping[str, Any]) -> bool:
    """Whether `text_config(data)` is a dict SGLang builds a class without a
    `num_hidden_layers` default from (module docstring), so a missing key stays missing."""
    picked = text_config(data)
    if picked is None:
        return False
    kind = data.get("model_type")
    if picked is data:  # LlavaConfig's text_config is typed: a null layer count fails its load
        first = _first_architecture(data)
        nested = _dict(data.get("text_config")) or {}
        return kind == "llava" and first.startswith("Llava") and first.endswith(
            "ForCausalLM") and not ("num_hidden_layers" in nested
                                    and nested["num_hidden_layers"] is None)
    if kind in BUILT:
        return False
    return any(picked is data.get(name) for name in ORDER[:3]) \
        or picked is _dict(data.get("thinker_config"))


def keeps_null(data: Mapping[str, Any]) -> bool:
    """Whether a null written in `text_config(data)` reaches SGLang's runner as None: a bare
    config, or one of SGLang's own sub-config classes (UNTYPED; InternVL's InternLM2Config).
    transformers' typed classes refuse a null layer count when the file loads (measured)."""
    if bare(data):
        return True
    kind = data.get("model_type")
    if kind in UNTYPED:
        return True
    llm = _dict(data.get("llm_config")) or {}
    return kind == "internvl_chat" and _first_architecture(llm) == "InternLM2ForCausalLM"
