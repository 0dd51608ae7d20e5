"""The values inside a bare sub-config's RoPE dict, and its per-layer-type nesting, that
SGLang 0.5.23's `PretrainedConfig(**sub)` fails on (issue 23, s70e).

graphfit.inputs.sglang_bare_rope restates which keys a written sub-config dict's RoPE dict
needs (utils/hf_transformers/common.py:569 builds the bare config). transformers 5.25 (the
oracle's) also computes with those values while it validates them, so a value of the wrong
type fails even where every key is written:

- yarn compares `(beta_fast or 32) < (beta_slow or 1)` and divides
  `max_position_embeddings / original_max_position_embeddings` (modeling_rope_utils.py:
  1012, 1022): TypeError for a null or string length, ZeroDivisionError for 0;
- llama3 compares `high_freq_factor <= low_freq_factor` and
  `original_max_position_embeddings >= max_position_embeddings` (:1112, :1124): TypeError
  for a null or string one (`factor` itself is only type-checked before it is compared, so a
  string factor loads with a warning);
- longrope computes `hidden_size // num_attention_heads` (getattr's default, :1043), the
  rotary width `int(head_dim * partial_rotary_factor)` and `len()` of both factor lists
  (:1044-1057): TypeError for a null list;
- the even-width check computes `head_dim > 4`, `head_dim % 2` and
  `int(head_dim * partial_rotary_factor)` (:919-931): TypeError for a string `head_dim` or a
  null factor.

`check` runs these expressions on the JSON values themselves, so Python's own semantics
(bool as int, a string times an int) are the engine's.

A RoPE dict is nested per layer type where its keys are among the config's `layer_types`
(`nested_rope_parameter_keys`, :781-790), after the legacy names are remapped
(configuration_utils.py:94-99, 127-131); each nested dict is then validated as a flat one, a
null one skipped (:898-909). The same `layer_types` is checked by `validate_layer_type`
(configuration_utils.py:709-724): each entry one of ALLOWED_ATTN_LAYER_TYPES (:66-83), and as
many entries as a written `num_hidden_layers`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any

# ALLOWED_ATTN_LAYER_TYPES (configuration_utils.py:66-83) and the legacy remap (:94-99)
ALLOWED_LAYER_TYPES = frozenset({
    "full_attention", "sliding_attention", "chunked_attention", "window_attention",
    "indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
    "minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding",
    "reference_sliding_attention", "linear_attention"})
LEGACY_LAYER_TYPES = {"mamba": "linear_attention", "attention": "full_attention",
                      "deepseek_sparse_attention": "indexed_attention",
                      "qwen_sparse_attention": "indexed_attention"}
_ERRORS = (TypeError, ValueError, ZeroDivisionError, OverflowError)
# a string or list factor times a head_dim larger than this is not evaluated (not judged)
_REPEAT_BOUND = 1 << 16


def _raises(compute: Callable[[], object]) -> str | None:
    """The exception's name where `compute` raises one transformers would, else None."""
    try:
        compute()
    except _ERRORS as exc:
        return type(exc).__name__
    return None


def layer_types(sub: Mapping[str, Any]) -> list[str] | None:
    """The sub-config's `layer_types` once remapped (an empty list where none is written);
    None where it is not a list of strings (not judged)."""
    written = sub.get("layer_types")
    if written is None:
        return []
    if not isinstance(written, list) or not all(isinstance(each, str) for each in written):
        return None
    return [str(LEGACY_LAYER_TYPES.get(each, each)) for each in written]


def layer_types_failure(sub: Mapping[str, Any]) -> str | None:
    """Why `validate_layer_type` (configuration_utils.py:709-724) fails on the sub-config's
    `layer_types`; it runs only where `num_hidden_layers` is written."""
    types = layer_types(sub)
    if not types or "num_hidden_layers" not in sub:
        return None
    odd = next((each for each in types if each not in ALLOWED_LAYER_TYPES), None)
    if odd is not None:
        return f"layer_types entry {odd[:40]!r} not allowed (ValueError)"
    layers = sub["num_hidden_layers"]
    if layers is not None and layers != len(types):
        return f"num_hidden_layers {layers} but {len(types)} layer_types (ValueError)"
    return None


