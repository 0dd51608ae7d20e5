"""SGLang's `ServerArgs` -> EngineConfig field values (for `EngineConfig.from_sglang`).

Duck-typed on `sglang.srt.server_args.ServerArgs` (raw from `prepare_server_args`, or
resolved), reading attributes only, so graphfit never imports SGLang. SGLang 0.5.23 spells
the decode graphs `cuda_graph_max_bs_decode` / `cuda_graph_bs_decode` /
`disable_decode_cuda_graph` / `cuda_graph_backend_decode` and the JSON `cuda_graph_config`
(its "decode" phase: max_bs, bs, backend) over the deprecated `disable_cuda_graph`; earlier
releases' `cuda_graph_max_bs` / `cuda_graph_bs` are read when the new names are absent.
`max_running_requests` (S) is left to the scheduler by SGLang when not given: pass
`max_num_seqs=` then. Speculation: `speculative_algorithm` (EAGLE, EAGLE3, NEXTN (MTP),
STANDALONE (a draft model), NGRAM, DFLASH, DSPARK, UNO: its `_handle_uno` checks on the
whole ServerArgs, graphfit.planner.engines.sglang_uno.check_line), `speculative_num_steps` (k),
`speculative_eagle_topk`, `speculative_num_draft_tokens`. The batch-size alignment reads
`tp_size`, `attn_dp_size` (or the deprecated `dp_size` with `enable_dp_attention`),
`attn_cp_size` and `enable_two_batch_overlap`.
"""

from __future__ import annotations

import math
from typing import Any

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.engines.sglang_memory import StaticMemoryInputs, VisionEncoder, vlm_applies
from graphfit.planner.engines.sglang_mtp_graphs import BACKEND_KEYS, draft_extend_backend
from graphfit.planner.engines.sglang_multimodal import breakable_prefill_refused, sglang_multimodal
from graphfit.planner.engines.sglang_prefill import PrefillInputs
from graphfit.planner.engines.sglang_qwen3_vl import raises as qwen3_vl_raises
from graphfit.planner.engines.sglang_uno import LINE_KEYS as UNO_LINE_KEYS
from graphfit.planner.engines.sglang_uno import check_line

