"""TensorRT-LLM's LLM API options that shape its generation graphs (the keys of `LLM(...)` and of
`trtllm-serve --extra_llm_api_options FILE` / `--config FILE`).

`max_batch_size` is S (default 2048), `max_num_tokens` T (default 8192), `cuda_graph_config`
(batch_sizes, max_batch_size, enable_padding) the ladder and `speculative_config` the tokens a
generation request carries: 1 + max_total_draft_tokens, where a static tree (eagle_choices)
or a dynamic tree verifies more tokens than max_draft_len
(`DecodingBaseConfig.tokens_per_gen_step`,
tensorrt_llm/llmapi/llm_args.py@0004396720:2206-2209;
`EagleDecodingConfig.validate_eagle_config`,
tensorrt_llm/llmapi/llm_args.py@0004396720:2369-2449; see tests/oracle/trtllm_reference.py).
PARD verifies 2 x max_draft_len tokens
(tensorrt_llm/llmapi/llm_args.py@0004396720:2965-2968), DFlash
(tensorrt_llm/llmapi/llm_args.py@0004396720:3029-3036) and SA 1 + max_draft_len;
`max_beam_width` multiplies a request's tokens. FILE_KEYS is the one map from such a key to
Settings.
"""

from __future__ import annotations

import ast
from typing import Any

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.settings import Setting
from graphfit.inputs.trtllm_a2a import moe_config
from graphfit.inputs.trtllm_cp import context_parallel, cp_config
from graphfit.inputs.trtllm_moe import moe_cluster_parallel, moe_tensor_parallel
from graphfit.inputs.values import (
    as_bool,
    as_int,
    as_object,
    as_sizes,
    as_str,
    normalize_key,
    reject_unknown,
)
from graphfit.planner.core.enums import CUDAGraphMode, Engine, SpecMethod
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.engines.trtllm_ladders import mm_encoder_buckets
from graphfit.planner.engines.trtllm_mm_encoder import MmEncoderGraphs

TR = Engine.TRTLLM
DECODING_TYPES = {  # the pydantic discriminator: exact spellings
    "Eagle": SpecMethod.EAGLE3,  # treated as Eagle3 (TorchLlmArgs.validate_speculative_config)
    "Eagle3": SpecMethod.EAGLE3,
    "MTP": SpecMethod.MTP,
    "Draft_Target": SpecMethod.DRAFT_MODEL,
    "DraftTarget": SpecMethod.DRAFT_MODEL,  # the spelling before the discriminator (2025)
    "NGram": SpecMethod.NGRAM,
    "PARD": SpecMethod.DRAFT_MODEL,  # a draft model predicting K tokens in one pass
    "DFlash": SpecMethod.DFLASH,
    "SA": SpecMethod.SUFFIX,  # the standalone GPU suffix automaton, no draft model
}
# decoding types TensorRT-LLM has that graphfit refuses, and why:
# `DSparkDecodingConfig` tensorrt_llm/llmapi/llm_args.py@0004396720:3052,
# `AutoDecodingConfig` tensorrt_llm/llmapi/llm_args.py@0004396720:3206,
# `UserProvidedDecodingConfig` tensorrt_llm/llmapi/llm_args.py@0004396720:2621,
# `SaveHiddenStatesDecodingConfig` tensorrt_llm/llmapi/llm_args.py@0004396720:2545
REFUSED_TYPES = {
    "DSpark": "its embedded and standalone drafters differ and are not modelled",
    "AUTO": "TensorRT-LLM picks the algorithm at run time",
    "User_Provided": "a user drafter object cannot come from a file",
    "SaveState": "it saves hidden states instead of drafting",
}
BASE_SPEC_KEYS = frozenset({
    "decoding_type", "max_draft_len", "max_total_draft_tokens", "speculative_model",
    "speculative_model_dir", "max_concurrency", "draft_len_schedule", "load_format",
    "acceptance_rate_window_size", "acceptance_rate_threshold", "use_rejection_sampling",
    "allow_advanced_sampling", "advanced_sampling_mode", "enable_penalty",
})
TREE_KEYS = frozenset({"use_dynamic_tree", "dynamic_tree_max_topk"})
_EAGLE_KEYS = BASE_SPEC_KEYS | TREE_KEYS | {
    "eagle_choices", "greedy_sampling", "posterior_threshold", "num_eagle_layers",
    "max_non_leaves_per_layer", "eagle3_one_model", "eagle3_layers_to_capture",
    "eagle3_model_arch", "sa_config"}
