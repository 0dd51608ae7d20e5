"""A MiniMax M3.1 DSPARK draft (`architectures: ["DSparkMiniMaxDraftModel"]`) in SGLang 0.5.23:
why it does not start, else why graphfit does not plan it.

SGLang rewrites such a draft's config before anything reads it: the argument hook
(`read_draft_checkpoint_config`, speculative/dspark_components/dspark_config.py:155-158, inside
the hook's try that only warns, arg_groups/speculative_hook.py:796-805) and, unguarded, the
draft's ModelConfig (`_config_draft_model`, configs/model_config.py:1020-1029) both call
`configure_minimax_m3_dspark` (configs/minimax_vl.py:64-111). That rewrite raises on a
checkpoint without the dense draft FFN, without the dflash_config / dspark_* fields it reads, or
with capture layer ids not unique and inside the target depth; the server then never starts.
The rewritten config is what the DSPARK worker parses and checks (dspark_worker_v2.py:261-265;
graphfit.inputs.sglang_dspark_parse), so those refusals come next, with SGLang's messages.

A draft that passes all of them loads `DSparkMiniMaxDraftModel` (models/dspark_minimax.py:175):
MiniMax-M3 attention layers with the draft's own sliding window and `layer_types`
(:32-41, minimax_vl.py:89-91), whose KV pool and attention-backend buffers graphfit's DSPARK
draft runner (a dense Llama-shaped draft) does not restate; it is refused as not modelled.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_dspark_parse
from graphfit.planner.core.errors import excerpt

ARCHITECTURE = "DSparkMiniMaxDraftModel"  # dspark_config.py:155, model_config.py:1023
SITE = "minimax_vl.py:64-111"


class _Raises(Exception):
    """configure_minimax_m3_dspark raises (Python's exception, as SGLang would see it)."""


def is_minimax(data: Mapping[str, Any]) -> bool:
    """Whether SGLang rewrites this (overridden) draft config: its `architectures` is exactly
    the MiniMax one (dspark_config.py:155; model_config.py:1023 reads architectures[0] of
    the same single-entry list)."""
    return data.get("architectures") == [ARCHITECTURE]


def configured(data: Mapping[str, Any]) -> dict[str, Any]:
    """`configure_minimax_m3_dspark` (minimax_vl.py:64-111) on a JSON config: the text config
    (or the config itself) with the top-level dspark_* keys copied in and the DSPARK fields
    it derives; raises _Raises with the exception SGLang's rewrite raises."""
    text_raw = data.get("text_config", data)  # getattr(config, "text_config", config)
    if not isinstance(text_raw, dict):
        raise _Raises(f"AttributeError: text_config {excerpt(text_raw, 20)} is no config")
    text = copy.deepcopy(dict(text_raw))
    for key, value in data.items():  # config.to_dict(): the top-level keys (:69-71)
        if key.startswith("dspark_"):
            text[key] = value
    draft = _call(dict, text.get("dspark_config", {}))  # :72
    if not draft.get("use_dense_ffn", text.get("dspark_use_dense_ffn", False)):
        raise _Raises("ValueError: M3.1 DSpark requires the dense draft FFN checkpoint")
    flash = _attribute(text, "dflash_config")
    depth = _call(int, _item(flash, "num_target_layers"))  # :75
    layers = _call(int, _item(flash, "num_hidden_layers"))  # :76
    text.update(num_hidden_layers=layers, num_nextn_predict_layers=0, num_mtp_modules=0,
                architectures=[ARCHITECTURE], sparse_attention_config=None,
                moe_layer_freq=[0] * max(layers, 0))
    text["dense_intermediate_size"] = _call(int, draft.get(
        "ffn_hidden_size", text.get("dspark_ffn_hidden_size")))  # :82-84
    text["block_size"] = _call(int, _attribute(text, "dspark_block_size"))  # :85
    text["markov_rank"] = _call(int, _attribute(text, "dspark_markov_rank"))  # :86
    text["markov_head_type"] = text.get("dspark_markov_head_type", "vanilla")  # :87
    text["mask_token_id"] = _call(int, _attribute(text, "dspark_noise_token_id"))  # :88
    kinds = _call(lambda f: f.get("layer_types"), flash)  # :89-91
    if kinds:
        text["layer_types"] = kinds
    ids = [_call(int, i) for i in _iterate(_item(flash, "target_layer_ids"))]  # :92
    if not ids or len(set(ids)) != len(ids) or any(i < 0 or i >= depth for i in ids):
        raise _Raises("ValueError: M3.1 DSpark capture layer IDs must be unique and in "
                      "[0, target depth)")  # :93-100
    text["dspark_target_layer_ids"] = ids
    text["dflash_config"] = {**_call(dict, flash), "num_hidden_layers": layers,
                             "num_target_layers": depth, "block_size": text["block_size"],
                             "target_layer_ids": ids, "mask_token_id": text["mask_token_id"]}
    return text


def refusal(data: Mapping[str, Any], target_vocab: int | None) -> str:
    """The one-line reason a MiniMax M3.1 DSPARK draft is refused: SGLang's own (its rewrite,
    then the DSPARK parse and the worker's checks on the rewritten config), else as not
    modelled (module docstring)."""
    try:
        text = configured(data)
    except _Raises as exc:
        return f"SGLang's MiniMax M3.1 DSPARK draft rewrite raises ({SITE}): {exc}"
    parsed = sglang_dspark_parse.parse(text)
    problem = sglang_dspark_parse.worker_problem(parsed, target_vocab)
    if problem is not None:
        return f"SGLang's DSPARK worker refuses this draft (dspark_config.py:84-135): {problem}"
    return (f"a MiniMax M3.1 DSPARK draft ({ARCHITECTURE}, models/dspark_minimax.py:175) is "
            f"not modelled: its MiniMax-M3 attention layers' buffers are not restated")


def _attribute(config: Mapping[str, Any], key: str) -> Any:
    """`config.key` on an HF config: AttributeError when the JSON has no such key."""
    if key not in config:
        raise _Raises(f"AttributeError: no attribute {key!r}")
    return config[key]


def _item(value: Any, key: str) -> Any:
    """`value[key]` on a JSON value (a dict, else Python's TypeError / KeyError)."""
    if isinstance(value, dict):
        if key not in value:
            raise _Raises(f"KeyError: {key!r}")
        return value[key]
    if isinstance(value, (list, str)):
        raise _Raises(f"TypeError: {type(value).__name__} indices must be integers or slices")
    raise _Raises(f"TypeError: {excerpt(value, 20)} is not subscriptable")


def _iterate(value: Any) -> list[Any]:
    """Iterating a JSON value (a list, a string's characters, a dict's keys)."""
    if isinstance(value, (list, str, dict)):
        return list(value)
    raise _Raises(f"TypeError: {excerpt(value, 20)} is not iterable")


def _call(function: Any, value: Any) -> Any:
    """Python's `function(value)`, its failure as SGLang's exception."""
    try:
        return function(value)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _Raises(f"{type(exc).__name__}: {excerpt(str(exc), 60)}") from None


__all__ = ["ARCHITECTURE", "configured", "is_minimax", "refusal"]
