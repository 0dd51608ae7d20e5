"""TensorRT-LLM's LLM API options that shape its generation graphs.

`max_batch_size` is S, `max_num_tokens` T, `cuda_graph_config` (batch_sizes, max_batch_size,
enable_padding) the ladder and `speculative_config` (decoding_type, max_draft_len) k; these are
the keys of `trtllm-serve --extra_llm_api_options` files and of `LLM(...)`.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.settings import Setting
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
from graphfit.planner.core.errors import ConfigError

TR = Engine.TRTLLM
DECODING_TYPES = {
    "eagle": SpecMethod.EAGLE,
    "eagle3": SpecMethod.EAGLE3,
    "mtp": SpecMethod.MTP,
    "drafttarget": SpecMethod.DRAFT_MODEL,
    "ngram": SpecMethod.NGRAM,
}
SPEC_IGNORED = frozenset({
    "speculative_model_dir", "speculative_model", "eagle3_one_model", "max_matching_ngram_size",
    "is_keep_all", "is_use_oldest", "is_public_pool", "use_relaxed_acceptance_for_thinking",
    "relaxed_topk", "relaxed_delta", "max_total_draft_tokens", "eagle_choices",
    "use_dynamic_tree", "dynamic_tree_max_topk", "num_eagle_layers", "greedy_sampling",
    "draft_len_schedule", "load_format", "max_non_leaves_per_layer",
})


def cuda_graph_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`cuda_graph_config: null` disables graphs; its max_batch_size 0 means the default."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None or (isinstance(value, str) and value.strip() == "null"):
        out.append(Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer))
        return out, []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    reject_unknown(origin, obj, {"batch_sizes", "max_batch_size", "enable_padding", "mode"})
    if obj.get("batch_sizes") is not None:
        key = f"{origin}: batch_sizes"
        out.append(Setting("cudagraph_capture_sizes",
                           as_sizes(key, obj["batch_sizes"], normalize=True), key, layer))
    if obj.get("max_batch_size") not in (None, 0):
        key = f"{origin}: max_batch_size"
        out.append(Setting("max_cudagraph_capture_size", as_int(key, obj["max_batch_size"]),
                           key, layer))
    if obj.get("enable_padding") is not None:
        key = f"{origin}: enable_padding"
        out.append(Setting("cuda_graph_padding", as_bool(key, obj["enable_padding"]), key,
                           layer))
    if obj.get("mode") not in (None, "decode"):
        raise ConfigError(f"{origin}: mode: only decode graphs are modelled, got {obj['mode']!r}")
    return out, []


def speculative_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    reject_unknown(origin, obj, SPEC_IGNORED | {"decoding_type", "max_draft_len",
                                                "num_nextn_predict_layers"})
    kind = as_str(f"{origin}: decoding_type", obj.get("decoding_type"))
    method = DECODING_TYPES.get(kind.lower())
    if method is None:
        raise ConfigError(f"{origin}: decoding_type {kind!r} is not one of "
                          f"Eagle, Eagle3, MTP, DraftTarget, NGram")
    draft_key = "max_draft_len" if obj.get("max_draft_len") is not None else (
        "num_nextn_predict_layers")
    if obj.get(draft_key) is None:
        raise ConfigError(f"{origin}: max_draft_len missing")
    k = as_int(f"{origin}: {draft_key}", obj[draft_key])
    notes = []
    ignored = sorted(set(obj) & SPEC_IGNORED)
    if ignored:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored)}")
    return [Setting("spec_method", method, f"{origin}: decoding_type", layer),
            Setting("num_speculative_tokens", k, f"{origin}: {draft_key}", layer),
            Setting("engine", TR, origin, layer)], notes


def _positive(origin: str, value: Any) -> int:
    return as_int(origin, value)


FILE_KEYS: dict[str, Handler] = {
    "max_batch_size": field_key("max_num_seqs", _positive, TR),
    "max_num_tokens": field_key("max_num_batched_tokens", _positive, TR),
    "max_seq_len": field_key("max_model_len", _positive, TR),
    "cuda_graph_config": cuda_graph_config,
}
IGNORED = frozenset({
    "backend", "kv_cache_config", "enable_attention_dp", "moe_expert_parallel_size",
    "print_iter_log", "disable_overlap_scheduler", "stream_interval", "enable_iter_perf_stats",
    "moe_config", "attn_backend", "enable_autotuner", "torch_compile_config", "max_beam_width",
    "attention_dp_config", "scheduler_config", "guided_decoding_backend",
    "enable_chunked_prefill", "tensor_parallel_size", "pipeline_parallel_size",
})