SPEC_KEYS: dict[str, frozenset[str]] = {
    "Eagle": _EAGLE_KEYS, "Eagle3": _EAGLE_KEYS,
    "MTP": BASE_SPEC_KEYS | TREE_KEYS | {
        "use_relaxed_acceptance_for_thinking", "relaxed_topk", "relaxed_delta",
        "use_mtp_vanilla", "mtp_eagle_one_model", "sa_config", "num_nextn_predict_layers",
        "begin_thinking_phase_token", "end_thinking_phase_token"},
    "NGram": BASE_SPEC_KEYS | {"max_matching_ngram_size", "is_keep_all", "is_use_oldest",
                               "is_public_pool"},
    "Draft_Target": BASE_SPEC_KEYS, "DraftTarget": BASE_SPEC_KEYS,
    "PARD": BASE_SPEC_KEYS | {"mask_token_id", "sa_config"},
    "DFlash": BASE_SPEC_KEYS | {"mask_token_id", "target_layer_ids", "attention_backend"},
    "SA": BASE_SPEC_KEYS | {"max_matching_ngram_size", "enable_global_pool",
                            "global_pool_size"},
}
MODELLED_SPEC_KEYS = frozenset({"decoding_type", "max_draft_len", "max_total_draft_tokens",
                                "draft_len_schedule", "eagle_choices", "use_dynamic_tree",
                                "dynamic_tree_max_topk", "num_nextn_predict_layers",
                                "speculative_model", "speculative_model_dir"})
GRAPH_KEYS = frozenset({"batch_sizes", "max_batch_size", "enable_padding", "mode"})
ENCODER_GRAPH_KEYS = frozenset({"num_tokens", "max_num_token", "seq_lens", "max_seq_len"})


def cuda_graph_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`cuda_graph_config` (`BaseCudaGraphConfig.validate_base_cuda_graph_config`): null
    disables graphs; an empty or missing batch_sizes means the generated list and a
    max_batch_size of 0 the default 128; unknown keys are errors (StrictBaseModel)."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None or (isinstance(value, str) and value.strip() == "null"):
        out.append(Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer))
        return out, []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    reject_unknown(origin, obj, GRAPH_KEYS | ENCODER_GRAPH_KEYS)
    if "mode" in obj:  # the discriminator: an explicit null is no mode
        mode = obj["mode"]
    else:  # infer_cuda_graph_config_mode: any encoder key set means encode
        mode = "encode" if any(obj.get(k) not in (None, 0) for k in ENCODER_GRAPH_KEYS) \
            else "decode"
    if mode not in ("decode", "encode"):
        raise ConfigError(f"{origin}: mode: decode or encode, got {excerpt(mode)}")
    if mode == "decode" and any(k in obj for k in ENCODER_GRAPH_KEYS):
        raise ConfigError(f"{origin}: {', '.join(sorted(ENCODER_GRAPH_KEYS & set(obj)))}: "
                          f"extra fields not permitted with mode decode")
    notes: list[str] = []
    if mode == "encode":
        out += encode_buckets(origin, obj, layer)
        if not (obj.get("num_tokens") or obj.get("max_num_token")) or not (
                obj.get("seq_lens") or obj.get("max_seq_len")):
            notes.append(f"{origin}: mode encode without num_tokens/max_num_token and "
                         f"seq_lens/max_seq_len: TensorRT-LLM keeps the encode step eager")
    if obj.get("batch_sizes"):  # [] or null: the generated list
        key = f"{origin}: batch_sizes"
        sizes = as_sizes(key, obj["batch_sizes"], normalize=True)
        out.append(Setting("cudagraph_capture_sizes", sizes, key, layer))
        given = obj["batch_sizes"]
        if isinstance(given, list) and len(given) > len(sizes):
            # validate_base_cuda_graph_config sorts batch_sizes and keeps duplicates
            # (tensorrt_llm/llmapi/llm_args.py@0004396720:191-222): the same padding, one
            # more capture per duplicate
            notes.append(f"{key}: TensorRT-LLM keeps the {len(given) - len(sizes)} duplicate "
                         f"size(s) and captures them again; graphfit plans each size once "
                         f"(the padding is the same)")
    if obj.get("max_batch_size") is not None:
        key = f"{origin}: max_batch_size"
        size = as_int(key, obj["max_batch_size"], minimum=0)
        if size:  # 0: the default (128, or max(batch_sizes))
            out.append(Setting("max_cudagraph_capture_size", size, key, layer))
    if obj.get("enable_padding") is not None:
        key = f"{origin}: enable_padding"
        out.append(Setting("cuda_graph_padding", as_bool(key, obj["enable_padding"]), key,
                           layer))
    return out, notes


