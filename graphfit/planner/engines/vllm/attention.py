"""vLLM 0.33's attention backends and what their cudagraph support does to the graph mode.

Every attention metadata builder declares an `AttentionCGSupport` level
(docs/engines/vllm.md#attention-support); the
runner takes the minimum over its KV-cache groups and `resolve_cudagraph_mode_and_sizes`
(config/compilation.py:1376-1535) downgrades the configured mode when the level cannot run
its FULL graphs. Where a backend's level depends on the GPU, the heads or the KV dtype
(FLASH_ATTN: FA2 or FA3/FA4; FLASHINFER: TRT-LLM/XQA decode kernels), graphfit treats it as
any of the levels the code can return, and covers them all.
"""

from __future__ import annotations

from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.vllm.enums import AttentionSupport

NEVER = AttentionSupport.NEVER
SINGLE = AttentionSupport.UNIFORM_SINGLE_TOKEN_DECODE
UNIFORM = AttentionSupport.UNIFORM_BATCH
ALWAYS = AttentionSupport.ALWAYS
ANY_LEVEL = (NEVER, SINGLE, UNIFORM, ALWAYS)

# AttentionBackendEnum name (v1/attention/backends/registry.py) -> the levels its metadata
# builder's get_cudagraph_support can return (file:line of the builder's level).
BACKEND_LEVELS: dict[str, tuple[AttentionSupport, ...]] = {
    "FLASH_ATTN": (UNIFORM, ALWAYS),  # flash_attn.py:619-622: ALWAYS with FA3/FA4, FA2 UB
    "FLASH_ATTN_DIFFKV": (UNIFORM, ALWAYS),  # the same builder
    "TRITON_ATTN": (ALWAYS,),  # triton_attn.py:97
    "TRITON_ATTN_DIFFKV": (ALWAYS,),  # subclasses the Triton builder
    "TRITON_FLASH_ATTN": ANY_LEVEL,  # composite.py:301-306: min over children and routing
    "ROCM_ATTN": (ALWAYS,),  # rocm_attn.py:74
    "ROCM_SEGMENTED_ATTN": (ALWAYS,),
    "ROCM_AITER_UNIFIED_ATTN": (ALWAYS,),  # subclasses the ROCm builder
    "ROCM_AITER_FA": (UNIFORM,),  # rocm_aiter_fa.py:458
    "ROCM_AITER_MLA": (UNIFORM,),  # mla/rocm_aiter_mla.py:698
    "ROCM_AITER_TRITON_MLA": (UNIFORM,),
    "ROCM_AITER_MLA_SPARSE": (UNIFORM,),  # mla/rocm_aiter_mla_sparse.py:441
    "XPU_MLA_SPARSE": (NEVER,),  # mla/xpu_mla_sparse.py:119
    "FLASHINFER": (SINGLE, UNIFORM),  # flashinfer.py:1176-1226: GPU, heads, KV dtype
    "FLASHINFER_MLA": (ALWAYS,),  # mla/flashinfer_mla.py:140
    "TOKENSPEED_MLA": (UNIFORM,),  # mla/tokenspeed_mla.py:77
    "FLASHINFER_MLA_SPARSE": (UNIFORM,),  # mla/flashinfer_mla_sparse.py:254
    "FLASHINFER_MLA_SPARSE_SM120": (UNIFORM,),  # mla/flashinfer_mla_sparse.py:281
    "FLASHINFER_MLA_SPARSE_SM90": (UNIFORM,),
    "TRITON_MLA": (UNIFORM,),  # mla/triton_mla.py:77
    "CUTLASS_MLA": (SINGLE,),  # mla/cutlass_mla.py:33
    "FLASHMLA": (UNIFORM,),  # mla/flashmla.py:110
    "FLASHMLA_SPARSE": (UNIFORM,),  # mla/flashmla_sparse.py:350
    "FLASHMLA_SPARSE_DSV4": (ALWAYS,),  # models/deepseek_v4/sparse_mla.py:289
    "FLASHINFER_MLA_SPARSE_DSV4": (ALWAYS,),
    "ROCM_FLASHMLA_SPARSE_DSV4": ANY_LEVEL,  # models/deepseek_v4/amd/rocm.py:635-646
    "FLASHMLA_SPARSE_DSV41": (ALWAYS,),
    "FLASHINFER_MLA_SPARSE_DSV41": (ALWAYS,),
    "ROCM_FLASHMLA_SPARSE_DSV41": ANY_LEVEL,  # models/deepseek_v41/amd/rocm.py:324-334
    "FLASHMLA_MEGA_ATTN_DSV41": (ALWAYS,),
    "B12X": (UNIFORM,),  # b12x.py:276-286
    "FLASH_ATTN_MLA": (SINGLE, UNIFORM),  # mla/flashattn_mla.py:127 (XPU builder :279)
    "FLASH_ATTN_MLA_SPARSE": (UNIFORM,),  # mla/flashattn_mla_sparse.py:128
    "FLASH_ATTN_MLA_SPARSE_FA4": (UNIFORM,),
    "MINIMAX_M3_SPARSE": (UNIFORM,),  # models/minimax_m3/common/sparse_attention.py:244
    "CUTLASS_MSA": (UNIFORM,),
    "TRITON_MSA": (UNIFORM,),
    "STEP5_DSA": (SINGLE, UNIFORM),  # models/step5/nvidia/sparse_attention.py:187-195
    "FLEX_ATTENTION": (ALWAYS,),  # flex_attention.py:836
    "HPC_ATTN": (SINGLE, UNIFORM),  # hpc_attn.py:170-182: UB with speculation
    "CPU_ATTN": (NEVER,),
    "CPU_MLA": (NEVER,),
    "AMX_MLA": (NEVER,),
    "TURBOQUANT": (UNIFORM,),  # turboquant_attn.py:220
    "ROCM_OCTAVE": (UNIFORM,),  # rocm_octave_attn.py:177
    "ULTRAQUANT": (UNIFORM,),  # subclasses the TurboQuant backend
}


