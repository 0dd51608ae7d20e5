"""What a float32 checkpoint meets in the MoE class TensorRT-LLM builds, named on the one-sided
all-to-all workspace line (issue 23, s67t for CutlassFusedMoE; the class named: s68t).

The workspace is allocated when the MoE module is built, with the checkpoint's four-byte
tokens (graphfit.inputs.trtllm_a2a), so a float32 line keeps its bytes; what fails later
depends on the class `get_moe_cls` builds (graphfit.planner.engines.trtllm_moe_cls, DEEPGEMM
being DeepGemmFusedMoE, tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:47-48):

- CutlassFusedMoE over an unquantized checkpoint: `FusedMoeRunner`'s constructor builds
  unquantized runners for half / half, bfloat16 / bfloat16 and bfloat16 / fp8 only and
  otherwise raises "Could not construct fused moe op with the requested input combination"
  (cpp/tensorrt_llm/thop/moeOp.cpp@fbbc05dd14:123-230, the pairs at :137-153);
- TRTLLMGenFusedMoE: its forward asserts bfloat16 activations
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py@7b437aaa73:241-252, the
  one stored copy, older than the pinned create_moe), so the layer fails at its first forward;
  without a quant config it would raise "doesn't support fp16/bf16/fp32 MoE" when its weights
  are created (:142-162), but `get_moe_cls` builds it only for a quantized checkpoint;
- any other class (CutlassFusedMoE's quantized runners, CuteDslFusedMoE, DenseGEMMFusedMoE,
  DeepGemmFusedMoE) and a class not known: not read, and the line says so.
"""

from __future__ import annotations

from graphfit.planner.engines.trtllm_moe_cls import CUTLASS, TRTLLM_GEN

FLOAT32_ITEMSIZE = 4
CUTLASS_RUNNER = (f"{CUTLASS}'s fused MoE runner has no float32 kernels (\"Could not construct "
                  f"fused moe op\"), so it raises at its first run")
TRTLLM_GEN_ASSERT = (f"{TRTLLM_GEN} asserts bfloat16 activations in its forward, so it fails "
                     f"at its first run")


def fails(cls: str | None, quant: str | None) -> str | None:
    """Why class `cls` (None: not known) fails on float32 tokens over a checkpoint of
    quantization `quant`, or None where that was not read (module doc)."""
    if cls == CUTLASS and quant in (None, "none"):
        return CUTLASS_RUNNER
    if cls == TRTLLM_GEN:
        return TRTLLM_GEN_ASSERT
    return None


def note(classes: set[str | None], quant: str | None) -> str:
    """The float32 clause for a line whose MoE module may be any of `classes` (module doc)."""
    known = {cls: fails(cls, quant) for cls in classes}
    if None not in known.values():
        return "; ".join(sorted({str(reason) for reason in known.values()}))
    names = " or ".join(sorted(str(cls) for cls in classes if cls is not None)) or (
        "the MoE class (not known)")
    return f"whether {names} runs float32 activations was not read"


__all__ = ["CUTLASS_RUNNER", "FLOAT32_ITEMSIZE", "TRTLLM_GEN_ASSERT", "fails", "note"]