def _encode_list(origin: str, obj: dict[str, Any], name: str, limit: str, padding: bool,
                 generate: Any) -> tuple[int, ...] | None:
    """One bucket list as `EncodeCudaGraphConfig.validate_encoder_cuda_graph_config` leaves it
    (tensorrt_llm/llmapi/llm_args.py@0004396720:346-385): a given list (PositiveInt, at least
    one) is sorted and its max must equal a non-zero `limit`; else a `limit` > 0 generates
    it; else it stays unset."""
    top = as_int(f"{origin}: {limit}", obj.get(limit) or 0, minimum=0)
    given = obj.get(name)
    if given is not None:
        key = f"{origin}: {name}"
        if not isinstance(given, list) or not given:
            raise ConfigError(f"{key}: expected a non-empty list of positive integers")
        values = sorted(as_int(key, v, minimum=1) for v in given)
        if top and top != values[-1]:
            raise ConfigError(f"{origin}: {limit} {top} must equal max({name}) {values[-1]} "
                              f"(TensorRT-LLM rejects this too)")
        return tuple(values)
    return tuple(generate(top, padding)) if top else None


def encode_buckets(origin: str, obj: dict[str, Any], layer: int) -> list[Setting]:
    """`EncodeCudaGraphConfig`'s fields (tensorrt_llm/llmapi/llm_args.py@0004396720:305-385):
    mode encode, and num_tokens / seq_lens as its validator leaves them."""
    padding = as_bool(f"{origin}: enable_padding", obj.get("enable_padding", False))
    out = [Setting("cuda_graph_mode", "encode", f"{origin}: mode", layer)]
    out += _encode_lists(origin, obj, padding, layer, "encode_num_tokens", "encode_seq_lens")
    return out


def _encode_lists(origin: str, obj: dict[str, Any], padding: bool, layer: int,
                  tokens_field: str, seq_lens_field: str) -> list[Setting]:
    """num_tokens / seq_lens of one `EncodeCudaGraphConfig` as its validator leaves them
    (tensorrt_llm/llmapi/llm_args.py@0004396720:346-385), as settings named `tokens_field` /
    `seq_lens_field`: shared by `cuda_graph_config` in encode mode and by
    `encoder_cuda_graph_config`, which read the same class."""
    from graphfit.planner.engines.trtllm_ladders import encoder_num_tokens, encoder_seq_lens

    out: list[Setting] = []
    for name, limit, generate, field in (
            ("num_tokens", "max_num_token", encoder_num_tokens, tokens_field),
            ("seq_lens", "max_seq_len", encoder_seq_lens, seq_lens_field)):
        values = _encode_list(origin, obj, name, limit, padding, generate)
        if values is not None:
            out.append(Setting(field, values, f"{origin}: {name}", layer))
    return out


def encoder_cuda_graph_config(origin: str, value: Any, layer: int
                              ) -> tuple[list[Setting], list[str]]:
    """`encoder_cuda_graph_config` (an `EncodeCudaGraphConfig` for the encoder of an
    encoder-decoder model, tensorrt_llm/llmapi/llm_args.py@0004396720:5615-5622): batch sizes
    as `cuda_graph_config`'s (given, sorted; or generated for max_batch_size, 0 meaning 128),
    enable_padding, and num_tokens / seq_lens as `EncodeCudaGraphConfig`'s validator leaves
    them (tensorrt_llm/llmapi/llm_args.py@0004396720:346-385). null: no encoder graphs."""
    from graphfit.planner.engines.trtllm_ladders import TRTLLM_DEFAULT_MAX_BS, trtllm_sizes

    out = [Setting("engine", TR, origin, layer)]
    if value is None or (isinstance(value, str) and value.strip() == "null"):
        return out, []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    reject_unknown(origin, obj, GRAPH_KEYS | ENCODER_GRAPH_KEYS)
    if obj.get("mode", "encode") != "encode":
        raise ConfigError(f"{origin}: mode: encode (an EncodeCudaGraphConfig), got "
                          f"{excerpt(obj.get('mode'))}")
    padding = as_bool(f"{origin}: enable_padding", obj.get("enable_padding", False))
    max_bs = as_int(f"{origin}: max_batch_size", obj.get("max_batch_size") or 0, minimum=0)
    if obj.get("batch_sizes"):
        key = f"{origin}: batch_sizes"
        sizes = as_sizes(key, obj["batch_sizes"], normalize=True)
        if max_bs and max_bs != sizes[-1]:
            raise ConfigError(f"{origin}: max_batch_size {max_bs} must equal max(batch_sizes) "
                              f"{sizes[-1]} (TensorRT-LLM rejects this too)")
    else:
        sizes = tuple(trtllm_sizes(max_bs or TRTLLM_DEFAULT_MAX_BS, padding=padding))
    out += [Setting("encoder_graph_batch_sizes", tuple(sizes), f"{origin}: batch_sizes", layer),
            Setting("encoder_graph_padding", padding, f"{origin}: enable_padding", layer)]
    out += _encode_lists(origin, obj, padding, layer,
                         "encoder_graph_num_tokens", "encoder_graph_seq_lens")
    return out, []


