"""The MoE class TensorRT-LLM's `get_moe_cls` builds for a backend without ConfigurableMoE,
by the checkpoint's quant algorithm (issue 23, s67t; the quantized algorithms: s68t).

`get_moe_cls` (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85) reads
the model's quant config (or a layer's override, :28-31) through its QuantMode's tests:

- CUTEDSL builds CuteDslFusedMoE when the mode has FP8 block scales or NVFP4, else
  CutlassFusedMoE with a warning (:36-46);
- DENSEGEMM builds CutlassFusedMoE without NVFP4 (:49-55); with NVFP4, CutlassFusedMoE
  where `get_sm_version()` is not one of DenseGEMMFusedMoE's SM versions ("DenseGEMM CuTe
  DSL kernels only support SM100/SM103", :56-63), else DenseGEMMFusedMoE (:64);
- TRTLLM builds TRTLLMGenFusedMoE when the mode has FP8 block scales, NVFP4, W4A16 MXFP4,
  W4A8 NVFP4-FP8, W4A8 MXFP4-FP8 or W4A8 MXFP4-MXFP8, else CutlassFusedMoE (:65-79).

Which of those modes an algorithm sets is `QuantMode.from_quant_algo`
(tensorrt_llm/quantization/mode.py, the 17,986-character copy the index serves without a
commit; lines not counted): each of the six algorithms FP8_BLOCK_SCALES, NVFP4, W4A16_MXFP4,
W4A8_NVFP4_FP8, W4A8_MXFP4_FP8 and W4A8_MXFP4_MXFP8 sets its own flag and no other of the
six; per-tensor FP8 sets FP8_QDQ, W4A8_AWQ int4 weights per group, FP8_PER_CHANNEL_PER_TOKEN
the rowwise flags, and the weight-only, SmoothQuant and QServe algorithms theirs, none of
the six ("modeless"); an unquantized checkpoint sets none. So graphfit reads the checkpoint's
quantization (graphfit.inputs.trtllm_a2a.auto_checkpoint) as one of those families:

- "none", "fp8", "w4a8_awq", "modeless": CutlassFusedMoE for all three backends;
- "fp8_block": TRTLLMGenFusedMoE (TRTLLM), CuteDslFusedMoE (CUTEDSL), CutlassFusedMoE
  (DENSEGEMM);
- "nvfp4": TRTLLMGenFusedMoE, CuteDslFusedMoE, and for DENSEGEMM DenseGEMMFusedMoE on SM 100 /
  103, CutlassFusedMoE on another named GPU (unknown without one);
- "mxfp4" (a checkpoint whose quant_method is mxfp4 gets one of the three MXFP4 algorithms:
  `get_mxfp4_quant_algo`, tensorrt_llm/_torch/model_config.py@008e0af898:585-596, all three
  TRTLLM's) and "w4a8_nvfp4_fp8": TRTLLMGenFusedMoE, else CutlassFusedMoE;
- "w4a16_nvfp4", "other", "unknown": not read (None); the line says why (`UNREAD`, s68k).

Why those are not read (issue 23, s68k). The pinned `get_moe_cls` tests six mode predicates
only (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:36-79). W4A16_NVFP4 and
MXFP8 are QuantAlgo members of the 2026 model_config
(tensorrt_llm/_torch/model_config.py@008e0af898:448-486, 655-671), but no stored QuantMode
table at a commit defines them: NVIDIA's mode.py@d879430b04 (7,012 characters) predates
NVFP4 and QuantAlgo, and neither the ai-blaise fork's mode.py@76204896f1 (19,006 characters)
nor the 17,986-character copy without a commit names either in QuantAlgo. So which of the
six modes they set is not read at any commit, and the newest stored routes
(`resolve_moe_impl` / `can_implement`, the coverage doc's s67t section) cannot be pinned.
MIXED_PRECISION's global mode sets none of the six (that copy's `from_quant_algo` falls to
QuantMode(0)), but its experts' quant config is the layer's: `get_moe_cls` takes an
`override_quant_config` when the model passes one
(tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:28-31), which graphfit does
not read. INT8 is not in QUANT_ALGO_LIST (`from_quant_algo` asserts), and a name QuantAlgo
does not define raises ValueError in `_build_modelopt_quant_config`
(tensorrt_llm/_torch/model_config.py@008e0af898:509-511).

What each class builds (the planner's trtllm_moe_a2a): a bare CutlassFusedMoE selects its own
all-to-all; CuteDslFusedMoE is wrapped in ConfigurableMoE even here (create_moe.py:385-408);
DenseGEMMFusedMoE subclasses CutlassFusedMoE and overrides `select_alltoall_method_type` to
return NotEnabled
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_densegemm.py@3e17afe390:272-273; two later
stored copies, commits not given, keep the override), so it builds no all-to-all workspace;
TRTLLMGenFusedMoE selects as CutlassFusedMoE does in a copy of create_moe's era, and raises on
SM 120 and later (graphfit.planner.engines.trtllm_moe_trtllm_gen, s69h).

WIDEEP builds WideEPMoE (create_moe.py:80-81), which `create_moe` wraps in ConfigurableMoE on
neither route (its list is DeepGemm, TRTLLMGen, CuteDsl, Cutlass and DenseGEMM, :385-408).
WideEPMoE has its own AlltoallMethodType: NotEnabled, MNNVL, DeepEP, DeepEPLowLatency
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:29-38, the one stored
copy with a commit, older than create_moe's). Its `select_alltoall_method_type` (:259-308)
looks a set TRTLLM_FORCE_ALLTOALL_METHOD up in that enum (:282-284), gives NotEnabled without
attention DP, at TP 1, with TRTLLM_MOE_DISABLE_ALLTOALLV=1 or with moe_ep_size <= top-k
(:286-296), MNNVL where MNNVL is supported (:298-299), DeepEP or DeepEPLowLatency with
TRTLLM_CAN_USE_DEEP_EP=1 and bfloat16 (:301-306), else NotEnabled (:308). Its constructor
then builds the two-sided `MnnvlMoe` workspaces for MNNVL or the DeepEP buffers (:187-227).
It never builds the one-sided `MoeAlltoAll` workspace (`WIDE_EP_NOTE`).
"""

