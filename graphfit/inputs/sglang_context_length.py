"""SGLang's context length of a model, derived from its config.json (SGLang 0.5.23).

vLLM and SGLang read a model's length differently, so one number cannot serve both:
vLLM takes the smallest of its length keys (graphfit.inputs.model_config.MAX_LENGTH_KEYS),
SGLang the FIRST key present and scales it by the RoPE scaling factor. SGLang's
`ModelConfig._derive_context_length` (configs/model_config.py:1291-1329) sets
`context_len = get_context_length(hf_text_config)` when no `--context-length` is given
(:1320-1326), and `get_context_length` (utils/hf_transformers/common.py:677-700):

* keys, first non-null wins (CONTEXT_LENGTH_KEYS, :668-674): max_sequence_length,
  seq_length, max_seq_len, model_max_length, max_position_embeddings; none: 2048 (:700);
* factor = rope_scaling["factor"] (default 1, :682), reset to 1 when the dict holds
  `original_max_position_embeddings` (:683-684) or its rope_type is "llama3" (:685-686);
  no or an empty rope_scaling: 1 (:687-688); the length is int(factor x value) (:693).

SGLang reads the dict transformers (5.x, the oracle's) left on the config: `rope_scaling`
and `rope_parameters` are one dict, its `rope_type` defaults to `type`, and
`standardize_rope_params` adds `original_max_position_embeddings` to a llama3 / yarn /
longrope dict (transformers modeling_rope_utils.py:840-858). So in a written config only the
other types (linear, dynamic, ...) scale; a per-layer-type dict (no top-level "factor") does
not. `--json-model-override-args` sets its rope dict AFTER that (merged into the standardized
one, utils/hf_transformers/config.py:411-424), so an overriding yarn dict without
original_max_position_embeddings does scale (`sglang_rope`).

A `--context-length` above the derived length is refused unless
SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN (environ.py:320) or CI is set
(configs/model_config.py:1295-1316): `check_flag`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphfit.inputs import sglang_own_rope
from graphfit.planner.core.errors import ConfigError, excerpt

# utils/hf_transformers/common.py:668-674, in SGLang's order (the first present wins)
CONTEXT_LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
# get_context_length's length when no key is present (common.py:700)
NO_KEY_LENGTH = 2048
# rope types whose dict carries original_max_position_embeddings once transformers has
# standardized it (modeling_rope_utils.py:851-858), so SGLang does not scale them
UNSCALED_TYPES = frozenset({"llama3", "yarn", "longrope"})


def rope_factor(origin: str, rope: object) -> float:
    """The factor get_context_length multiplies the length by (common.py:679-688) for the
    config's rope_scaling / rope_parameters dict (None: not given)."""
    if not isinstance(rope, dict) or not rope:
        return 1
    if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
        return 1
    factor = rope.get("factor", 1)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 0:
        raise ConfigError(f"{origin}: rope_scaling.factor: expected a positive number, got "
                          f"{excerpt(factor)}")
    return factor


def rope_dict(data: Mapping[str, Any]) -> object:
    """The RoPE dict SGLang's config object carries: `rope_scaling`, else `rope_parameters`
    (transformers 5 keeps them as one attribute)."""
    return data.get("rope_scaling") or data.get("rope_parameters")


def standardized(data: Mapping[str, Any], rope: object = None) -> object:
    """A RoPE dict as transformers 5 leaves it on the loaded config
    (`standardize_rope_params`, modeling_rope_utils.py:823-858): `rope_type` from `type` or
    "default", and a llama3 / yarn / longrope dict given `original_max_position_embeddings`
    (the only part get_context_length looks at). `rope`: the dict (default: the one `data`
    writes); no dict but a `rope_theta`: a default-type dict; neither: none (:835-838)."""
    rope = rope_dict(data) if rope is None else rope
    if not isinstance(rope, dict):
        return {"rope_type": "default"} if data.get("rope_theta") else rope
    out = dict(rope)
    if any(isinstance(v, dict) for v in out.values()):  # per layer type: no top-level factor
        return out
    out.setdefault("rope_type", out.get("type", "default"))
    if out["rope_type"] in UNSCALED_TYPES:
        out.setdefault("original_max_position_embeddings", data.get("max_position_embeddings"))
    return out