def _encoder_size(field: str) -> Handler:
    """`encoder_max_batch_size` / `encoder_max_num_tokens`: a positive integer when set
    (`validate_encoder_runtime_sizes`, tensorrt_llm/llmapi/llm_args.py@0004396720:5723-5728)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        out = [Setting("engine", TR, origin, layer)]
        if value is not None:
            out.append(Setting(field, as_int(origin, value, minimum=1), origin, layer))
        return out, []
    return handle


def _eagle_choices(origin: str, raw: Any) -> list[tuple[int, ...]]:
    """`EagleDecodingConfig.validate_eagle_choices`: a list of paths (or its literal string),
    de-duplicated; every path's parent must be present."""
    if isinstance(raw, str):
        try:
            raw = ast.literal_eval(raw.replace(" ", ""))
        except (ValueError, SyntaxError):
            raise ConfigError(f"{origin}: malformed eagle_choices {raw!r}") from None
    if not isinstance(raw, list) or not raw or not all(isinstance(c, list) and c for c in raw):
        raise ConfigError(f"{origin}: expected a non-empty list of paths, e.g. [[0], [0, 1]]")
    paths = {tuple(as_int(origin, i, minimum=0) for i in c) for c in raw}
    for path in sorted(paths):
        if len(path) > 1 and path[:-1] not in paths:
            raise ConfigError(f"{origin}: choice {list(path)} is not connected (its parent "
                              f"{list(path[:-1])} is missing)")
    return sorted(paths, key=lambda c: (len(c), c))


def _schedule(origin: str, raw: Any, max_draft_len: int) -> tuple[int, ...]:
    """`validate_draft_len_schedule_and_sort`: thresholds >= 1, lengths 0..max_draft_len, the
    smallest threshold at max_draft_len. The thresholds become graph batch sizes."""
    obj = as_object(origin, raw) if not isinstance(raw, dict) else raw
    if not obj:
        raise ConfigError(f"{origin}: an empty schedule")
    schedule = {as_int(origin, k): as_int(origin, v, minimum=0) for k, v in obj.items()}
    if schedule[min(schedule)] != max_draft_len:
        raise ConfigError(f"{origin}: the smallest threshold must map to max_draft_len "
                          f"{max_draft_len}")
    if any(length > max_draft_len for length in schedule.values()):
        raise ConfigError(f"{origin}: lengths must be <= max_draft_len {max_draft_len}")
    return tuple(sorted(schedule))


def _sa_config(origin: str, obj: dict[str, Any]) -> None:
    """`SADecodingConfig.validate_sa_config`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:2708-2729): 0 is not a valid ngram size (-1
    means the longest match); with the global pool the size is -1 or 1..64; a
    global_pool_size (>= 1) needs enable_global_pool."""
    ngram = as_int(f"{origin}: max_matching_ngram_size", obj.get("max_matching_ngram_size", -1),
                   minimum=-MAX_INT)
    pool = as_bool(f"{origin}: enable_global_pool", obj.get("enable_global_pool", False))
    if ngram == 0:
        raise ConfigError(f"{origin}: max_matching_ngram_size must be > 0 (fixed ngram) or -1 "
                          f"(longest match), got 0")
    if pool and ngram != -1 and not 1 <= ngram <= 64:
        raise ConfigError(f"{origin}: max_matching_ngram_size must be -1 or in [1, 64] with "
                          f"enable_global_pool, got {ngram}")
    if obj.get("global_pool_size") is not None:
        as_int(f"{origin}: global_pool_size", obj["global_pool_size"], minimum=1)
        if not pool:
            raise ConfigError(f"{origin}: global_pool_size requires enable_global_pool: true")


