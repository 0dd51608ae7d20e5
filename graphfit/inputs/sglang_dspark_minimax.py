"""A MiniMax M3.1 DSPARK draft (`architectures: ["DSparkMiniMaxDraftModel"]`) in SGLang 0.5.23:
whether SGLang starts it, and what of it graphfit plans.

SGLang rewrites such a draft's config before anything reads it: the argument hook
(`read_draft_checkpoint_config`, speculative/dspark_components/dspark_config.py:155-158, inside
the hook's try that only warns, arg_groups/speculative_hook.py:796-805) and, unguarded, the
draft's ModelConfig (`_config_draft_model`, configs/model_config.py:1020-1029) both call
`configure_minimax_m3_dspark` (configs/minimax_vl.py:64-111). That rewrite raises on a
checkpoint without the dense draft FFN, without the dflash_config / dspark_* fields it reads, or
with capture layer ids not unique and inside the target depth; the server then never starts.

The draft worker then builds `DSparkMiniMaxDraftModel` (models/dspark_minimax.py:175;
`build_draft_tp_worker`, speculative/draft_worker_common.py:66-115, before the worker's own
checks at dspark_worker_v2.py:261-265) on the rewritten config. Its constructors raise on:
a key they read unguarded that the config lacks (`use_gemma_norm`, dspark_minimax.py:112;
`hidden_size`, `num_attention_heads`, `num_key_value_heads`, `rms_norm_eps`,
models/minimax_m3.py:741-752, 867-871; `hidden_act`, :313), an activation other than silu /
swigluoai (:334-354), heads not divisible by the attention TP size (:750-760), a
`qk_norm_type` SGLang does not know (:909) or the default "per_layer" one at attention TP > 1
(:858-865 calls `MiniMaxM2RMSNormTP` without its `num_heads`, models/minimax_m2.py:291: a
TypeError), and `layer_types` / `sliding_window` that `get_dflash_attention_sliding_window_size`
refuses (dspark_minimax.py:38-40 -> speculative/dflash_utils.py:388-417). The DSPARK parse
and the worker's checks on the rewritten config come next (graphfit.inputs.sglang_dspark_parse).

What graphfit plans (graphfit.planner.engines.sglang_dspark, the dense draft's rules): the
draft runner is the same `DecodeCudaGraphRunner` whatever the draft's layers
(dspark_worker_v2.py:581-621); of the model it reads the draft ModelConfig's hidden size,
vocabulary and dtype (decode_cuda_graph_runner.py:470-500) and the model's
`sample_from_anchor` (models/dspark.py:531), all from the rewritten config; its backend is the
draft worker's, chosen without the model (`resolve_draft_worker_attention_backend`,
draft_worker_common.py:31-63), its page size the target's (dspark_worker_v2.py:188). The
MiniMax-M3 attention layers size the draft's own KV pool (head_dim, KV heads), which graphfit's
plan does not hold for any DSPARK draft, and one sliding window for every layer when any is
sliding (dspark_minimax.py:38-41), which sizes no graph buffer here.

At TP > 1 (graphfit.inputs.sglang_dspark_minimax_tp): the draft's vocab-parallel logits
(`supports_vocab_parallel_draft_logits`, dspark_minimax.py:176; models/dspark.py:550-574) shard
its Markov head, which SGLang refuses when the draft's vocabulary is not the target's, and
exchange the shards over the NCCL ring (no buffer: planned, TP 1's buffers) or an NVLink
multicast gather whose symmetric buffer the GPUs decide (refused as not modelled). The
projection's `_fc_gatherer` (dspark_minimax.py:139-141) runs only eagerly (no graph buffer).
Under attention DP the draft is built at attention TP = TP / DP and the gathers follow the
target lm_head's group (same module, `lm_group`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_dspark_minimax_tp, sglang_dspark_parse
from graphfit.planner.core.errors import excerpt

ARCHITECTURE = "DSparkMiniMaxDraftModel"  # dspark_config.py:155, model_config.py:1023
SITE = "minimax_vl.py:64-111"


class _Raises(Exception):
    """configure_minimax_m3_dspark raises (Python's exception, as SGLang would see it)."""


RewriteError = _Raises  # what `configured` raises, for callers outside this module


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


def refusal(data: Mapping[str, Any], target_vocab: int | None, tp_size: int = 1,
            attn_tp: int = 1, lm_vocab: int | None = None,
            environ: Mapping[str, str] | None = None,
            custom_all_reduce: bool = True, lm_group: str = "tp") -> str | None:
    """The one-line reason a MiniMax M3.1 DSPARK draft is refused: SGLang's own (its rewrite,
    the draft model's constructors, then the DSPARK parse and the worker's checks on the
    rewritten config, then the Markov head's TP shard), else as not modelled where its graph
    buffers at TP > 1 depend on the GPUs (graphfit.inputs.sglang_dspark_minimax_tp) or on a
    target lm_head class graphfit has not read; None: planned. `attn_tp`: the draft's
    attention TP size (under attention DP the attention-TP group the draft is built on,
    draft_parallel.py:53-63, parallel_state.py:3146-3162); `lm_vocab`: the target's
    vocab_size (its lm_head's org_vocab_size); `environ`: the line's VAR=value prefix;
    `custom_all_reduce`: no --disable-custom-all-reduce; `lm_group`: the group the target's
    lm_head is sharded on, "tp" (size `tp_size`), "attn_tp" (size `attn_tp`, attention DP
    with --enable-dp-lm-head) or "unknown"."""
    try:
        text = configured(data)
    except _Raises as exc:
        return f"SGLang's MiniMax M3.1 DSPARK draft rewrite raises ({SITE}): {exc}"
    built = build_problem(text, "text_config" in data, attn_tp)
    if built is not None:
        return f"SGLang's MiniMax M3.1 DSPARK draft fails to build ({built}"
    parsed = sglang_dspark_parse.parse(text)
    if parsed.problem is not None:
        return (f"SGLang's DSPARK worker cannot parse this draft config "
                f"(dspark_worker_v2.py:261-265): {parsed.problem}")
    problem = sglang_dspark_parse.worker_problem(parsed, target_vocab)
    if problem is not None:
        return f"SGLang's DSPARK worker refuses this draft (dspark_config.py:84-135): {problem}"
    if "text_config" in data and "vocab_size" not in text:
        # the Markov head reads config.vocab_size (build_markov_head, models/dspark.py:393),
        # after the parse's markov_rank check (:523-530); a bare PretrainedConfig has none
        return ("SGLang's MiniMax M3.1 DSPARK draft fails to build (models/dspark.py:393): "
                "AttributeError: no attribute 'vocab_size'")
    if lm_group == "unknown" and tp_size > 1:
        return (f"a MiniMax M3.1 DSPARK draft at TP {tp_size} under attention DP is not "
                f"modelled for this target: its model class decides its lm_head's TP group "
                f"(use_attn_tp_group, vocab_parallel_embedding.py:243-263), which decides the "
                f"vocab-parallel gathers (models/dspark.py:550-574)")
    lm_tp = attn_tp if lm_group == "attn_tp" else tp_size
    if lm_tp > 1:  # else attach_shared_modules returns first (models/dspark.py:556-560)
        return sglang_dspark_minimax_tp.tp_problem(text, lm_tp, lm_vocab, environ or {},
                                                   custom_all_reduce, lm_group == "attn_tp")
    return None


# keys the draft model's constructors read as attributes (no default): the backbone
# (dspark_minimax.py:112, 127), MiniMaxM3Attention (minimax_m3.py:741-752, 867-871) and
# MiniMaxM3MLP (:313-314)
CONSTRUCTOR_KEYS = ("use_gemma_norm", "hidden_size", "num_attention_heads",
                    "num_key_value_heads", "rms_norm_eps", "hidden_act")
QK_NORMS = ("per_layer", "per_head", "multi_head")  # minimax_m3.py:858-909


def build_problem(text: Mapping[str, Any], nested: bool, attn_tp: int) -> str | None:
    """Why `DSparkMiniMaxDraftModel(config)` raises on the rewritten config `text` (module
    docstring), as "site): reason"; None when it builds. `nested`: the text config was a
    `text_config` dict, rebuilt as a bare PretrainedConfig (minimax_vl.py:66-68) whose
    missing keys raise; a top-level config keeps its class's defaults, which graphfit does
    not restate (refused as not modelled)."""
    for key in CONSTRUCTOR_KEYS:
        if key not in text:
            if nested or key == "use_gemma_norm":  # no config class defines it
                return f"dspark_minimax.py:104-127, minimax_m3.py:741-871): AttributeError: " \
                       f"no attribute {key!r}"
            return (f"not modelled: {key!r} is left to the "
                    f"{excerpt(text.get('model_type'), 20)} config class's default")
    act = text["hidden_act"]
    if act not in ("silu", "swigluoai"):
        return f"minimax_m3.py:334-354): ValueError: Unsupported activation: {excerpt(act, 20)}"
    if act == "swigluoai":
        for key in ("swiglu_alpha", "swiglu_limit"):
            if key not in text:
                return f"minimax_m3.py:338-339): AttributeError: no attribute {key!r}"
            try:
                float(text[key])
            except (TypeError, ValueError) as exc:
                return f"minimax_m3.py:338-339): {type(exc).__name__}: float({key})"
    heads, kv = text["num_attention_heads"], text["num_key_value_heads"]
    tp = attn_tp
    if not _ints(heads, kv):
        return "minimax_m3.py:749-760): the head counts are not integers"
    if heads % tp or (kv % tp if kv >= tp else tp % kv):
        return (f"minimax_m3.py:750-760): AssertionError: {heads} heads / {kv} KV heads at "
                f"attention TP {tp}")
    norm = text.get("qk_norm_type", "per_layer")
    if norm not in QK_NORMS:
        return f"minimax_m3.py:909): ValueError: Invalid qk_norm_type: {excerpt(norm, 20)}"
    if norm == "per_layer" and tp > 1:
        return ("minimax_m3.py:858-865, minimax_m2.py:291): TypeError: MiniMaxM2RMSNormTP() "
                "missing 'num_heads' (the per_layer QK norm at attention TP > 1)")
    return _window_problem(text)


def _window_problem(text: Mapping[str, Any]) -> str | None:
    """`get_dflash_attention_sliding_window_size(config)` (dflash_utils.py:388-417), called by
    every DSparkMiniMaxAttention (dspark_minimax.py:38-40): `layer_types` must be a list;
    with a "sliding_attention" entry, `sliding_window` must be there and take int()."""
    site = "dspark_minimax.py:38-40, dflash_utils.py:388-417): ValueError: "
    kinds = text.get("layer_types")
    if kinds is None:
        return None
    if not isinstance(kinds, list):
        return site + "DFLASH config.layer_types must be a sequence of attention type strings."
    if "sliding_attention" not in kinds:
        return None
    window = text.get("sliding_window")
    if window is None:
        return site + "DFLASH sliding_attention layers require config.sliding_window."
    try:
        int(window)
    except (TypeError, ValueError) as exc:
        return f"dspark_minimax.py:38-40, dflash_utils.py:417): {type(exc).__name__}"
    return None


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values)


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


__all__ = ["ARCHITECTURE", "RewriteError", "build_problem", "configured", "is_minimax", "refusal"]
