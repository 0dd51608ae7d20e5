"""The RoPE dicts a written sub-config dict SGLang 0.5.23 turns into a bare PretrainedConfig
fails to load with (issue 23, s69f).

`get_hf_text_config` (utils/hf_transformers/common.py:563-571) builds `PretrainedConfig(**sub)`
from every written `text_config` / `llm_config` / `language_config` / `thinker_config` dict,
picked or not (graphfit.inputs.sglang_text_pick). transformers 5.25's base class (the
oracle's) has no `rope_parameters` attribute, so its `__post_init__` standardizes a RoPE dict
only where the dict writes both `rope_scaling` and `rope_theta` (configuration_utils.py:
472-479), and it then reads `max_position_embeddings`, which the keyword loop sets only
later (:507-513): a llama3 / yarn / longrope `rope_scaling` there fails, AttributeError
(modeling_rope_utils.py:860, `setdefault`'s argument read first). Otherwise `rope_scaling`
and `rope_parameters` are set as written, in the dict's order (the later one wins: the
`rope_scaling` setter writes `rope_parameters`, configuration_utils.py:730-737), and
`validate_rope` (modeling_rope_utils.py:885-931) checks the dict left:

- a value that is not a dict (and not empty) fails (`.get` on it, :908);
- each type's required keys (`_validate_<type>_rope_parameters`, :938-1136: `REQUIRED`),
  else KeyError (:1170); a type with no validation function loads (a warning, :915-917);
- yarn reads `max_position_embeddings` off the bare config (:1022), llama3 too (:1124), and
  longrope `hidden_size // num_attention_heads` (:1043): AttributeError where the sub-config
  does not write them;
- a written odd `head_dim` over 4, fully rotated, fails (ValueError, :921-931).

Unlike transformers' own classes (graphfit.inputs.sglang_own_rope, sglang_context_length's
`standardized`), nothing is filled in: `max_position_embeddings` written beside a yarn dict
does not stand in for its `original_max_position_embeddings`. Measured through the oracle
(tests.oracle.test_sglang_text_values_oracle). s70e: per-layer-type nested dicts, the
`layer_types` check, and the values of the wrong type inside a dict
(graphfit.inputs.sglang_bare_rope_values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_bare_rope_values

# the keys each `_validate_<type>_rope_parameters` requires besides `rope_type`
# (modeling_rope_utils.py:938-1136; "axial" is validated as "default", :933-936)
REQUIRED: dict[str, frozenset[str]] = {
    "default": frozenset(), "axial": frozenset(),
    "linear": frozenset({"factor"}), "dynamic": frozenset({"factor"}),
    "yarn": frozenset({"factor", "original_max_position_embeddings"}),
    "longrope": frozenset({"short_factor", "long_factor", "original_max_position_embeddings"}),
    "llama3": frozenset({"factor", "original_max_position_embeddings", "low_freq_factor",
                         "high_freq_factor", "rope_theta"}),
    "proportional": frozenset({"rope_theta"}),
}
# the types whose standardization reads max_position_embeddings (modeling_rope_utils.py:858-860)
STANDARDIZED_LENGTH = frozenset({"llama3", "yarn", "longrope"})
_KEYS = ("rope_scaling", "rope_parameters")


def rope_type(rope: Mapping[str, Any]) -> object:
    """The type validation reads: `rope_type`, else the old `type`, else "default" (:908)."""
    return rope.get("rope_type", rope.get("type", "default"))


def _last_written(sub: Mapping[str, Any]) -> tuple[str | None, Any]:
    """The RoPE key set last in the keyword loop (the dict's order), and its value."""
    found: tuple[str | None, Any] = (None, None)
    for key in sub:
        if key in _KEYS:
            found = (key, sub[key])
    return found


def loaded_rope(sub: Mapping[str, Any]) -> object:
    """The RoPE dict the bare config holds once it loads (None: none), which
    get_context_length scales by (common.py:677-700): the `rope_scaling` standardized beside
    `rope_theta` (a `rope_parameters` written anywhere replaces it), else the later written
    of the two keys, its type named by validation (modeling_rope_utils.py:908-910)."""
    scaling, theta = sub.get("rope_scaling"), sub.get("rope_theta")
    _, rope = _last_written(sub)
    if scaling and theta and isinstance(scaling, dict) and "rope_parameters" not in sub:
        rope = {**scaling, "rope_theta": scaling.get("rope_theta", theta)}
    elif scaling and theta:
        rope = sub.get("rope_parameters")
    if isinstance(rope, dict) and rope:
        return {**rope, "rope_type": rope_type(rope)}
    return rope or None


def failure(sub: Mapping[str, Any]) -> str | None:
    """Why `PretrainedConfig(**sub)` fails on the sub-config dict's RoPE dict, in words
    that name the key and the exception (module docstring); None: it loads."""
    scaling, theta = sub.get("rope_scaling"), sub.get("rope_theta")
    key, rope = _last_written(sub)
    if scaling and theta:  # standardized before the keyword loop (configuration_utils.py:474)
        if not isinstance(scaling, dict):
            return f"rope_scaling as a JSON {type(scaling).__name__} (AttributeError)"
        kind = rope_type(scaling)
        if kind in STANDARDIZED_LENGTH:
            return (f"{kind} rope_scaling and rope_theta: max_position_embeddings unset "
                    "(AttributeError)")
        key, rope = ("rope_parameters", sub["rope_parameters"]) if "rope_parameters" in sub \
            else ("rope_scaling", {**scaling, "rope_theta": scaling.get("rope_theta", theta)})
    why = _rope_failure(key, rope, sub) if rope else None
    return why or sglang_bare_rope_values.layer_types_failure(sub)


def _rope_failure(key: str | None, rope: object, sub: Mapping[str, Any]) -> str | None:
    """The RoPE dict left once set (`key` names it): flat, or nested per layer type (s70e:
    each nested dict validated as a flat one, a null one skipped; modeling_rope_utils.py:
    895-909, graphfit.inputs.sglang_bare_rope_values)."""
    if not isinstance(rope, dict):
        return f"{key} as a JSON {type(rope).__name__} (AttributeError)"
    layers = sglang_bare_rope_values.nested(sub, rope)
    if layers is None:
        return None  # layer_types not a list of strings: not judged
    if not layers:
        return _flat(key, rope, sub)
    for layer in layers:
        each = rope[layer]
        if each is not None and not isinstance(each, dict):
            return f"{key}.{layer} as a JSON {type(each).__name__} (AttributeError)"
        why = None if each is None else _flat(f"{key}.{layer}", each, sub)
        if why is not None:
            return why
    return None


def _flat(key: str | None, rope: Mapping[str, Any], sub: Mapping[str, Any]) -> str | None:
    """One flat RoPE dict's validation (module docstring); s70e: the values computed with
    (graphfit.inputs.sglang_bare_rope_values.check), and the even-width check for a type
    with no validation function too (:915-931)."""
    kind = rope_type(rope)
    if not isinstance(kind, str) or kind not in REQUIRED:
        return sglang_bare_rope_values.head_dim_failure(rope, sub)
    missing = REQUIRED[kind] - set(rope)
    if missing:
        return f"{kind} {key} lacks {', '.join(sorted(missing))} (KeyError)"
    needs = (("max_position_embeddings",) if kind in ("yarn", "llama3") else
             # getattr's default is computed even where head_dim is written (:1043)
             ("hidden_size", "num_attention_heads") if kind == "longrope" else ())
    absent = [name for name in needs if name not in sub]
    if absent:
        return f"{kind} {key}, no {absent[0]} (AttributeError)"
    why = sglang_bare_rope_values.check(kind, rope, sub)
    return None if why is None else f"{key}: {why}"

__all__ = ["REQUIRED", "STANDARDIZED_LENGTH", "failure", "loaded_rope", "rope_type"]