ALGORITHMS = {"EAGLE": SpecMethod.EAGLE, "EAGLE3": SpecMethod.EAGLE3, "NEXTN": SpecMethod.MTP,
              "STANDALONE": SpecMethod.DRAFT_MODEL, "NGRAM": SpecMethod.NGRAM,
              "DSPARK": SpecMethod.DSPARK,  # graphfit.planner.engines.sglang_dspark
              "DFLASH": SpecMethod.DFLASH,  # graphfit.planner.engines.sglang_dflash
              "UNO": SpecMethod.UNO}  # graphfit.planner.engines.sglang_uno


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
    # the capped FULL-prefill PD prefill server's mamba slack (sglang_mamba_memory)
    put("prefill_max_requests", _get(server_args, "prefill_max_requests"))
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
    # decode context parallelism (issue 23 s44d): graphfit.planner.engines.sglang_dcp decides
    # what is planned, as for a pasted line
    put("dcp_size", _get(server_args, "dcp_size"))
    put("dcp_comm_backend", _get(server_args, "dcp_comm_backend"))
    if _get(server_args, "dcp_size") not in (None, 1):  # fi_a2a's TP per node (s47d)
        put("nnodes", _get(server_args, "nnodes"))
    if _get(server_args, "enable_two_batch_overlap") is True:
        out["two_batch_overlap"] = True
    if _get(server_args, "disable_attn_tp_gather") is True:  # issue 23 s68l
        out["disable_attn_tp_gather"] = True
    put("moe_dense_tp_size", _get(server_args, "moe_dense_tp_size"))  # issue 23 s69c
    if _get(server_args, "enable_dp_lm_head") is True:  # DFLASH / DSPARK under attention DP
        out["enable_dp_lm_head"] = True
    a2a = _get(server_args, "moe_a2a_backend")
    if a2a is not None:
        out["moe_a2a_backend"] = str(a2a)
    # normal with deepep: both graph phases off after the memory hook (moe_hook.py:383-398;
    # the model applies it, graphfit.planner.engines.sglang_moe_a2a.normal_mode_off)
    put("deepep_mode", _get(server_args, "deepep_mode"))
    put("moe_runner_backend", _get(server_args, "moe_runner_backend"))
    # the LoRA flags the LoRA MoE runners' start-up checks read (sglang_lora_runner; s65d)
    # by Python's truth, as SGLang reads it (lora_hook.py:39-50; `"false"` is on, 0 off;
    # issue 23 s68l); given and false, the paths are ignored (s67l)
    lora = _get(server_args, "enable_lora")
    if lora is not None:
        out["enable_lora" if lora else "lora_disabled"] = True
    lora_backend = _get(server_args, "lora_backend")
    if isinstance(lora_backend, str) and lora_backend.strip() not in ("", "csgmv"):
        out["lora_backend"] = lora_backend
    rank = _get(server_args, "max_lora_rank")
    if isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0:
        out["max_lora_rank"] = rank
    for given, field in (("lora_paths", "lora_paths_given"),
                         ("lora_target_modules", "lora_target_modules_given")):
        if _get(server_args, given):
            out[field] = True
    out.update(_lora_limits(server_args))  # the rest of check_lora_server_args (s66l)
    out.update(_server_check_flags(server_args))  # check_server_args's own (s67b)
    put("speculative_moe_a2a_backend", _get(server_args, "speculative_moe_a2a_backend"))
    # --quantization: megamoe's NVFP4 rule and FlashInfer's runner asserts
    # (graphfit.planner.engines.sglang_megamoe, sglang_flashinfer_a2a)
    put("quant_method", _get(server_args, "quantization"))
    # a record whose `unquant` SGLang already resolved to none keeps the explicit opt-out
    # beside it (serving_hook.py:692-703): the class overrides must not copy the
    # checkpoint's method then (model_overrides/qwen3_moe.py:46; issue 23 s63c)
    if _get(server_args, "quantization") is None and (
            _get(server_args, "_quantization_explicitly_unset") is True):
        out["quant_method"] = "unquant"
    # the runners' seq_lens fills (graphfit.planner.engines.sglang_seq_len_fill): the
    # target's decode backend (model_override_base.py:138-152) and the draft runner's own
    decode = _get(server_args, "decode_attention_backend") or _get(server_args,
                                                                   "attention_backend")
    if isinstance(decode, str) and decode:
        out["decode_attention_backend"] = decode
    draft = _get(server_args, "speculative_draft_attention_backend")
    if isinstance(draft, str) and draft:
        out["draft_attention_backend"] = draft
    prefill = _get(server_args, "prefill_attention_backend") or _get(server_args,
                                                                     "attention_backend")
    if isinstance(prefill, str) and prefill:  # unified memory's checks (sglang_unified_memory)
        out["prefill_attention_backend"] = prefill
    algorithm = _get(server_args, "speculative_algorithm")
    if algorithm:
        name = str(getattr(algorithm, "name", algorithm)).upper()
        if name == "FROZEN_KV_MTP":  # an MTP draft over the target's frozen KV
            out["spec_method"], out["frozen_kv_mtp"] = SpecMethod.MTP, True
        elif name not in ALGORITHMS:
            raise ConfigError(f"speculative_algorithm: {algorithm!r} is not modelled")
        else:
            out["spec_method"] = ALGORITHMS[name]
        if name == "UNO":  # _handle_uno's checks on the flags the plan does not carry
            check_line({key: _get(server_args, key) for key in UNO_LINE_KEYS})
        if _get(server_args, "enable_multi_layer_eagle") is True:
            out["multi_layer_eagle"] = True
        backend = draft_extend_backend({key: _get(server_args, key) for key in BACKEND_KEYS})
        if backend is not None:  # multi-layer EAGLE's draft-extend graph count
            out["mtp_draft_backend"] = backend[0]
        if (_get(server_args, "speculative_adaptive") is True
                and _get(server_args, "speculative_adaptive_config") is None
                and _get(server_args, "enable_pdmux") is not True):
            # the CLI input; the model turns it off where SGLang falls back
            # (graphfit.planner.engines.sglang_adaptive.fallback_reason)
            out["speculative_adaptive"] = True
        put("num_speculative_tokens", _get(server_args, "speculative_num_steps"))
        put("speculative_eagle_topk", _get(server_args, "speculative_eagle_topk"))
        drafts = _get(server_args, "speculative_num_draft_tokens")
        if name == "DFLASH" and drafts is None:  # the block size (speculative_hook.py:287-446)
            drafts = _get(server_args, "speculative_dflash_block_size")
        put("speculative_num_draft_tokens", drafts)
        gamma = _get(server_args, "speculative_dspark_block_size")
        if name == "DSPARK" and gamma is not None:  # speculative_hook.py:807-840
            window = out.get("speculative_num_draft_tokens")
            if window is not None and window != int(gamma) + 1:
                raise ConfigError(f"speculative_num_draft_tokens: {window} is not the DSPARK "
                                  f"gamma {gamma} + 1 (speculative_hook.py:826-835)")
            out["speculative_num_draft_tokens"] = int(gamma) + 1
    return out


