"""SGLang's `ServerArgs` -> EngineConfig field values (for `EngineConfig.from_sglang`).

Duck-typed on `sglang.srt.server_args.ServerArgs` (raw from `prepare_server_args`, or
resolved), reading attributes only, so graphfit never imports SGLang. SGLang 0.5.23 spells
the decode graphs `cuda_graph_max_bs_decode` / `cuda_graph_bs_decode` /
`disable_decode_cuda_graph` / `cuda_graph_backend_decode` and the JSON `cuda_graph_config`
(its "decode" phase: max_bs, bs, backend) over the deprecated `disable_cuda_graph`; earlier
releases' `cuda_graph_max_bs` / `cuda_graph_bs` are read when the new names are absent.
`max_running_requests` (S) is left to the scheduler by SGLang when not given: pass
`max_num_seqs=` then. Speculation: `speculative_algorithm` (EAGLE, EAGLE3, NEXTN (MTP),
STANDALONE (a draft model), NGRAM), `speculative_num_steps` (k),
`speculative_eagle_topk`, `speculative_num_draft_tokens`. The batch-size alignment reads
`tp_size`, `attn_dp_size` (or the deprecated `dp_size` with `enable_dp_attention`),
`attn_cp_size` and `enable_two_batch_overlap`.
"""

from __future__ import annotations

from typing import Any

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError

ALGORITHMS = {"EAGLE": SpecMethod.EAGLE, "EAGLE3": SpecMethod.EAGLE3, "NEXTN": SpecMethod.MTP,
              "STANDALONE": SpecMethod.DRAFT_MODEL, "NGRAM": SpecMethod.NGRAM}


def _get(obj: Any, name: str) -> Any:
    return getattr(obj, name, None) if obj is not None else None


def _decode_phase(args: Any) -> dict[str, Any]:
    config = _get(args, "cuda_graph_config")
    decode = config.get("decode") if isinstance(config, dict) else _get(config, "decode")
    if decode is None:
        return {}
    if isinstance(decode, dict):
        return {k: v for k, v in decode.items() if v is not None}
    return {k: getattr(decode, k) for k in ("max_bs", "bs", "backend")
            if getattr(decode, k, None) is not None}


def fields_from_sglang(server_args: Any) -> dict[str, Any]:
    """EngineConfig keyword arguments read from a ServerArgs-like object."""
    if server_args is None:
        raise ConfigError("from_sglang: expected ServerArgs, got None")
    out: dict[str, Any] = {"engine": "sglang"}

    def put(name: str, value: Any) -> None:
        if value is not None:
            out[name] = value

    put("max_num_seqs", _get(server_args, "max_running_requests"))
    put("max_model_len", _get(server_args, "context_length"))
    decode = _decode_phase(server_args)
    max_bs = decode.get("max_bs", _get(server_args, "cuda_graph_max_bs_decode"))
    if max_bs is None:
        max_bs = _get(server_args, "cuda_graph_max_bs")
    put("max_cudagraph_capture_size", max_bs)
    sizes = decode.get("bs", _get(server_args, "cuda_graph_bs_decode"))
    if sizes is None:
        sizes = _get(server_args, "cuda_graph_bs")
    if sizes:
        out["cudagraph_capture_sizes"] = tuple(sorted(set(int(s) for s in sizes)))
    backend = decode.get("backend", _get(server_args, "cuda_graph_backend_decode"))
    if (backend == "disabled" or _get(server_args, "disable_decode_cuda_graph") is True
            or _get(server_args, "disable_cuda_graph") is True):
        out["cudagraph_mode"] = CUDAGraphMode.NONE
    if _get(server_args, "disable_cuda_graph_padding") is True:
        out["cuda_graph_padding"] = False
    # the batch-size alignment and the request pool per attention-DP group
    put("tp_size", _get(server_args, "tp_size"))
    attn_dp = _get(server_args, "attn_dp_size")
    if _get(server_args, "enable_dp_attention") is True and (attn_dp in (None, 1)):
        attn_dp = _get(server_args, "dp_size")  # the deprecated spelling of --attn-dp-size
    put("attn_dp_size", attn_dp)
    put("attn_cp_size", _get(server_args, "attn_cp_size"))
    if _get(server_args, "enable_two_batch_overlap") is True:
        out["two_batch_overlap"] = True
    algorithm = _get(server_args, "speculative_algorithm")
    if algorithm:
        name = str(getattr(algorithm, "name", algorithm)).upper()
        if name not in ALGORITHMS:
            raise ConfigError(f"speculative_algorithm: {algorithm!r} is not modelled")
        out["spec_method"] = ALGORITHMS[name]
        put("num_speculative_tokens", _get(server_args, "speculative_num_steps"))
        put("speculative_eagle_topk", _get(server_args, "speculative_eagle_topk"))
        put("speculative_num_draft_tokens", _get(server_args, "speculative_num_draft_tokens"))
    return out