def speculative_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`speculative_config` as TensorRT-LLM validates it (`DecodingBaseConfig`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:1943-2216, and its subclasses from
    tensorrt_llm/llmapi/llm_args.py@0004396720:2302 on): max_draft_len (MTP: or
    num_nextn_predict_layers, tensorrt_llm/llmapi/llm_args.py@0004396720:2835-2848), and the
    tokens per request 1 + max_total_draft_tokens: the number of distinct eagle_choices, a
    dynamic tree's total (default topK * max_draft_len), a linear Eagle3's given total, else
    max_draft_len; PARD's 2 x max_draft_len (`PARDDecodingConfig.tokens_per_gen_step`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:2965-2968)."""
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    kind = as_str(f"{origin}: decoding_type", obj.get("decoding_type"))
    if kind in REFUSED_TYPES:
        raise ConfigError(f"{origin}: decoding_type {kind} is not modelled by graphfit "
                          f"({REFUSED_TYPES[kind]})")
    method = DECODING_TYPES.get(kind)
    if method is None:
        raise ConfigError(f"{origin}: decoding_type {kind!r} is not one of "
                          f"{', '.join(DECODING_TYPES)} (exact spelling)")
    notes: list[str] = []
    if method is SpecMethod.MTP and obj.get("num_nextn_predict_layers") is not None:
        layers = obj.pop("num_nextn_predict_layers")
        obj.setdefault("max_draft_len", layers)
    reject_unknown(origin, obj, SPEC_KEYS[kind])
    if kind == "SA":
        _sa_config(origin, obj)
    if obj.get("max_concurrency") is not None:
        raise ConfigError(f"{origin}: max_concurrency (dynamic draft length) is not modelled")
    if obj.get("max_draft_len") is None:
        raise ConfigError(f"{origin}: max_draft_len missing (graphfit does not read it from "
                          f"the checkpoint)")
    d = given = as_int(f"{origin}: max_draft_len", obj["max_draft_len"])
    if kind in ("PARD", "DFlash", "SA") and d < 1:
        raise ConfigError(f"{origin}: max_draft_len must be > 0 for {kind}")
    # validate_speculative_model / validate_draft_target_config; PARD's and DFlash's classes
    # do not require it (they read mask_token_id etc. from the draft checkpoint when given)
    if kind in ("Eagle", "Eagle3", "Draft_Target", "DraftTarget") and not (
            obj.get("speculative_model") or obj.get("speculative_model_dir")):
        raise ConfigError(f"{origin}: speculative_model is required for {kind}")
    dynamic = as_bool(f"{origin}: use_dynamic_tree", obj.get("use_dynamic_tree", False))
    topk = None
    if dynamic:
        key = f"{origin}: dynamic_tree_max_topK"
        if obj.get("dynamic_tree_max_topk") is None:
            raise ConfigError(f"{key}: must be > 0 with use_dynamic_tree")
        topk = as_int(key, obj["dynamic_tree_max_topk"])
    total = None
    if obj.get("max_total_draft_tokens") is not None:
        total = as_int(f"{origin}: max_total_draft_tokens", obj["max_total_draft_tokens"])
    if obj.get("eagle_choices") is not None:
        if dynamic:
            raise ConfigError(f"{origin}: eagle_choices with use_dynamic_tree")
        choices = _eagle_choices(f"{origin}: eagle_choices", obj["eagle_choices"])
        depth = max(len(c) for c in choices)
        if depth != d:
            notes.append(f"{origin}: max_draft_len {d} reset to the tree depth {depth} "
                         f"(TensorRT-LLM does the same)")
            d = depth
        total = len(choices)
    elif method in (SpecMethod.NGRAM, SpecMethod.DRAFT_MODEL, SpecMethod.DFLASH,
                    SpecMethod.SUFFIX) or (method is SpecMethod.MTP and not dynamic):
        total = d  # set_max_total_draft_tokens overwrites a given total
    settings = [Setting("spec_method", method, f"{origin}: decoding_type", layer),
                Setting("num_speculative_tokens", d, f"{origin}: max_draft_len", layer),
                Setting("engine", TR, origin, layer)]
    if topk is not None:
        settings.append(Setting("speculative_eagle_topk", topk,
                                f"{origin}: dynamic_tree_max_topK", layer))
    if kind == "PARD":
        # K + 1 accepted + K - 1 mask tokens a request (PARDDecodingConfig.tokens_per_gen_step)
        settings += [Setting("parallel_draft", True, f"{origin}: decoding_type", layer),
                     Setting("speculative_num_draft_tokens", 2 * d,
                             f"{origin}: decoding_type PARD", layer)]
    elif total is not None:
        settings.append(Setting("speculative_num_draft_tokens", 1 + total,
                                f"{origin}: max_total_draft_tokens", layer))
    if obj.get("draft_len_schedule") is not None:
        key = f"{origin}: draft_len_schedule"
        # validated against the max_draft_len given (before a tree's depth replaces it)
        settings.append(Setting("draft_len_schedule",
                                _schedule(key, obj["draft_len_schedule"], given), key, layer))
        notes.append(f"{key}: its thresholds join the graph batch sizes and padding is on; "
                     f"the per-batch draft length itself is not modelled (the largest is)")
    ignored = sorted(set(obj) - MODELLED_SPEC_KEYS)
    if ignored:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored)}")
    return settings, notes


# PrefillCudaGraphBackend (tensorrt_llm/llmapi/llm_args.py@0004396720:5504-5509)
_BACKENDS = ("disabled", "piecewise", "breakable")