# fields that change prefill graphs in ways graphfit does not model: refused, never planned
_PREFILL_UNMODELLED = (
    # the raw readers here see no config.json to tell a CP target; the live check reads the
    # flag with the model (graphfit.inputs.sglang_prefill_cp via sglang_live, issue 23 s52c)
    ("enable_prefill_cp", "prefill context parallelism (layers/cp/bcg: its own capture list)"),
    ("enable_mis", "multi-item scoring (attention_hook.py:535-553)"),
    ("debug_tensor_dump_output_folder", "tensor dump mode (serving_hook.py:542-561)"),
    ("enable_mixed_chunk", "mixed chunked prefill (prefill_cuda_graph_runner.py:315-320)"),
)


def _prefill_phase(args: Any) -> dict[str, Any]:
    config = _get(args, "cuda_graph_config")
    prefill = config.get("prefill") if isinstance(config, dict) else _get(config, "prefill")
    if prefill is None:
        return {}
    if isinstance(prefill, dict):
        return dict(prefill)
    return {k: getattr(prefill, k) for k in ("backend", "max_bs", "bs")
            if getattr(prefill, k, None) is not None}


def prefill_inputs_from_sglang(server_args: Any, gpu_memory_gb: float | None = None, *,
                               request_pool: int | None = None,
                               model_context_length: int | None = None,
                               before_moe_hook: bool = False) -> PrefillInputs:
    """graphfit's `PrefillInputs` read from a raw (unresolved) ServerArgs-like object, with
    the flags' precedence of `parse_cuda_graph_config` (cuda_graph_hook.py:32-99): the
    disable flags, then --cuda-graph-backend-prefill / -max-bs-prefill / -bs-prefill, then
    the JSON "prefill" phase; `gpu_memory_gb` is what nvidia-smi reports, `request_pool` the
    scheduler's request slots and `model_context_length` the model's (both bound the capture
    batch; --context-length wins over the model's). Settings that
    change prefill graphs in ways graphfit does not model are refused with a ConfigError
    naming them. `before_moe_hook`: the backend as the memory hook sees it, before DeepEP's
    normal mode disables it (arg_groups/pipeline.py:218, 295)."""
    if server_args is None:
        raise ConfigError("from_sglang: expected ServerArgs, got None")
    for name, what in _PREFILL_UNMODELLED:
        if _get(server_args, name) not in (None, False):
            raise ConfigError(f"{name}: {what} is not modelled for prefill graphs")
    a2a = str(_get(server_args, "moe_a2a_backend") or "none")
    phase = _prefill_phase(server_args)
    for key in ("max_context_size", "full_prefill_prefix_chunk_tokens", "max_seq_len"):
        if phase.get(key) is not None:
            raise ConfigError(f"cuda_graph_config.prefill.{key}: not modelled")
    for name in ("cuda_graph_max_seq_len_prefill", "cuda_graph_prefill_max_context"):
        if _get(server_args, name) is not None:
            raise ConfigError(f"{name}: not modelled (context-bounded prefill replay)")
    backend: str | None = None
    if _get(server_args, "disable_cuda_graph") is True:
        backend = "disabled"
    if _get(server_args, "disable_prefill_cuda_graph") is True:
        backend = "disabled"
    given = _get(server_args, "cuda_graph_backend_prefill")
    if given is not None:
        backend = str(given)
    if "backend" in phase:
        backend = str(phase["backend"])
    if (not before_moe_hook and a2a == "deepep"
            and _get(server_args, "deepep_mode") == "normal"):
        backend = "disabled"  # moe_hook.py:383-398, after the flags and the memory hook
    max_tokens = phase.get("max_bs", _get(server_args, "cuda_graph_max_bs_prefill"))
    tokens = phase.get("bs", _get(server_args, "cuda_graph_bs_prefill"))
    attn_dp = _get(server_args, "attn_dp_size")
    if _get(server_args, "enable_dp_attention") is True and attn_dp in (None, 1):
        attn_dp = _get(server_args, "dp_size")
    mode = _get(server_args, "disaggregation_mode")
    return PrefillInputs(
        backend=backend,
        max_tokens=None if max_tokens is None else int(max_tokens),
        tokens=None if tokens is None else tuple(int(t) for t in tokens),
        chunked_prefill_size=_get(server_args, "chunked_prefill_size"),
        max_total_tokens=_get(server_args, "max_total_tokens"),
        tp_size=_get(server_args, "tp_size") or 1, attn_dp_size=attn_dp or 1,
        attn_cp_size=_get(server_args, "attn_cp_size") or 1,
        pp_size=_get(server_args, "pp_size") or 1,
        two_batch_overlap=_get(server_args, "enable_two_batch_overlap") is True,
        disaggregation_mode=str(mode) if mode is not None else "null",
        attention_backend=_get(server_args, "attention_backend"), gpu_memory_gb=gpu_memory_gb,
        llama2_path="llama-2" in str(_get(server_args, "model_path") or "").lower(),
        request_pool=request_pool,
        context_length=_get(server_args, "context_length") or model_context_length,
        full_max_requests=phase.get("full_prefill_max_req"), moe_a2a_backend=a2a,
        # breakable prefill graphs off under DCP unless given (cuda_graph_hook.py:212-216)
        dcp=(_get(server_args, "dcp_size") or 1) > 1,
        disable_attn_tp_gather=_get(server_args, "disable_attn_tp_gather") is True,
        moe_dense_tp_size=_get(server_args, "moe_dense_tp_size"))  # issue 23 s69c