def backend_levels(name: str) -> tuple[AttentionSupport, ...]:
    """The levels `name`'s builder can report; ConfigError for a name vLLM 0.33 lacks."""
    try:
        return BACKEND_LEVELS[name]
    except KeyError:
        raise ConfigError(f"attention_backend: {name!r} is not a vLLM 0.33 attention backend "
                          f"(known: {', '.join(sorted(BACKEND_LEVELS))})") from None


def target_levels(backend: str | None, level: AttentionSupport | None
                  ) -> tuple[AttentionSupport, ...]:
    """The target's possible levels: the given one, else the backend's, else any."""
    if level is not None:
        if backend is not None and level not in backend_levels(backend):
            allowed = ", ".join(x.value for x in backend_levels(backend))
            raise ConfigError(f"attention_cudagraph_support: {backend} reports {allowed}, "
                              f"not {level.value}")
        return (level,)
    if backend is not None:
        return backend_levels(backend)
    return ANY_LEVEL


def resolve_mode(mode: CUDAGraphMode, level: AttentionSupport, q: int) -> CUDAGraphMode:
    """`resolve_cudagraph_mode_and_sizes` (config/compilation.py:1391-1468) with vLLM's
    default splitting ops (attention is compiled piecewise): the mode the runner uses.

    ConfigError where vLLM raises (a FULL mixed mode with an attention that supports no FULL
    graph at all).
    """
    if mode is CUDAGraphMode.NONE:
        return mode
    if mode.mixed_mode is CUDAGraphMode.FULL and level is not ALWAYS:
        if level is NEVER:
            raise ConfigError(
                f"cudagraph_mode: {mode.value} needs FULL graphs, which an attention backend "
                f"with cudagraph support NEVER cannot run (vLLM rejects it; use PIECEWISE)")
        mode = CUDAGraphMode.FULL_AND_PIECEWISE  # attention is in the splitting ops
    if mode.decode_mode is CUDAGraphMode.FULL and level is NEVER:
        mode = CUDAGraphMode.PIECEWISE
    if mode.decode_mode is CUDAGraphMode.FULL and q > 1 and level.rank < UNIFORM.rank:
        mode = CUDAGraphMode.PIECEWISE
    return mode