def _prefill_backend(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`prefill_cuda_graph_backend`: disabled, piecewise or breakable (an explicit null is the
    default, disabled)."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    backend = as_str(origin, value).strip().lower()
    if backend not in _BACKENDS:
        raise ConfigError(f"{origin}: {excerpt(value)} is not one of {', '.join(_BACKENDS)}")
    return [*out, Setting("prefill_cuda_graph_backend", backend, origin, layer)], []


def _capture_tokens(origin: str, value: Any) -> tuple[int, ...]:
    """A list of token counts (any integers: the filter drops those outside
    (0, max_num_tokens]), sorted and unique as `_filter_prefill_capture_num_tokens` keeps
    them."""
    if not isinstance(value, list):
        raise ConfigError(f"{origin}: expected a list of integers")
    return tuple(sorted({as_int(origin, v, minimum=-MAX_INT) for v in value}))


def _prefill_tokens(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`prefill_capture_num_tokens`: the prefill graphs' token counts (null: the default
    list when a backend is on)."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    return [*out, Setting("prefill_capture_num_tokens", _capture_tokens(origin, value), origin,
                          layer)], []


def _torch_compile_config(origin: str, value: Any, layer: int
                          ) -> tuple[list[Setting], list[str]]:
    """`torch_compile_config`: the legacy spellings of the prefill inputs
    (`TorchLlmArgs.normalize_prefill_cuda_graph_config`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:6216-6273; `TorchCompileConfig`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:5516-5549):
    enable_piecewise_cuda_graph true means prefill_cuda_graph_backend piecewise, and
    capture_num_tokens (PositiveInt) prefill_capture_num_tokens. Either conflicts with a
    different explicit value of the new key, as in TensorRT-LLM (graphfit's same-layer rule)."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    out.append(Setting("torch_compile", True, origin, layer))
    notes = []
    if obj.get("enable_piecewise_cuda_graph") is not None and as_bool(
            f"{origin}: enable_piecewise_cuda_graph", obj["enable_piecewise_cuda_graph"]):
        out.append(Setting("prefill_cuda_graph_backend", "piecewise",
                           f"{origin}: enable_piecewise_cuda_graph", layer))
        notes.append(f"{origin}: enable_piecewise_cuda_graph is deprecated; it means "
                     f"prefill_cuda_graph_backend: piecewise")
    if obj.get("capture_num_tokens") is not None:
        key = f"{origin}: capture_num_tokens"
        tokens = _capture_tokens(key, obj["capture_num_tokens"])
        if not tokens or tokens[0] < 1:
            raise ConfigError(f"{key}: positive integers (PositiveInt)")
        out.append(Setting("prefill_capture_num_tokens", tokens, key, layer))
    ignored = sorted(set(obj) - {"enable_piecewise_cuda_graph", "capture_num_tokens"})
    if ignored:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored)}")
    return out, notes


def _multimodal_config(origin: str, value: Any, layer: int
                       ) -> tuple[list[Setting], list[str]]:
    """`multimodal_config` (`MultimodalConfig`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:607-680): encoder_cuda_graph buckets are
    validated as `MultimodalEncoderCudaGraphConfig._normalize` does
    (tensorrt_llm/llmapi/llm_args.py@0004396720:545-552), and refused with
    encoder_side_stream_max_ahead > 0 as `validate_encoder_optimization_compatibility` does
    (tensorrt_llm/llmapi/llm_args.py@0004396720:671-680), then noted with the graphs
    `MultimodalEncoderGraphRunner` captures and the token rows their static inputs hold
    (graphfit.planner.engines.trtllm_mm_encoder); their buffers (the vision or audio model's
    own input shapes) are not planned."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    graphs = obj.get("encoder_cuda_graph")
    if graphs is None:
        return out, [f"{origin}: not modelled, ignored (no encoder_cuda_graph)"]
    ahead = as_int(f"{origin}: encoder_side_stream_max_ahead",
                   obj.get("encoder_side_stream_max_ahead", 0), minimum=0)
    if ahead > 0:
        raise ConfigError(f"{origin}: encoder_cuda_graph and encoder_side_stream_max_ahead > 0 "
                          f"are mutually exclusive (TensorRT-LLM refuses them too)")
    shown = []
    planned: list[list[Any]] = []
    for modality, cfg in as_object(f"{origin}: encoder_cuda_graph", graphs).items():
        key = f"{origin}: encoder_cuda_graph.{modality}.buckets"
        raw = as_object(key, cfg).get("buckets")
        if not isinstance(raw, list) or not all(
                isinstance(b, list) and len(b) == 2 for b in raw):
            raise ConfigError(f"{key}: expected [[total_tokens, num_contexts], ...]")
        buckets = mm_encoder_buckets([(as_int(key, t), as_int(key, c)) for t, c in raw])
        padding = as_bool(f"{origin}: encoder_cuda_graph.{modality}.enable_padding",
                          as_object(key, cfg).get("enable_padding", True))
        shown.append(MmEncoderGraphs(buckets, padding).describe(modality))
        planned.append([modality, [list(b) for b in buckets], padding])
    out.append(Setting("mm_encoder_graphs", planned, origin, layer))
    return out, [f"{origin}: multimodal encoder CUDA graphs ({'; '.join(shown)}); their "
                 f"static inputs are the encoder model's: planned (the keyed "
                 f"mm_encoder.<modality> component) for a modality whose inputs graphfit "
                 f"knows from the checkpoint's architecture, else reported only"]