def _decode_graphs_given(args: Any) -> tuple[bool, bool]:
    """(decode graphs on, backend locked) after `parse_cuda_graph_config`'s precedence
    (cuda_graph_hook.py:54-99)."""
    backend: str | None = None
    if _get(args, "disable_cuda_graph") is True or _get(args, "disable_decode_cuda_graph") is True:
        backend = "disabled"
    given = _get(args, "cuda_graph_backend_decode")
    if given is not None:
        backend = str(given)
    phase = _decode_phase(args)
    if "backend" in phase:
        backend = str(phase["backend"])
    return backend != "disabled", backend is not None


def memory_inputs_from_sglang(server_args: Any, gpu_memory_gb: float | None = None, *,
                              mla: bool = False, vision: VisionEncoder | None = None,
                              multimodal: bool = False, architecture: str | None = None,
                              sm90: bool | None = None,
                              post_capture_kv_sizing: bool | None = None,
                              post_capture_env: bool | None = None,
                              mooncake_protocol: str = "rdma",
                              hybrid_swa: bool | None = None,
                              mamba: bool = False) -> StaticMemoryInputs:
    """What SGLang's default mem_fraction_static reads (sglang_memory's docstring), from a raw
    ServerArgs-like object, at the point `handle_gpu_memory_settings` runs: after the CUDA
    graph hook (PD roles, prefill compatibility), before the attention backend, speculative
    and attention-DP hooks (arg_groups/pipeline.py). The model's facts come from the caller:
    `mla` (an MLA attention model), `multimodal` and `architecture` (graphfit's reading of the
    model directory: graphfit.planner.engines.sglang_multimodal) and `vision` (its vision
    encoder); the vision adjustment applies only where SGLang's `is_vlm` holds (multimodal,
    not --language-only, not a PD decode server, memory_hook.py:283-289). `sm90`: the GPU's
    generation, for the large-Hopper Qwen3-VL decode override (graphfit.planner.engines.
    sglang_qwen3_vl). `post_capture_kv_sizing`: whether SGLang sizes KV after capture; None:
    graphfit's restatement (graphfit.planner.engines.sglang_post_capture) from
    `post_capture_env`, SGLANG_ENABLE_POST_CAPTURE_KV_SIZING as graphfit's environment reader
    records it (None: not in the environment), the architecture and these arguments;
    `mooncake_protocol` (MOONCAKE_PROTOCOL), `hybrid_swa` and `mamba` (the model's layout, for
    --enable-unified-memory): the predicate's other inputs a ServerArgs does not carry."""
    from dataclasses import replace

    from graphfit.planner.engines.sglang_memory import default_decode_max_bs
    from graphfit.planner.engines.sglang_post_capture import (
        PostCaptureInputs,
        planned,
        switch_on,
    )
    from graphfit.planner.engines.sglang_prefill import (
        deepseek_v4_breakable_off,
        given_chunk,
        resolve_prefill,
    )

    prefill_in = prefill_inputs_from_sglang(server_args, gpu_memory_gb, before_moe_hook=True)
    if _get(server_args, "mem_fraction_static") is not None:
        raise ConfigError("mem_fraction_static: given, so SGLang reserves nothing by default")
    mode = prefill_in.disaggregation_mode
    decode_on, locked = _decode_graphs_given(server_args)
    if mode == "prefill" and not locked:
        decode_on = False  # cuda_graph_hook.py:557-567
    phase = _decode_phase(server_args)
    sizes = phase.get("bs", _get(server_args, "cuda_graph_bs_decode"))
    given_max = phase.get("max_bs", _get(server_args, "cuda_graph_max_bs_decode"))
    S = _get(server_args, "max_running_requests")
    if sizes:
        max_bs = max(int(s) for s in sizes)  # memory_hook.py:206-207
    elif given_max is not None:
        max_bs = int(given_max)
    else:
        max_bs, _ = default_decode_max_bs(gpu_memory_gb, prefill_in.tp_size)
        if S is not None:
            max_bs = min(max_bs, int(S))  # memory_hook.py:182-188
            if qwen3_vl_raises(int(S), gpu_memory_gb, max_bs, locked=False,
                               multimodal=sglang_multimodal(
                                   multimodal, architecture,
                                   _get(server_args, "language_model_only") is True),
                               architecture=architecture, sm90=sm90):
                max_bs = int(S)  # memory_hook.py:190-196
    # prefill graphs as the memory hook sees them: before the attention-backend rule and
    # the attention-DP re-clamp
    lm_only = _get(server_args, "language_model_only") is True
    mm = sglang_multimodal(multimodal, architecture, lm_only)
    prefill = resolve_prefill(replace(
        prefill_in, attention_backend=None, attn_dp_size=1,
        multimodal_breakable_off=breakable_prefill_refused(multimodal, architecture, lm_only),
        deepseek_v4_breakable_off=deepseek_v4_breakable_off(architecture)))
    cps = given_chunk(prefill_in.chunked_prefill_size, gpu_memory_gb)
    drafts = _get(server_args, "speculative_num_draft_tokens")
    is_vlm = mm and vlm_applies(mode, _get(server_args, "language_only") is True)
    if post_capture_kv_sizing is None:
        post_capture_kv_sizing = planned(PostCaptureInputs(
            switch=switch_on(post_capture_env, architecture), architecture=architecture,
            mla=mla, disaggregation_mode=mode, decode_graphs=decode_on,
            prefill_graphs=prefill.phase_backend != "disabled",
            prefill_max_tokens=max(prefill.tokens, default=0), chunked_prefill_size=cps,
            unified_memory=_get(server_args, "enable_unified_memory") is True,
            declined=any(_get(server_args, name) is True for name in (
                "enable_kv_cache_sharding", "enable_memory_saver",
                "prefill_only_disable_kv_cache")),
            **post_capture_args(server_args, mooncake_protocol, hybrid_swa, mamba)))
    return StaticMemoryInputs(
        gpu_memory_gb=gpu_memory_gb, disaggregation_mode=mode,
        max_running_requests=None if S is None else int(S), decode_max_bs=max_bs,
        decode_graphs=decode_on, prefill_graphs=prefill.phase_backend != "disabled",
        prefill_sizes=len(prefill.tokens), chunked_prefill_size=cps,
        draft_tokens=None if drafts is None else int(drafts), tp_size=prefill_in.tp_size,
        pp_size=prefill_in.pp_size, attn_dp_size=prefill_in.attn_dp_size, mla=mla,
        vision=vision if vision is not None and is_vlm else None, vlm=is_vlm,
        deepep=prefill_in.moe_a2a_backend == "deepep",
        prefill_breakable=prefill.phase_backend == "breakable",
        post_capture_kv_sizing=post_capture_kv_sizing,
        max_prefill_tokens=post_capture_args(server_args, mooncake_protocol, hybrid_swa,
                                             mamba)["max_prefill_tokens"])