def nested(sub: Mapping[str, Any], rope: Mapping[str, Any]) -> list[str] | None:
    """The keys `rope` is nested under ([]: flat), or None where `layer_types` is not a list
    of strings (not judged)."""
    types = layer_types(sub)
    return None if types is None else [key for key in rope if key in types]


def check(kind: str, rope: Mapping[str, Any], sub: Mapping[str, Any]) -> str | None:
    """The exception a flat RoPE dict of type `kind` whose required keys are all written
    (sglang_bare_rope.REQUIRED) meets computing with its values (module docstring), named
    with the values; None: it loads."""
    get = rope.get
    if kind == "yarn":
        fast, slow = get("beta_fast"), get("beta_slow")
        why = _raises(lambda: operator.lt(fast or 32, slow or 1))
        if why:
            return f"yarn beta_fast {fast!r:.20} against beta_slow {slow!r:.20} ({why})"
        original = rope["original_max_position_embeddings"]
        why = _raises(lambda: operator.truediv(sub["max_position_embeddings"], original))
        if why:
            return (f"yarn max_position_embeddings over original_max_position_embeddings "
                    f"{original!r:.20} ({why})")
    elif kind == "llama3":
        high, low = rope["high_freq_factor"], rope["low_freq_factor"]
        why = _raises(lambda: operator.le(high, low))
        if why:
            return f"llama3 high_freq_factor {high!r:.20} against {low!r:.20} ({why})"
        original = rope["original_max_position_embeddings"]
        why = _raises(lambda: operator.ge(original, sub["max_position_embeddings"]))
        if why:
            return f"llama3 original_max_position_embeddings {original!r:.20} compared ({why})"
    elif kind == "longrope":
        why = _longrope(rope, sub)
        if why:
            return why
    return head_dim_failure(rope, sub)


def _longrope(rope: Mapping[str, Any], sub: Mapping[str, Any]) -> str | None:
    """longrope's width and factor-list lengths (:1043-1057)."""
    factor = rope.get("partial_rotary_factor", 1.0)
    why = _raises(lambda: operator.floordiv(sub["hidden_size"], sub["num_attention_heads"]))
    if why:
        return f"longrope hidden_size // num_attention_heads ({why})"
    head_dim = sub.get("head_dim", sub["hidden_size"] // sub["num_attention_heads"])
    if isinstance(factor, (str, list)) and not _small(head_dim):
        return None
    why = _raises(lambda: int(head_dim * factor))
    if why:
        return f"longrope head_dim {head_dim!r:.20} times {factor!r:.20} ({why})"
    for name in ("short_factor", "long_factor"):
        value: Any = rope.get(name)
        why = _raises(functools.partial(len, value))
        if why:
            return f"longrope {name} {value!r:.20} has no length ({why})"
    return None


def _small(value: object) -> bool:
    """A repeat count Python can build a sequence of here."""
    return isinstance(value, int) and value < _REPEAT_BOUND


def head_dim_failure(rope: Mapping[str, Any], sub: Mapping[str, Any]) -> str | None:
    """The even rotary width check (:919-931) on a written `head_dim`, values of the wrong
    type included."""
    head_dim = sub.get("head_dim")
    if head_dim is None:
        return None
    factor = rope.get("partial_rotary_factor", 1.0)
    if isinstance(factor, (str, list)) and not _small(head_dim):
        return None

    def odd() -> bool:
        return bool(head_dim > 4 and head_dim % 2 and int(head_dim * factor) == head_dim)

    why = _raises(odd)
    if why:
        return f"head_dim {head_dim!r:.20} with partial_rotary_factor {factor!r:.20} ({why})"
    if odd():
        return f"odd head_dim {head_dim} fully rotated (ValueError)"
    return None


__all__ = ["ALLOWED_LAYER_TYPES", "LEGACY_LAYER_TYPES", "check", "head_dim_failure",
           "layer_types", "layer_types_failure", "nested"]