def _optional_size(origin: str, value: Any) -> int | None:
    """An explicit null means the default (normalize_optional_fields_to_defaults)."""
    return None if value is None else as_int(origin, value)


def _removed(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    raise ConfigError(f"{origin}: removed from TensorRT-LLM's LLM API (extra fields not "
                      f"permitted); use cuda_graph_config")


_NEVER = object()


def _noted(why: str, *, unless: Any = _NEVER) -> Handler:
    """A key graphfit does not model, said in a note (none for the value `unless`)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        quiet = value is None or value == unless
        return [Setting("engine", TR, origin, layer)], [] if quiet else [f"{origin}: {why}"]
    return handle


def _switch(field: str, note: str) -> Handler:
    """A boolean key kept as the option `field`, with `note` said while it is on (a null is
    unset: no setting, no note)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        out = [Setting("engine", TR, origin, layer)]
        if value is None:
            return out, []
        on = as_bool(origin, value)
        out.append(Setting(field, on, origin, layer))
        return out, [f"{origin}: {note}"] if on else []
    return handle


# `encode_only`: noted (graphfit plans the encode path from cuda_graph_config mode encode),
# and kept so that `encoder_cuda_graph_config` beside it is refused as TensorRT-LLM refuses
# it (tensorrt_llm/llmapi/llm_args.py@0004396720:5730-5747)
_encode_only = _switch(
    "encode_only",
    "the encode() path: graphfit plans its graphs from cuda_graph_config mode encode (the "
    "encoder component); the decode graphs of a plan are not used there")
# `enable_attention_dp`: kept (the option of that name). With tensor_parallel_size > 1 its
# ranks agree on one graph batch (`CUDAGraphRunner._get_padded_batch`,
# tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:835-846); the plan is one
# rank's and records the rank count
_attention_dp = _switch(
    "enable_attention_dp",
    "attention DP: the plan is one rank's; with tensor_parallel_size > 1 each rank pads to "
    "the captured size of the largest rank's batch and all ranks run eagerly unless they "
    "agree (the plan's attention_dp_ranks), which needs no larger buffers")


def _tensor_parallel(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`tensor_parallel_size` (trtllm-serve `--tp_size` / `--tensor_parallel_size`; an explicit
    null is the default 1): the mapping's tp_size. A feature-mode encoder stays eager at TP
    > 1 (`EncoderConfigMixin.create`,
    tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:123-126), and with
    enable_attention_dp the decode graphs' padding agrees over tp_size ranks."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    size = as_int(origin, value, minimum=1)
    return [*out, Setting("tensor_parallel_size", size, origin, layer)], []


def _one_only(origin: str, value: Any, layer: int, refused: str
              ) -> tuple[list[Setting], list[str]]:
    """A parallel size graphfit plans only at 1 (null is 1): more is refused, in one line,
    as `refused` (the reason it is not modelled)."""
    size = 1 if value is None else as_int(origin, value, minimum=1)
    if size > 1:
        raise ConfigError(f"{origin}: {size} {refused}; plan with 1")
    return [Setting("engine", TR, origin, layer)], []


def _pipeline_parallel(origin: str, value: Any, layer: int
                       ) -> tuple[list[Setting], list[str]]:
    """`pipeline_parallel_size` (trtllm-serve `--pp_size`; null is the default 1): 1 plans as
    before; more is refused as not modelled -- graphfit's plan is one rank holding every
    layer, while with pipeline stages the executor keeps pp_size micro batches in flight
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:238-242) in a loop of its own
    (`_executor_loop_pp`, from tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:694).
    A stage's static inputs and its received hidden states would need no plan of their own
    (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:189-215 reads no pipeline
    size; tensorrt_llm/_torch/models/modeling_utils.py@cb4c622cf5:163-188 receives into a tensor
    the forward makes), and that 2025 executor schedules each micro batch as without stages
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:715), but no executor of the
    pinned runner's era was read, nor speculation, prefill or encoder graphs on a stage
    (docs/engines/trtllm-coverage.md, s41t). The refusal says what a stage runs (s48t): its
    `torch.tensor_split` share of the layers (tensorrt_llm/mapping.py@b35ac1b643:301-304) with
    pp_size micro batches in flight
    (tensorrt_llm/_torch/pyexecutor/py_executor.py@9521caf469:238-239)."""
    size = 1 if value is None else as_int(origin, value, minimum=1)
    return _one_only(origin, value, layer, "pipeline stages are not modelled (each holds a "
                     f"share of the layers; the executor keeps {size} micro batches in flight)")


EP_NOTE = ("moe_expert_parallel_size {size}: read; it changes no graph or buffer graphfit "
           "plans (the graph padding and token counts are gathered over the tensor-parallel "
           "ranks)")


def _expert_parallel(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`moe_expert_parallel_size` (trtllm-serve `--ep_size`; null: TensorRT-LLM picks it):
    checked, and noted as read without effect: the decode graphs' attention-DP padding
    all-gathers over mapping.tp_size ranks
    (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:835-846), the prefill
    graphs' token counts over the tp group
    (tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:22-53), and the
    static tensors' rows read no parallel size
    (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:189-215): experts spread
    over ranks change the MoE weights and all-to-all, which graphfit does not plan."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    size = as_int(origin, value, minimum=1)
    return [*out, Setting("moe_expert_parallel_size", size, origin, layer)], [
        EP_NOTE.format(size=size)]


FILE_KEYS: dict[str, Handler] = {
    "max_batch_size": field_key("max_num_seqs", _optional_size, TR),
    "max_num_tokens": field_key("max_num_batched_tokens", _optional_size, TR),
    "max_seq_len": field_key("max_model_len", _optional_size, TR),
    "cuda_graph_config": cuda_graph_config,
    "max_beam_width": field_key("max_beam_width", _optional_size, TR),
    "enable_attention_dp": _attention_dp,
    "prefill_cuda_graph_backend": _prefill_backend,
    "prefill_capture_num_tokens": _prefill_tokens,
    "torch_compile_config": _torch_compile_config,
    "multimodal_config": _multimodal_config,
    "encoder_cuda_graph_config": encoder_cuda_graph_config,
    "encode_only": _encode_only,
    "encoder_max_batch_size": _encoder_size("encoder_max_batch_size"),
    "encoder_max_num_tokens": _encoder_size("encoder_max_num_tokens"),
    "cuda_graph_batch_sizes": _removed,
    "cuda_graph_max_batch_size": _removed,
    "cuda_graph_padding_enabled": _removed,
}
# trtllm-serve options that are not LLM API keys
# (tensorrt_llm/commands/serve.py@00209af149:388-591); `--config FILE` /
# `--extra_llm_api_options FILE` are read as a config file
SERVE_KEYS: dict[str, Handler] = {
    "tp_size": _tensor_parallel,
    "tensor_parallel_size": _tensor_parallel,
    "pipeline_parallel_size": _pipeline_parallel,
    "context_parallel_size": context_parallel,
    "moe_expert_parallel_size": _expert_parallel,
}
# keys read only where the line or file is TensorRT-LLM's (a trtllm-serve line, its
# --extra_llm_api_options YAML, a config file whose engine is trtllm): vLLM config files spell
# `tensor_parallel_size` too, and there it stays a key graphfit ignores
TRTLLM_ONLY_KEYS: dict[str, Handler] = {"tensor_parallel_size": _tensor_parallel,
                                        "pipeline_parallel_size": _pipeline_parallel,
                                        "context_parallel_size": context_parallel,
                                        "moe_expert_parallel_size": _expert_parallel,
                                        "cp_config": cp_config,
                                        "moe_tensor_parallel_size": moe_tensor_parallel,
                                        "moe_cluster_parallel_size": moe_cluster_parallel,
                                        "moe_config": moe_config}
LINE_KEYS: dict[str, Handler] = {**FILE_KEYS, **TRTLLM_ONLY_KEYS}
IGNORED = frozenset({
    "backend", "kv_cache_config", "moe_expert_parallel_size", "print_iter_log",
    "disable_overlap_scheduler", "stream_interval", "enable_iter_perf_stats", "moe_config",
    "attn_backend", "enable_autotuner", "attention_dp_config",
    "scheduler_config", "guided_decoding_backend", "enable_chunked_prefill",
    "tensor_parallel_size", "pipeline_parallel_size", "context_parallel_size",
    "gpus_per_node", "num_postprocess_workers", "trust_remote_code", "tokenizer",
})