def post_capture_args(server_args: Any, mooncake_protocol: str, hybrid_swa: bool | None,
                      mamba: bool) -> dict[str, Any]:
    """The PostCaptureInputs fields a raw ServerArgs gives beyond the memory hook's own
    (graphfit.planner.engines.sglang_post_capture): the device with its index stripped
    (serving_hook.py:650-660; unset: CUDA, graphfit's only platform), the transfer backend, PP
    dynamic chunking, the speculative algorithm as typed and --dcp-size."""
    device = _get(server_args, "device")
    algorithm = _get(server_args, "speculative_algorithm")
    return {
        "device": "cuda" if device is None else str(device).split(":")[0],
        "transfer_backend": str(_get(server_args, "disaggregation_transfer_backend")
                                or "mooncake"),
        "mooncake_protocol": mooncake_protocol, "pp_size": int(_get(server_args, "pp_size") or 1),
        "dynamic_chunking": _get(server_args, "enable_dynamic_chunking") is True,
        "max_prefill_tokens": max(int(_get(server_args, "max_prefill_tokens") or 0), 0)
        if _get(server_args, "max_prefill_tokens") is not None else 16384,
        "hybrid_swa": hybrid_swa, "mamba": mamba,
        "spec_algorithm": None if algorithm is None else str(algorithm),
        "dcp_size": int(_get(server_args, "dcp_size") or 1)}  # declines (overrides.py:1807)


