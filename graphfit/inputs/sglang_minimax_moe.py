"""The MLP side of a MiniMax-M3 TARGET's decoder layers in SGLang 0.5.23: the checks that
make `MiniMaxM3MoE`, its `FusedMoE` experts, its shared-expert MLP and the dense
`MiniMaxM3MLP` raise at start-up, restated in SGLang's order with SGLang's exception and site
(paths under sglang/srt/). graphfit.inputs.sglang_minimax_target walks the layers and calls
this after each layer's attention.

Before any layer is built the loader resolves shared-expert fusion
(`resolve_shared_experts_config`, model_loader/loader.py:292 -> layers/moe/utils.py:602-623):
unless `--disable-shared-experts-fusion`, a model with `n_shared_experts` fuses them on a CUDA
GPU of SM 80 or newer (graphfit plans for those) when the quantization is not
`modelopt_mixed` / `minimax_m3_nvfp4`, the expert-parallel size is 1 and the a2a backend is
not DeepEP (models/minimax_m3.py:2021-2043, models/minimax_m3_vl.py:166-197); fusing asserts
exactly one shared expert (minimax_m3.py:2051-2053, minimax_m3_vl.py:202-203).

A MoE layer (`moe_layer_freq[i] != 0`, or no `moe_layer_freq`, minimax_m3.py:1788-1790):
`MiniMaxM3MoE.__init__` raises ValueError when the TP size exceeds the expert count
(:405-409); reads `num_local_experts`, `num_experts_per_tok`, `intermediate_size`,
`swiglu_alpha`, `swiglu_limit` for its experts (:423-436); `FusedMoE` asserts the routed
experts (with `--ep-num-redundant-experts`) split over the EP ranks (layers/moe/
fused_moe_triton/layer.py:414) and `intermediate_size` over the MoE-TP ranks, tp // ep //
moe_dp (:427, runtime_context.py:154); then `hidden_act` (:441) and `scoring_func` (:447) are
read; unfused shared experts build a `MiniMaxM3MLP` of `intermediate_size * n_shared_experts`
(:454-468) over the TP group (replicated under DeepEP / MegaMoE, :458-460).

`MiniMaxM3MLP` (dense layers with `dense_intermediate_size`, :1736-1745, and shared experts):
reads `hidden_size`, `hidden_act` (:313-314), its gate/up projection asserts the width splits
over its group (layers/linear.py:693; the dense MLP's group is the TP group, or one rank
with `--moe-dense-tp-size 1`: `dense_group`, issue 23 s69n), then the activation must be silu or
swigluoai with `swiglu_alpha` / `swiglu_limit` (:334-354).

A key absent from config.json is the config class's default on a top-level
`MiniMaxM3SparseForCausalLM` (transformers' `MiniMaxM2Config` for `model_type` minimax_m2;
under another model_type the keys MiniMaxM2Config defaults are not judged when absent), but
raises AttributeError nested under the VL wrapper's `text_config`, which SGLang makes a bare
`PretrainedConfig` (utils/hf_transformers/common.py:566-572). Keys no config class defaults
(`swiglu_alpha`, `swiglu_limit`, `scoring_func`, `dense_intermediate_size`) raise either way.

A block-FP8 checkpoint adds the weight checks of graphfit.inputs.sglang_minimax_quant to the
experts (after FusedMoE's splits) and to each MLP (after its split, before its activation).
MegaMoE's runner and the other quantization methods' checks: see
docs/engines/sglang-coverage.md, "(issue 23, s42n)". DeepEP's own class (`DeepEPMoE`) adds no
check of its own with JIT DeepGEMM on (layers/moe/ep_moe/layer.py:100-178), which graphfit
assumes: compared by the oracle since s44n. With SGLANG_ENABLE_JIT_DEEPGEMM=0 it asserts
deep_gemm for a quantized layer in a low-latency mode (:168-178, `deepep_problem`) and, for
unquantized BF16 experts on the deep_gemm runner, "Unquantized DeepEP MoE requires DeepGEMM
BF16" (:135-147, `unquantized_problem`; issue 23, s50e). Both asserts are skipped on HIP
(`not _is_hip`, :142, :172): a line naming an AMD GPU is judged with `MoeLayout.hip` (s52e).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs.sglang_minimax_quant import (
    Blocks,
    experts_checked,
    experts_problem,
    fp4_mlp_problem,
)
from graphfit.inputs.sglang_minimax_quant import mlp_problem as quant_mlp_problem
from graphfit.planner.core.errors import excerpt
from graphfit.planner.engines.sglang_deepep_class import (
    DEEP_GEMM_RUNNERS,
    LEGACY_A2A,
    UNQUANTIZED_A2A,
)

# transformers' MiniMaxM2Config class defaults (configuration_minimax_m2.py) for the keys read
DEFAULTS: dict[str, Any] = {"num_local_experts": 256, "num_experts_per_tok": 8,
                            "intermediate_size": 1536, "hidden_act": "silu"}
NO_FUSION_QUANTS = ("modelopt_mixed", "minimax_m3_nvfp4")  # minimax_m3.py:2024-2027
REPLICATED_SHARED = ("deepep", "megamoe")  # minimax_m3.py:458-460
# runner backends with no unfused path (layers/moe/moe_runner/runner.py:124-128) for which no
# fused func is registered under the "megamoe" a2a backend (every register_fused_func names
# "none", "flashinfer", "deepep" or "flashinfer_megamoe")
NO_MEGAMOE_FUSED = ("flashinfer_trtllm", "flashinfer_trtllm_routed")
# runners / a2a backends whose resolution sets --disable-shared-experts-fusion
# (arg_groups/overrides.py:1528-1553, 1567-1574); Waterfill under DeepEP / MegaMoE clears it
# again (:1559-1565)
UNFUSED_RUNNERS = ("lora_triton", "lora_cutedsl", "lora_marlin", "flashinfer_cutedsl",
                   "flashinfer_trtllm", "experimental_sgl_trtllm", "flashinfer_trtllm_routed")
UNFUSED_A2A = ("flashinfer", "flashinfer_megamoe", "deepep_v2")


# the runners MiniMax-M3's model override turns into triton on an unquantized model
# (arg_groups/model_overrides/minimax_m3.py:227-235: "the deep_gemm MoE runner produces
# corrupted output on bf16 full weights")
BF16_TRITON_RUNNERS = ("auto", "deep_gemm")
PPLX_RUNNERS = ("deep_gemm", "auto")  # arg_groups/moe_hook.py:597-600


def effective_runner(given: str, quant: str | None, a2a: str) -> str:
    """--moe-runner-backend as the experts see it: the model override first (unquantized:
    auto / deep_gemm -> triton, model_overrides/minimax_m3.py:227-235; it runs before
    `handle_a2a_moe`, arg_groups/pipeline.py:295), then pplx's auto -> deep_gemm
    (moe_hook.py:603-609). (The override's quantized SM100 / ROCm / NVFP4 picks, :96-128,
    :167-170, are other rules' business: graphfit.inputs.sglang_minimax_quant.)"""
    runner = given.strip().lower()
    if quant is None and runner in BF16_TRITON_RUNNERS:
        return "triton"
    if a2a == "pplx" and runner == "auto":
        return "deep_gemm"
    return runner


def pplx_problem(layout: MoeLayout) -> str | None:
    """pplx's runner assert on the runner the model override left (arg_groups/moe_hook.py:
    597-600 reads `resolved_view`, which carries the override's declaration): an unquantized
    MiniMax-M3 line's triton, or a runner given outside deep_gemm / auto."""
    if layout.a2a != "pplx" or layout.runner in PPLX_RUNNERS:
        return None
    why = (" (MiniMax-M3's override made it triton on BF16 weights, "
           "arg_groups/model_overrides/minimax_m3.py:227-235)" if layout.runner == "triton"
           and layout.quant is None else "")
    return ("moe_a2a_backend='pplx' is only supported with --moe-runner-backend deep_gemm "
            f"(or auto). (AssertionError, arg_groups/moe_hook.py:597-600){why}")


def fusion_disabled(flag: bool, runner: str, a2a: str, waterfill: bool) -> bool:
    """--disable-shared-experts-fusion as resolution leaves it (overrides.py:1528-1574)."""
    if a2a in REPLICATED_SHARED and waterfill:
        return False
    return flag or runner in UNFUSED_RUNNERS or a2a in UNFUSED_A2A
_MISSING = object()


@dataclass(frozen=True)
class MoeLayout:
    """The parallel sizes and MoE settings the MLP constructors read: the full TP size, the
    EP size the hooks resolve, the MoE-TP size, the a2a backend, the redundant experts, and
    whether the loader's fusion gate is open (everything but the shared-expert count), and
    a block-FP8 checkpoint's [block_n, block_k] (graphfit.inputs.sglang_minimax_quant), the
    MoE runner backend, the quantization, --deepep-mode and whether JIT DeepGEMM is on
    (SGLANG_ENABLE_JIT_DEEPGEMM; deep_gemm assumed installed on an SM 90+ GPU)."""

    tp: int
    ep: int
    moe_tp: int
    a2a: str
    redundant: int
    fusion_gate: bool
    blocks: Blocks | None = None
    runner: str = "auto"
    quant: str | None = None
    deepep_mode: str = "auto"
    jit_deepgemm: bool = True
    fp4: bool = False  # ModelOpt's FP4 linear method (sglang_minimax_quant.fp4_linear)
    # the ModelConfig dtype the loader builds the experts under (model_loader/loader.py:838;
    # graphfit.inputs.sglang_dtype), None where graphfit does not map it
    dtype: str | None = None
    # a named AMD GPU (s52e): `_is_hip` skips both DeepEP asserts (ep_moe/layer.py:53, 142,
    # 172); graphfit.inputs.sglang_minimax_target sets it once the GPU is known
    hip: bool = False
    # --moe-dense-tp-size as resolved (None: unset). With 1 the dense layers' MLP is built
    # on a "replicated" group (`is_dense_ffn_fully_dp`, layers/layer_boundary/layout.py:83-84;
    # minimax_m3.py:1736), so its width is not split over TP (issue 23 s69n)
    dense_tp: int | None = None

    def __post_init__(self) -> None:
        for name in ("tp", "ep", "moe_tp"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.dense_tp is not None and self.dense_tp < 1:
            raise ValueError("dense_tp must be at least 1 or None")
        if self.blocks is not None and min(self.blocks) < 1:
            raise ValueError("block sizes must be at least 1")
        if self.redundant < 0:
            raise ValueError("redundant must be non-negative")


def _read(text: Mapping[str, Any], key: str, nested: bool) -> Any:
    """`config.<key>` as SGLang reads it: absent (raising) in the VL wrapper's bare text
    config; at top level MiniMaxM2Config's default, or None (not judged) for a key another
    config class may default."""
    if key in text:
        return text[key]
    if nested or key not in DEFAULTS:
        return _MISSING
    return DEFAULTS[key] if text.get("model_type") == "minimax_m2" else None


def _absent(key: str, site: str) -> str:
    return f"the config has no {key!r} (AttributeError, {site})"


def fused_count(text: Mapping[str, Any], layout: MoeLayout) -> int:
    """Shared experts the loader fuses: `n_shared_experts` where the gate is open and the
    count is truthy, else 0 (layers/moe/utils.py:602-623)."""
    shared = text.get("n_shared_experts")
    return shared if layout.fusion_gate and shared and isinstance(shared, int) else 0


def fusion_problem(text: Mapping[str, Any], layout: MoeLayout, vl: bool) -> str | None:
    """The loader's assertion before any layer: fusing takes exactly one shared expert."""
    shared = text.get("n_shared_experts")
    if not (layout.fusion_gate and shared) or shared == 1:
        return None
    if vl:
        return (f"{excerpt(shared, 12)} shared experts to fuse: Only 1 fused shared expert is "
                f"supported (AssertionError, models/minimax_m3_vl.py:202-203)")
    return (f"{excerpt(shared, 12)} shared experts to fuse: Only 1 fused shared expert is "
            f"supported for MiniMax-M3 (AssertionError, models/minimax_m3.py:2051-2053)")


def is_moe_layer(text: Mapping[str, Any], layer: int) -> bool:
    """`_is_layer_sparse` (minimax_m3.py:1788-1790): no `moe_layer_freq` means MoE."""
    freq = text.get("moe_layer_freq")
    if not isinstance(freq, list):
        return freq is None
    return layer >= len(freq) or freq[layer] != 0


def layer_problem(text: Mapping[str, Any], layer: int, nested: bool,
                  layout: MoeLayout) -> str | None:
    """The layer's MLP: `MiniMaxM3MoE` on a MoE layer, else the dense `MiniMaxM3MLP`."""
    if is_moe_layer(text, layer):
        return moe_problem(text, nested, layout)
    width = _read(text, "dense_intermediate_size", True)
    if width is _MISSING:
        return _absent("dense_intermediate_size", "models/minimax_m3.py:1741")
    return mlp_problem(text, nested, width, dense_group(layout), layout.blocks, layout.fp4)


def dense_group(layout: MoeLayout) -> int:
    """The ranks a dense layer's `MiniMaxM3MLP` splits its width over: one ("replicated")
    with --moe-dense-tp-size 1 (minimax_m3.py:1736 -> layers/layer_boundary/layout.py:83-84),
    else the TP group. Why: graphfit refused a width that does not split over TP on lines
    SGLang starts with the dense MLPs replicated (issue 23 s69n). The shared experts keep the
    TP group (:454-468 do not read the flag)."""
    return 1 if layout.dense_tp == 1 else layout.tp


def moe_problem(text: Mapping[str, Any], nested: bool, layout: MoeLayout) -> str | None:
    """`MiniMaxM3MoE.__init__` (minimax_m3.py:395-505) in its own order."""
    experts = _read(text, "num_local_experts", nested)
    if experts is _MISSING:
        return _absent("num_local_experts", "models/minimax_m3.py:405")
    if isinstance(experts, int) and layout.tp > experts:
        return (f"Tensor parallel size {layout.tp} is greater than the number of experts "
                f"{excerpt(experts, 12)}. (ValueError, models/minimax_m3.py:405-409)")
    for key, line in (("num_experts_per_tok", 427), ("intermediate_size", 429),
                      ("swiglu_alpha", 434), ("swiglu_limit", 436)):
        if _read(text, key, nested) is _MISSING:
            return _absent(key, f"models/minimax_m3.py:{line}")
    routed = experts + layout.redundant if isinstance(experts, int) else None
    if routed is not None and routed % layout.ep:
        return (f"{routed} routed experts do not split over expert-parallel size {layout.ep} "
                f"(AssertionError, layers/moe/fused_moe_triton/layer.py:414)")
    width = _read(text, "intermediate_size", nested)
    if isinstance(width, int) and width % layout.moe_tp:
        return (f"intermediate_size {width} does not split over MoE-TP size {layout.moe_tp} "
                f"(AssertionError, layers/moe/fused_moe_triton/layer.py:427)")
    if (layout.blocks is not None and isinstance(width, int)
            and experts_checked(layout.quant)):
        said = experts_problem(width // layout.moe_tp, layout.moe_tp, layout.blocks)
        if said:
            return said
    if layout.a2a == "megamoe" and layout.runner in NO_MEGAMOE_FUSED:
        # FusedMoE builds its runner after its weights (fused_moe_triton/layer.py:576), with
        # lora_enabled False at model build (LoRA swaps runners later, lora/layers.py:1128)
        return (f"no fused func for runner {layout.runner} under a2a megamoe "
                f"(NotImplementedError, layers/moe/moe_runner/runner.py:168-183)")
    said = dispatcher_problem(layout) or unquantized_problem(layout) or deepep_problem(layout)
    if said:
        return said
    if _read(text, "hidden_act", nested) is _MISSING:
        return _absent("hidden_act", "models/minimax_m3.py:441")
    if "scoring_func" not in text:
        return _absent("scoring_func", "models/minimax_m3.py:447")
    shared = text.get("n_shared_experts")
    if shared is None or fused_count(text, layout):
        return None
    group = 1 if layout.a2a in REPLICATED_SHARED else layout.tp
    if isinstance(width, int) and isinstance(shared, int):
        return mlp_problem(text, nested, width * shared, group, layout.blocks, layout.fp4)
    return None


# the a2a dispatchers with no normal mode, by backend: their constructors raise
# NotImplementedError in a mode that enables normal dispatch (auto, normal: layers/moe/
# utils.py:272-273), with SGLang's message (empty for Mooncake's bare raise) and site
NO_NORMAL_MODE: dict[str, tuple[str, str]] = {
    "mooncake": ("Mooncake EP has no normal mode", "token_dispatcher/mooncake.py:343-344"),
    "nixl": ("Normal mode is not supported for Nixl EP yet.", "token_dispatcher/nixl.py:481-482"),
}


def dispatcher_problem(layout: MoeLayout) -> str | None:
    """The a2a dispatcher FusedMoE's constructor makes (fused_moe_triton/layer.py:595 ->
    190-213 -> batch_overlap/two_batch_overlap.py:1159-1180), before DeepEPMoE's body and
    its asserts: Mooncake and NixlEP raise NotImplementedError in auto / normal mode
    (`NO_NORMAL_MODE`; handle_a2a_moe changes neither backend's mode). s52e: the MiniMax
    walk raised DeepEPMoE's low-latency assert first on a quantized auto line with JIT off,
    where SGLang's dispatcher raises."""
    found = NO_NORMAL_MODE.get(layout.a2a)
    if found is None or layout.deepep_mode not in ("auto", "normal"):
        return None
    said, site = found
    return f"{said} (NotImplementedError, layers/moe/{site})"


def deepep_problem(layout: MoeLayout) -> str | None:
    """`DeepEPMoE.__init__` after FusedMoE's (layers/moe/ep_moe/layer.py:84-178) for an a2a
    backend that builds DeepEPMoE on its legacy path (deepep; since s50e also mooncake,
    nixl and pplx: get_moe_impl_class, :352-365; graphfit.planner.engines.
    sglang_deepep_class.LEGACY_A2A) with JIT DeepGEMM off: a quantized MoE that takes the
    legacy path (none of :100-147's cases on CUDA: not a humming runner, not
    flashinfer_cutedsl with modelopt_fp4 / modelopt_mixed) in auto or low_latency mode
    asserts deep_gemm (:168-178); pplx has turned auto into low_latency (moe_hook.py:
    581-587). (With DeepGEMM on, which graphfit assumes by default, nothing raises; on HIP,
    `layout.hip`, the assert is skipped, :172.)"""
    if (layout.a2a not in LEGACY_A2A or layout.jit_deepgemm or layout.hip
            or layout.quant is None):
        return None
    if layout.runner == "humming" or (layout.runner == "flashinfer_cutedsl" and layout.quant
                                      in ("modelopt_fp4", "modelopt_mixed")):
        return None
    if layout.deepep_mode not in ("auto", "low_latency"):
        return None
    mode = "low_latency" if layout.a2a == "pplx" else layout.deepep_mode
    return (f"DeepEP DeepEPMode.{mode.upper()} mode requires deep_gemm "
            f"(AssertionError, layers/moe/ep_moe/layer.py:168-178)")


def unquantized_problem(layout: MoeLayout) -> str | None:
    """`DeepEPMoE.__init__`'s unquantized branch (layers/moe/ep_moe/layer.py:135-147), which
    MiniMaxM3MoE's experts reach through `get_moe_impl_class` (minimax_m3.py:421;
    ep_moe/layer.py:352-365) as every DeepEP-class model's do: no quantization, BF16 expert
    weights (the loader's dtype), the deep_gemm runner (--moe-runner-backend deep_gemm or a
    LoRA one, graphfit.planner.engines.sglang_deepep_class.DEEP_GEMM_RUNNERS; pplx's auto
    pick is applied by the caller's layout), a2a deepep or pplx, JIT DeepGEMM off, not HIP
    (`layout.hip`, :142). No earlier
    branch (:100-134) takes such a line on CUDA: they need deepep_v2, humming, AITER / NPU,
    JIT on, or a quantization."""
    if (layout.a2a not in UNQUANTIZED_A2A or layout.quant is not None or layout.jit_deepgemm
            or layout.hip):
        return None
    if layout.runner not in DEEP_GEMM_RUNNERS or layout.dtype != "bfloat16":
        return None
    return ("Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, layers/moe/"
            "ep_moe/layer.py:135-147: JIT DeepGEMM off)")


def mlp_problem(text: Mapping[str, Any], nested: bool, width: Any, group: int,
                block: Blocks | None = None, fp4: bool = False) -> str | None:
    """`MiniMaxM3MLP.__init__` (minimax_m3.py:300-354): its reads, its projection's split,
    its projections' block-FP8 checks, its activation."""
    act = _read(text, "hidden_act", nested)
    if act is _MISSING:
        return _absent("hidden_act", "models/minimax_m3.py:314")
    if isinstance(width, int) and width % group:
        return (f"MLP width {width} does not split over TP size {group} "
                f"(AssertionError, layers/linear.py:693)")
    if block is not None and isinstance(width, int):
        said = quant_mlp_problem(width, group, block)
        if said:
            return said
    hidden = text.get("hidden_size")
    if fp4 and isinstance(width, int) and isinstance(hidden, int):
        said = fp4_mlp_problem(hidden, width, group)
        if said:
            return said
    if act is None:
        return None  # another config class's default: not judged
    if act == "swigluoai":
        for key, line in (("swiglu_alpha", 337), ("swiglu_limit", 338)):
            if key not in text:
                return _absent(key, f"models/minimax_m3.py:{line}")
        return None
    if act != "silu":
        return (f"Unsupported activation: {excerpt(act, 20)}. Only silu is supported for "
                f"now. (ValueError, models/minimax_m3.py:351-354)")
    return None


def quantization(values: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """The quantization the fusion gate sees: the line's, else the checkpoint's as the model
    override resolves it (arg_groups/model_overrides/minimax_m3.py:18-34, 46-53)."""
    given = values.get("quantization")
    if isinstance(given, str) and given:
        return given
    quant = data.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    method = quant.get("quant_method")
    if (method == "mxfp8" and str(quant.get("moe_quant_algo", "")).upper() == "NVFP4"
            and quant.get("moe_quant_format") == "nvfp4-pack-quantized"):
        return "minimax_m3_nvfp4"
    return method if isinstance(method, str) else None


def build_layout(tp: int, ep: int, moe_dp: int, a2a: str, redundant: int,
                 fusion_off: bool, quant: str | None,
                 block: Blocks | None = None, runner: str = "auto",
                 deepep_mode: str = "auto", jit_deepgemm: bool = True,
                 fp4: bool = False, dtype: str | None = None,
                 hip: bool = False, dense_tp: int | None = None) -> MoeLayout:
    """The layout from the line's resolved sizes (MoE-TP = tp // ep // moe_dp,
    runtime_context.py:154; sizes that do not divide are other rules' business) and the
    loader's fusion gate less the shared-expert count (minimax_m3.py:2021-2043); `hip`: a
    named AMD GPU (`MoeLayout.hip`); `dense_tp`: --moe-dense-tp-size (`MoeLayout.dense_tp`)."""
    # a named AMD GPU (MI300X / MI325X, gfx942) never fuses: "validated on gfx950 only"
    # (minimax_m3.py:2040-2041, minimax_m3_vl.py:185-186; s52e)
    gate = (not hip and not fusion_off and quant not in NO_FUSION_QUANTS and ep == 1
            and a2a != "deepep")
    return MoeLayout(tp, ep, max(1, tp // ep // moe_dp), a2a, redundant, gate, block, runner,
                     quant, deepep_mode, jit_deepgemm, fp4, dtype, hip, dense_tp)


__all__ = ["NO_NORMAL_MODE", "MoeLayout", "build_layout", "deepep_problem", "dense_group",
           "dispatcher_problem",
           "effective_runner", "fused_count",
           "fusion_problem", "is_moe_layer", "layer_problem", "pplx_problem", "quantization",
           "unquantized_problem"]
