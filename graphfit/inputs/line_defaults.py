"""The values a pasted line leaves open, settled as its engine settles them once every source
is merged (they depend on the model's length, the GPU and other flags, so they cannot be weak
settings of the line alone).

* vLLM: max_num_seqs / max_num_batched_tokens from the release's own rules
  (graphfit.inputs.vllm_defaults), on the GPU `--gpu-memory-gb` names (GiB or a GPU name), or
  an 80 GB Hopper-class GPU, said in a note. vLLM's model takes no GPU field, so the figure is
  used here and dropped.
* SGLang: the GPU memory its decode max_bs default comes from (memory_hook.py:89-180): an
  80 GB GPU unless `--gpu-memory-gb` says otherwise, said in a note when no max_bs or list is
  given. max_running_requests left open is the planner's SGLang model's to settle (48 with
  speculation, speculative_hook.py:1086-1094; else the KV-sized pool).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs import (
    sglang_draft_default,
    sglang_dspark_env,
    sglang_inkling_prefill,
    sglang_kv_auto,
    sglang_mamba_flags,
    sglang_minimax_draft,
    sglang_minimax_target,
    sglang_prefill_cp_bcg,
    sglang_qwen3_5_page,
    sglang_rocm_aiter,
    sglang_rocm_deepgemm,
    sglang_rules,
    sglang_runner_backends,
    sglang_unified_backends,
    sglang_uno,
    vllm_defaults,
)
from graphfit.inputs.commandline import PastedLine, target
from graphfit.inputs.gpus import gpu_name
from graphfit.inputs.settings import Resolved
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.registry import default_version

GPU_FIELD = "gpu_memory_gb"
SM90_FIELD = "sm90"
SM100_FIELD = "sm100"
CAPABILITY_FIELD = "gpu_capability"
FABRIC_FIELD = "mnnvl_fabric"  # SglangOptions.mnnvl_fabric (graphfit.inputs.gpus, s55k)
ROCM_FIELD = "gpu_rocm"  # SglangOptions.gpu_rocm (graphfit.inputs.gpus, issue 23 s68l)
DEFAULT_GPU_NOTE = "no --gpu-memory-gb: an 80 GB GPU is assumed"
BATCHED_DP_BACKENDS = frozenset({"deepep_low_latency", "nixl_ep"})  # parallel.py:796-804


def _with(resolved: Resolved, values: dict[str, Any], origins: dict[str, str],
          notes: list[str]) -> Resolved:
    return replace(resolved, values=MappingProxyType(values),
                   origins=MappingProxyType(origins), notes=(*resolved.notes, *notes))


def _line_facts(line: PastedLine, values: Mapping[str, Any]) -> vllm_defaults.LineFacts:
    raw = line.values
    chunked = raw.get("enable_chunked_prefill")
    mode = values.get("performance_mode")
    dp = raw.get("data_parallel_size") or 1
    return vllm_defaults.LineFacts(
        max_num_seqs=values.get("max_num_seqs"),
        max_num_batched_tokens=values.get("max_num_batched_tokens"),
        max_model_len=int(values.get("max_model_len") or EngineConfig.max_model_len),
        chunked_prefill=chunked is not False,
        throughput=str(getattr(mode, "value", mode) or "").lower() == "throughput",
        batched_dp_moe=(raw.get("all2all_backend") in BATCHED_DP_BACKENDS
                        and raw.get("enable_expert_parallel") is True
                        and isinstance(dp, int) and dp > 1))


def settle_vllm(line: PastedLine, resolved: Resolved, gpu_given: object,
                skip: frozenset[str] = frozenset()) -> Resolved:
    """vLLM's batch defaults for what the line leaves open (vllm_defaults.settle)."""
    values, origins = dict(resolved.values), dict(resolved.origins)
    # the release the line is planned as (--engine-version, or the one whose parser read it);
    # else the registry's default vLLM release
    version = str(values.get("engine_version") or default_version("vllm"))
    row = vllm_defaults.release(version)
    gib = values.pop(GPU_FIELD, None)
    origins.pop(GPU_FIELD, None)
    # SGLang's (graphfit.inputs.gpus.gpu_sm90 / 100 / gpu_capability / gpu_mnnvl_fabric /
    # gpu_rocm)
    for field in (SM90_FIELD, SM100_FIELD, CAPABILITY_FIELD, FABRIC_FIELD, ROCM_FIELD):
        values.pop(field, None)
        origins.pop(field, None)
    assumed = gib is None
    gpu = vllm_defaults.GpuFacts(vllm_defaults.DEFAULT_GPU_GIB if assumed else float(gib),
                                 "" if assumed else gpu_name(gpu_given))
    settled = vllm_defaults.settle(row, gpu, _line_facts(line, values))
    used = [name for name in settled.defaulted if name not in skip]
    if not used:
        return _with(resolved, values, origins, [])
    origin = f"vLLM {version}'s default ({row.source})"
    for name in used:
        values[name] = getattr(settled, name)
        origins[name] = origin
    shown = ", ".join(f"{name}={values[name]}" for name in used)
    gpu_said = (f"{DEFAULT_GPU_NOTE} ({row.small[0]} sequences, {row.small[1]} tokens on "
                f"A100s and GPUs under {vllm_defaults.GIB_HOPPER} GiB)" if assumed
                else f"GPU {settled.tier}")
    lowered = (f", max_num_seqs lowered to max_num_batched_tokens ({row.lowered_at})"
               if "max_num_seqs" in used
               and settled.max_num_seqs == settled.max_num_batched_tokens else "")
    note = (f"{shown}: not on the line, so vLLM {version}'s defaults are used: {gpu_said}"
            f"{lowered}; put it on the line to be sure")
    return _with(resolved, values, origins, [note])