def _server_check_flags(server_args: Any) -> dict[str, Any]:
    """`--nnodes` and `--enable-torch-compile` for `check_server_args`'s node-count and
    torch-compile padding asserts (validation_hook.py:177-202; graphfit.planner.engines.
    sglang_server_checks, issue 23 s67b), where live ServerArgs hold values of the option's
    type."""
    out: dict[str, Any] = {}
    nodes = _get(server_args, "nnodes")
    if isinstance(nodes, int) and not isinstance(nodes, bool) and 1 <= nodes <= MAX_INT:
        out["nnodes"] = nodes
    if _get(server_args, "enable_torch_compile") is True:
        out["enable_torch_compile"] = True
    return out


def _lora_limits(server_args: Any) -> dict[str, Any]:
    """The LoRA fields the rest of `check_lora_server_args` reads (lora_hook.py:36-178;
    graphfit.planner.engines.sglang_lora_runner, issue 23 s66l), where live ServerArgs hold
    values of the option's type; anything else keeps the option's default."""
    out: dict[str, Any] = {}
    for name in ("max_loras_per_batch", "max_loaded_loras"):
        value = _get(server_args, name)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_INT:
            out[name] = value
    drain = _get(server_args, "lora_drain_wait_threshold")
    if (isinstance(drain, (int, float)) and not isinstance(drain, bool)
            and math.isfinite(drain)):
        out["lora_drain_wait_threshold"] = float(drain)
    for name in ("enable_lora_overlap_loading", "enable_pdmux"):
        if _get(server_args, name) is True:
            out[name] = True
    paths = _get(server_args, "lora_paths")
    if isinstance(paths, (list, tuple, dict)):
        out["lora_paths_count"] = len(paths)
    targets = _get(server_args, "lora_target_modules")
    if isinstance(targets, (list, tuple, set, frozenset)):
        names = {str(t) for t in targets}
        out["lora_target_all_mixed"] = "all" in names and len(names) > 1
    return out