def sglang_rope(written: Mapping[str, Any], overrides: Mapping[str, Any]) -> object:
    """The RoPE dict get_context_length reads: the standardized written one, then the
    override args set on the loaded config (a dict merged into a dict, else replacing it,
    utils/hf_transformers/config.py:411-424). Setting `rope_scaling` standardizes the result
    again (transformers' setter, configuration_utils.py:730-739: so a merged `rope_type` of
    yarn gains original_max_position_embeddings), setting `rope_parameters` does not; the
    written dict's `rope_type` survives a merged `type`. SGLang's own classes that carry
    another dict after load (graphfit.inputs.sglang_own_rope) start from theirs."""
    rope = standardized(written)
    if sglang_own_rope.modelled(written):
        rope = sglang_own_rope.loaded_rope(written, rope)
    for key, value in overrides.items():
        if key in ("rope_scaling", "rope_parameters"):
            rope = ({**rope, **value} if isinstance(rope, dict) and isinstance(value, dict)
                    else value)
            if key == "rope_scaling" and value is not None:
                rope = standardized(written, rope)
    return rope


def context_length(origin: str, rope: object, number: Callable[[str], int | None]
                   ) -> int | None:
    """SGLang's derived context length: the first length key `number(key)` reads (a positive
    integer, None: absent or null) times the factor of `rope` (the RoPE dict SGLang's
    config carries: `sglang_rope`). None when no length key is present: the model class's
    default applies before SGLang's 2048 (common.py:700), which the caller restates where it
    knows it (graphfit.inputs.sglang_class_lengths)."""
    for key in CONTEXT_LENGTH_KEYS:
        value = number(key)
        if value is not None:
            return int(rope_factor(origin, rope) * value)
    return None


ALLOW_LONGER = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"  # EnvBool, off (environ.py:320)
IN_CI = "SGLANG_IS_IN_CI"  # is_in_ci (utils/common.py:42; EnvBool, off, environ.py:385)
_TRUE = ("true", "1", "yes", "y")  # EnvBool's true spellings (environ.py:143-150)


def check_flag(given: object, derived: int | None, environ: Mapping[str, str]) -> None:
    """SGLang's refusal of a `--context-length` above the derived one (configs/
    model_config.py:1295-1316), unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN or
    SGLANG_IS_IN_CI is true (then it warns and keeps the flag, :1302-1307); a value EnvBool
    cannot parse keeps the default off (environ.py:67-86). Not checked when the derived
    length is unknown (no length key under a class graphfit does not restate)."""
    if (derived is None or isinstance(given, bool) or not isinstance(given, int)
            or given <= derived):
        return
    if any(environ.get(name, "").lower() in _TRUE for name in (ALLOW_LONGER, IN_CI)):
        return
    raise ConfigError(f"--context-length {given} is greater than the model's derived context "
                      f"length ({derived}); SGLang refuses it unless {ALLOW_LONGER}=1 "
                      "(configs/model_config.py:1296-1316)")


def check_draft(target: object, draft: int | None, environ: Mapping[str, str]) -> None:
    """SGLang's refusal of a draft model shorter than the target: every draft worker builds
    its ModelConfig with the target's context length (speculative/draft_worker_common.py:100,
    eagle_worker_v2.py:229, standalone_worker_v2.py:93, ...; managers/tp_worker.py:481) and
    `_derive_context_length` refuses one above the draft's derived length unless
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN or CI (configs/model_config.py:1295-1316;
    allowed, the draft runs at the target's length, :1307-1312, so nothing graphfit plans
    changes). `draft`: the draft's derived length (None: not known, not checked)."""
    if (draft is None or isinstance(target, bool) or not isinstance(target, int)
            or target <= draft):
        return
    if any(environ.get(name, "").lower() in _TRUE for name in (ALLOW_LONGER, IN_CI)):
        return
    raise ConfigError(f"the target's context length {target} is greater than the draft "
                      f"model's derived context length ({draft}); SGLang refuses it unless "
                      f"{ALLOW_LONGER}=1 (configs/model_config.py:1296-1316)")