def settle_sglang(line: PastedLine, resolved: Resolved) -> Resolved:
    """The GPU memory SGLang's decode max_bs default needs: 80 GB unless given."""
    values, origins = dict(resolved.values), dict(resolved.origins)
    notes = []
    if GPU_FIELD in values:
        pass
    elif values.get("max_cudagraph_capture_size") is None and values.get(
            "cudagraph_capture_sizes") is None:
        values[GPU_FIELD] = vllm_defaults.DEFAULT_GPU_GIB
        origins[GPU_FIELD] = DEFAULT_GPU_NOTE
        notes.append(f"{DEFAULT_GPU_NOTE} for SGLang's default decode max_bs "
                     "(memory_hook.py:89-180); pass --gpu-memory-gb GiB or a GPU name")
    adaptive = sglang_rules.refuse_adaptive(line.values, values)
    if adaptive is not None and sglang_rules.adaptive_fallback(line.values, values) is None:
        values["speculative_adaptive"] = True  # SGLang keeps it on: one set per step
        origins["speculative_adaptive"] = "--speculative-adaptive"
    settled = _with(resolved, values, origins, [*notes, *([adaptive] if adaptive else [])])
    if sglang_rules.needs_check(line.values):
        sglang_rules.refuse(line.values, settled.config())
    return settled


def settle(line: PastedLine, resolved: Resolved, gpu_given: object,
           skip: frozenset[str] = frozenset()) -> Resolved:
    """The engine's own defaults for what `line` leaves open (module docstring)."""
    if line.engine is Engine.VLLM:
        return settle_vllm(line, resolved, gpu_given, skip)
    if line.engine is Engine.SGLANG:
        # the model facts read here see the override args too (graphfit.inputs.target_overrides)
        with target(line.engine, line.model, line.values):
            # MiniMax-M3 NVFP4's DSPARK / DFLASH hook checks (issue 23, s53d): resolution first
            sglang_minimax_target.settle_hook(line.values, line.environ, gpu_given)
            # multi-layer EAGLE's draft backend: SGLang's default by GPU and model; the
            # attention hook's checks there read the line's skip-softmax variable (s67p)
            # ... and the KV dtype the model hook resolved (a DSA target's or Muse Spark's
            # `auto`, the DSA dtype asserts: graphfit.inputs.sglang_kv_auto.on_line; s68p)
            with sglang_dspark_env.line_environment(line.environ):
                resolved = sglang_draft_default.settle(
                    sglang_kv_auto.on_line(line.values, sglang_draft_default.gpu_kind(
                        gpu_given)), resolved, gpu_given)
            # the runners' seq_lens fills: SGLang's default backend (aiter on ROCm)
            resolved = sglang_runner_backends.settle(line.values, resolved, gpu_given)
            # unified memory's backend checks: SGLang's default for an unnamed phase
            resolved = sglang_unified_backends.settle(line.values, resolved, gpu_given)
            # prefill CP's breakable graphs: SGLang's default prefill backend (issue 23 s54g)
            with sglang_dspark_env.line_environment(line.environ):
                resolved = sglang_prefill_cp_bcg.settle(line.values, resolved, gpu_given)
            # Qwen3-Next / Qwen3.5's SM100 page size (graphfit.inputs.sglang_qwen3_5_page)
            resolved = sglang_qwen3_5_page.settle(line.values, resolved, gpu_given)
            # UNO naming no backend: SGLang's default must be FA3 (graphfit.inputs.sglang_uno)
            resolved = sglang_uno.settle(line.values, resolved, gpu_given)
            # stochastic rounding's GPU checks (graphfit.inputs.sglang_mamba_flags)
            resolved = sglang_mamba_flags.settle(line.values, resolved, gpu_given)
            # Inkling's FULL prefill graphs (graphfit.inputs.sglang_inkling_prefill)
            resolved = sglang_inkling_prefill.settle(line.values, resolved)
            # GLM-MoE-DSA's AITER fusion on ROCm (graphfit.inputs.sglang_rocm_aiter)
            resolved = sglang_rocm_aiter.settle(line.values, resolved, gpu_given)
            # SGLANG_ENABLE_JIT_DEEPGEMM is not read on ROCm (graphfit.inputs.sglang_rocm_deepgemm)
            resolved = sglang_rocm_deepgemm.settle(line.values, resolved, gpu_given)
            # MiniMax-M3's DeepEP asserts with JIT DeepGEMM off: CUDA only (issue 23, s52e)
            try:
                sglang_minimax_target.settle(line.values, line.environ, gpu_given)
            except ConfigError:
                # an NVFP4 target's class is built after SGLang's argument resolution
                # (the megamoe budget, mega_moe_hook.py:78-91): its refusals first (s54m)
                if sglang_minimax_target.nvfp4_target(line.values):
                    settle_sglang(line, resolved).config()
                raise
            settled = settle_sglang(line, resolved)
            # then its MiniMax draft, after SGLang's argument resolution (s54m)
            sglang_minimax_draft.settle(line.values, settled)
            return settled
    return resolved
