"""SGLang's server arguments that shape its decode graphs (`python -m sglang.launch_server`).

`--max-running-requests` is S, `--cuda-graph-max-bs` / `--cuda-graph-bs` the batch-size
ladder, `--speculative-num-steps` k, `--speculative-eagle-topk` the draft width and
`--speculative-num-draft-tokens` the verify width.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_bool, as_int, as_sizes, as_str
from graphfit.planner.core.enums import CUDAGraphMode, Engine, SpecMethod
from graphfit.planner.core.errors import ConfigError

ALGORITHMS = {  # --speculative-algorithm
    "EAGLE": SpecMethod.EAGLE,
    "EAGLE3": SpecMethod.EAGLE3,
    "NEXTN": SpecMethod.MTP,  # SGLang runs NEXTN (MTP) through its EAGLE workers
    "STANDALONE": SpecMethod.DRAFT_MODEL,
    "NGRAM": SpecMethod.NGRAM,
}
SG = Engine.SGLANG


def algorithm(origin: str, value: Any) -> SpecMethod:
    name = as_str(origin, value).upper()
    if name not in ALGORITHMS:
        raise ConfigError(f"{origin}: {value!r} is not one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def _positive(origin: str, value: Any) -> int:
    return as_int(origin, value)


def _padding_disabled(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    if not as_bool(origin, value):
        return [Setting("engine", SG, origin, layer)], []
    return [Setting("cuda_graph_padding", False, origin, layer),
            Setting("engine", SG, origin, layer)], []


def _graphs_disabled(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    out = [Setting("engine", SG, origin, layer)]
    if as_bool(origin, value):
        out.append(Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer))
    return out, []


FILE_KEYS: dict[str, Handler] = {
    "max_running_requests": field_key("max_num_seqs", _positive, SG),
    "cuda_graph_max_bs": field_key("max_cudagraph_capture_size", _positive, SG),
    "cuda_graph_bs": field_key("cudagraph_capture_sizes",
                               lambda o, v: as_sizes(o, v, normalize=True), SG),
    "disable_cuda_graph_padding": _padding_disabled,
    "disable_cuda_graph": _graphs_disabled,
    "speculative_algorithm": field_key("spec_method", algorithm, SG),
    "speculative_num_steps": field_key("num_speculative_tokens", _positive, SG),
    "speculative_eagle_topk": field_key("speculative_eagle_topk", _positive, SG),
    "speculative_num_draft_tokens": field_key("speculative_num_draft_tokens", _positive, SG),
    "context_length": field_key("max_model_len", _positive, SG),
}
IGNORED = frozenset({
    "model_path", "tokenizer_path", "tp_size", "dp_size", "ep_size", "pp_size",
    "mem_fraction_static", "attention_backend", "speculative_draft_model_path",
    "speculative_draft_model_revision", "chunked_prefill_size", "max_prefill_tokens",
    "schedule_policy", "enable_torch_compile", "torch_compile_max_bs", "enable_dp_attention",
    "log_level", "random_seed", "disable_radix_cache", "enable_metrics", "page_size",
    "speculative_accept_threshold_single", "speculative_accept_threshold_acc",
    "speculative_token_map", "speculative_attention_mode", "moe_a2a_backend",
    "enable_two_batch_overlap", "kv_cache_dtype", "quantization", "served_model_name",
    "trust_remote_code", "host", "port", "enable_mixed_chunk", "cuda_graph_max_bs_decode",
})
