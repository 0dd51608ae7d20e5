"""The runner a quantized draft's MoE method reports where `--speculative-moe-runner-backend`
asks for humming or flashinfer_cutedsl, in SGLang 0.5.23 (issue 23, s70d). Paths under
sglang/srt/.

Why its own rule: DeepEPMoE's modern-path branches read `self.runner_backend`
(layers/moe/ep_moe/layer.py:99-124), which FusedMoE sets from the quantization method's
`get_moe_runner_backend` after `create_moe_runner` (fused_moe_triton/layer.py:576-578), not
from the flag. graphfit's draft low-latency rule (graphfit.planner.engines.
sglang_draft_deepep.quantized_problem) read the flag, so it exempted every humming draft and
every flashinfer_cutedsl ModelOpt FP4 / MIXED draft. Some methods build their own runner
whatever the request, so the layer sees another backend, takes the legacy path and asserts
"DeepEP ... mode requires deep_gemm" (:168-178) in auto / low_latency mode with JIT
DeepGEMM off:

* modelopt_fp8: ModelOptFp8MoEMethod runs triton (flashinfer_cutlass / flashinfer_trtllm only
  when asked for; quantization/modelopt_quant.py:1343-1365);
* quark (its FP8 scheme): QuarkW8A8Fp8MoEMethod runs triton (aiter on ROCm;
  quantization/quark/schemes/quark_w8a8_fp8_moe.py:256-278, read through quark/quark.py:
  1382-1388); its MXFP4 schemes take AITER alone and raise on another runner
  (quark_w4a4_mxfp4_moe.py:1044-1064), a refusal too;
* w4afp8: W4AFp8MoEMethod makes no runner (w4afp8.py:297-300), so the backend is None
  (quantization/base_config.py:116-124);
* modelopt_mixed: the experts take the method of their `quantized_layers` entry
  (modelopt_quant.py:1078-1094, `_resolve_quant_algo` :978-1008): FP8 is ModelOptFp8MoEMethod
  (triton, above), no entry is no method, so FusedMoE's unquantized one (triton,
  quantization/unquant.py:1169-1194); NVFP4 keeps the request (modelopt_quant.py:3112-3125).
  graphfit reads the entry for the Qwen3.5 / Qwen4-Exp MTP drafts, whose experts are
  `mtp.layers.0.mlp.experts` (models/qwen3_5_mtp.py:137-142, qwen4_exp_mtp.py:62;
  graphfit.inputs.sglang_mtp_mixed_experts); for other draft classes it does not tell the
  experts' name and keeps the exemption.

Kept (the request survives, no assert): fp8 (Fp8MoEMethod keeps humming; seen on the oracle),
modelopt_fp4 (:3112-3125) and any method not listed here (not read).
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings

# the draft methods whose MoE method replaces a humming / flashinfer_cutedsl request -> what
# it runs and where
SWAPPING: dict[str, str] = {
    "modelopt_fp8": "triton (modelopt_quant.py:1358)",
    "quark": "triton (quark_w8a8_fp8_moe.py:275)",
    "w4afp8": "no runner (w4afp8.py:297)",
}
REQUESTS = frozenset({"humming", "flashinfer_cutedsl"})
UNLISTED = "unlisted"  # SglangOptions.draft_mtp_experts_algo where no entry names the experts
# the draft classes whose experts graphfit names: SGLang's Qwen3.5 MTP module prefixes "mtp"
MTP_EXPERTS: dict[str, str] = {
    "Qwen3_5ForCausalLMMTP": "mtp.layers.0.mlp.experts",
    "Qwen4ExpForCausalLMMTP": "mtp.layers.0.mlp.experts",
}
# a MIXED experts' algorithm whose MoE method runs triton: FP8 (ModelOptFp8MoEMethod), or no
# entry (None: the unquantized method)
_SWAPPING_ALGOS = frozenset({"FP8"})


def mixed_experts_algo(config: EngineSettings) -> tuple[bool, str | None]:
    """(known, the algorithm SGLang's `_resolve_quant_algo` gives a MIXED MTP draft's experts,
    None where no entry names them), from SglangOptions.draft_mtp_experts_algo (read by
    graphfit.inputs.sglang_mtp_mixed_experts for the `MTP_EXPERTS` classes)."""
    algo = config.draft_mtp_experts_algo
    if algo is None or (config.draft_moe_class or "") not in MTP_EXPERTS:
        return False, None
    return True, None if algo == UNLISTED else algo


def swapped(config: EngineSettings, method: str, runner: str) -> str | None:
    """What the draft's `method` runs instead of the requested humming / flashinfer_cutedsl
    `runner` (module docstring), or None where the request stands or graphfit cannot tell."""
    if runner not in REQUESTS:
        return None
    if method in SWAPPING:
        return SWAPPING[method]
    if method != "modelopt_mixed":
        return None
    known, algo = mixed_experts_algo(config)
    if not known or (algo is not None and algo not in _SWAPPING_ALGOS):
        return None
    return "triton (unquant.py:1193)" if algo is None else SWAPPING["modelopt_fp8"]


__all__ = ["MTP_EXPERTS", "REQUESTS", "SWAPPING", "UNLISTED", "mixed_experts_algo", "swapped"]