from __future__ import annotations

CUTLASS = "CutlassFusedMoE"
CUTE_DSL = "CuteDslFusedMoE"
DENSE_GEMM = "DenseGEMMFusedMoE"
TRTLLM_GEN = "TRTLLMGenFusedMoE"
WIDE_EP = "WideEPMoE"
# what a WIDEEP backend builds instead of the one-sided workspace (module doc)
WIDE_EP_NOTE = (f"moe_config backend WIDEEP builds {WIDE_EP}, not wrapped in ConfigurableMoE: "
                f"its own selection builds the two-sided MnnvlMoe workspaces where MNNVL is "
                f"supported, DeepEP buffers with TRTLLM_CAN_USE_DEEP_EP=1, or none; never "
                f"this one-sided workspace (the two-sided workspaces' size is not modelled)")
# the SM versions DenseGEMMFusedMoE serves (create_moe.py:56, module doc)
DENSE_GEMM_SMS = (100, 103)
# the backends whose class `get_moe_cls` picks by the quant config (module doc)
FALLBACK_BACKENDS = ("TRTLLM", "CUTEDSL", "DENSEGEMM")
# the quantizations whose quant mode none of the tests reads (module doc)
MODELESS = frozenset({"none", "fp8", "w4a8_awq", "modeless"})
# the quantizations whose mode TRTLLMGenFusedMoE serves, and CuteDslFusedMoE too
TRTLLM_GEN_MODES = frozenset({"fp8_block", "nvfp4", "mxfp4", "w4a8_nvfp4_fp8"})
CUTE_DSL_MODES = frozenset({"fp8_block", "nvfp4"})
# every quantization this module reads (the others are None: not read)
READ = MODELESS | TRTLLM_GEN_MODES
# why `get_moe_cls`'s class is not read for the other quantizations (module doc, s68k)
UNREAD = {
    "w4a16_nvfp4": ("the quant algorithm W4A16_NVFP4 is in no QuantMode table stored at a "
                    "commit, so which of the modes get_moe_cls tests it sets is not read"),
    "other": ("another quant algorithm: MXFP8 (in no QuantMode table stored at a commit), "
              "MIXED_PRECISION (the experts take the layer's override_quant_config, not "
              "read), INT8 (from_quant_algo asserts) or a name QuantAlgo lacks (ValueError)"),
    "unknown": "the checkpoint's quant config was not read",
}


def unread_reason(quant: str) -> str | None:
    """Why the class `get_moe_cls` builds over a checkpoint of quantization `quant` is not
    read (`UNREAD`), or None where `moe_class` reads it or `quant` is not named there."""
    return UNREAD.get(quant)


def moe_class(backend: str, quant: str, sm_version: int | None = None) -> str | None:
    """The class `get_moe_cls` builds for `backend` (one of FALLBACK_BACKENDS or CUTLASS)
    over a checkpoint of quantization `quant` on an SM `sm_version` GPU (None: not named),
    or None where it is not known (module doc)."""
    if backend == "CUTLASS":
        return CUTLASS
    if backend not in FALLBACK_BACKENDS or quant not in READ:
        return None
    if backend == "TRTLLM":
        return TRTLLM_GEN if quant in TRTLLM_GEN_MODES else CUTLASS
    if backend == "CUTEDSL":
        return CUTE_DSL if quant in CUTE_DSL_MODES else CUTLASS
    if quant != "nvfp4":
        return CUTLASS
    if sm_version is None:
        return None
    return DENSE_GEMM if sm_version in DENSE_GEMM_SMS else CUTLASS


__all__ = ["CUTE_DSL", "CUTE_DSL_MODES", "CUTLASS", "DENSE_GEMM", "DENSE_GEMM_SMS",
           "FALLBACK_BACKENDS", "MODELESS", "READ", "TRTLLM_GEN", "TRTLLM_GEN_MODES",
           "UNREAD", "WIDE_EP", "WIDE_EP_NOTE", "moe_class", "unread_reason"]
