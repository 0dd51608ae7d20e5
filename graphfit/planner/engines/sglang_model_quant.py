"""SGLang 0.5.23's per-model-class overrides of `--quantization` (and the MoE runner they
pick on the way), restated as data so graphfit knows the flag SGLang's later checks see.

Each class that a line may name falls in one of four kinds (`KIND`):

* `sm100_copy` -- on SM100, without `--quantization` (and not `--quantization unquant`,
  serving_hook.py:692-703), copy the checkpoint's parsed method into the flag: the Qwen3-MoE
  family (arg_groups/model_overrides/qwen3_moe.py:30-50) and GLM-4 MoE (glm4_moe.py:15-33).
* `deepseek_sm100_copy` -- the same copy, by the post-process pass
  `_deepseek_moe_quant_resolution` (arg_groups/overrides.py:763-797) for
  `_DEEPSEEK_FAMILY_ARCHS` (:745-760), DeepSeek V3 / V3.2 and GLM MoE DSA among them. One
  exception: DeepseekV3ForCausalLM with no `quant_method` reads the safetensors headers and
  becomes fp8 when they hold FP8 expert weights (:786-807); graphfit reads the same headers
  from a local model directory (graphfit.inputs.sglang_safetensors,
  SglangOptions.checkpoint_fp8_experts); without them (a hub id) that line's flag is unknown.
* `modelopt_any_gpu` -- Nemotron-H (model_overrides/nemotron_h.py:17-22): on any GPU, when
  the ModelConfig's verified quantization is a ModelOpt one, the flag becomes it
  (nemotron_h.py:31-55; a plain `modelopt` is named by its quant_algo there). It does not look
  at `_quantization_explicitly_unset`, so `--quantization unquant` on a ModelOpt checkpoint
  is left unknown here (whether the ModelConfig it reads saw the opt-out is not restated).
* `keeps` -- no override sets `--quantization`: Qwen2-MoE, DeepSeek-V2 (not in the DeepSeek
  family list), DeepSeek-V4 (deepseek_v4.py:18-88 sets attention, page size and the runner),
  Beam (beam.py:20-45: the runner only), Kimi K3 (kimi_k3.py:51-190: attention and the runner)
  and Kimi K3 Linear (no override registered).

The MoE runner the overrides pick for `--moe-runner-backend auto` is restated in
`RUNNER_EFFECTS` (prose data, each with file:line); `nemotron_h_megamoe_runner` applies the
one that decides a start-up refusal under flashinfer_megamoe (moe_hook.py:328-334).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_class_picks as picks

Kind = Literal["sm100_copy", "deepseek_sm100_copy", "modelopt_any_gpu", "keeps"]

_QWEN3 = ("Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration", "Qwen3NextForCausalLM",
          "Qwen3_5MoeForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
          "Qwen3_5ForConditionalGeneration", "Qwen4ExpForConditionalGeneration")
# overrides.py:745-760 (kept in sync there with deepseek_v2.py:37-50)
DEEPSEEK_FAMILY = ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
                   "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
                   "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
                   "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
                   "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM",
                   "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM")
NEMOTRON_H = ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
              "NemotronH_Omni_Reasoning_V3")  # nemotron_h.py:17-21
KEEPS = ("Qwen2MoeForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM",
         "BeamForCausalLM", "KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM")

KIND: dict[str, Kind] = {
    **dict.fromkeys(_QWEN3, "sm100_copy"), "Glm4MoeForCausalLM": "sm100_copy",
    **dict.fromkeys(DEEPSEEK_FAMILY, "deepseek_sm100_copy"),
    **dict.fromkeys(NEMOTRON_H, "modelopt_any_gpu"),
    **dict.fromkeys(KEEPS, "keeps"),
}
CITE: dict[Kind, str] = {
    "sm100_copy": "model_overrides/qwen3_moe.py:38-50, glm4_moe.py:15-33",
    "deepseek_sm100_copy": "arg_groups/overrides.py:763-797",
    "modelopt_any_gpu": "model_overrides/nemotron_h.py:31-55",
    "keeps": "no override sets it (model_overrides/deepseek_v4.py, beam.py, kimi_k3.py)",
}
# the ModelConfig quantizations Nemotron-H copies (nemotron_h.py:31-36)
MODELOPT = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")
# what each class's override does to --moe-runner-backend auto (data; file:line each)
RUNNER_EFFECTS: dict[str, str] = {
    "sm100_copy": "SM100, a2a none, quantization fp8/modelopt_fp4/modelopt_mixed/None -> "
                  "flashinfer_trtllm; modelopt_mixed W4A16 experts -> marlin "
                  "(qwen3_moe.py:51-89, glm4_moe.py:34-41)",
    "deepseek_sm100_copy": "SM100, a2a none, not LongCat, quantization fp8/modelopt_fp8/"
                           "modelopt_fp4/modelopt_mixed/None or Kimi int4 -> "
                           "flashinfer_trtllm (overrides.py:798-812); HYV4 MXFP8 with JIT "
                           "DeepGEMM -> deep_gemm, any a2a (deepseek_v2.py:80-97; "
                           "sglang_class_picks)",
    "modelopt_any_gpu": "W4A16 experts -> marlin (a2a none only, else ValueError); EPLB on "
                        "SM100 a2a none -> flashinfer_trtllm_routed (sglang_class_picks); "
                        "ModelOpt or no "
                        "quantization: SM100 a2a none -> flashinfer_trtllm, FP4 on SM80-90 -> "
                        "marlin, else flashinfer_cutlass (nemotron_h.py:65-121)",
    "DeepseekV4ForCausalLM": "hybrid NVFP4 MoE metadata -> flashinfer_trtllm_routed (any "
                             "a2a); MXFP4 routed experts, a2a none, SM90/100/120 -> "
                             "flashinfer_mxfp4 (deepseek_v4.py:66-88)",
    "BeamForCausalLM": "modelopt_fp4/NVFP4, SM100, a2a none -> flashinfer_trtllm "
                       "(beam.py:32-44)",
    "KimiK3ForConditionalGeneration": "MXFP4-pack checkpoint on SM100/103/107 -> "
                                      "flashinfer_mxfp4 (kimi_k3.py:172-190)",
}


def kind(arch: str | None) -> Kind | None:
    """The class's override kind; None: a class graphfit has not restated."""
    return KIND.get(arch) if arch is not None else None


def flag_after_overrides(arch: str | None, flag: str | None, unquant: bool,
                         model_quant: str | None, method: str | None,
                         sm100: bool | None, fp8_experts: bool | None = None, *,
                         hf_quant: Mapping[str, Any] | str | None = None
                         ) -> tuple[bool, str | None]:
    """(known, server_args.quantization after the class's override).

    `flag`: the given flag (None without one or with unquant); `unquant`: `--quantization
    unquant` was given; `model_quant`: the ModelConfig's verified quantization (what
    sglang_quantization.check_clash returns); `method`: the checkpoint's parsed method;
    `fp8_experts`: whether its safetensors hold FP8 expert weights (None: not read);
    `hf_quant`: config.json's quantization_config (sglang_class_picks; a plain `modelopt`
    is named by its quant_algo, nemotron_h.py:45-52)."""
    if arch in MINIMAX_M3 and flag is None and not unquant and _minimax_nvfp4(method, hf_quant):
        return True, "minimax_m3_nvfp4"  # copied on any GPU (minimax_m3.py:18-34, 46-54)
    k = kind(arch)
    if k == "modelopt_any_gpu":
        if model_quant in MODELOPT:  # nemotron_h.py:31-55
            known, named = picks.modelopt_flag(model_quant, hf_quant)
            return (known and not unquant, named)
        return True, flag
    if flag is not None or unquant or (method is None and arch != "DeepseekV3ForCausalLM"):
        return True, flag  # given, opted out, or nothing to copy
    if sm100 is None:
        return k == "keeps", None  # the copy needs SM100: unknown unless the class keeps
    if not sm100 or k == "keeps":
        return True, None
    if k in ("sm100_copy", "deepseek_sm100_copy") and method is not None:
        return True, method
    if arch == "DeepseekV3ForCausalLM" and fp8_experts is not None:
        # without quant_method SGLang reads the headers: FP8 experts -> fp8, else none
        # (overrides.py:791-807, utils/common.py:3857-3921)
        return True, "fp8" if fp8_experts else None
    # the headers were not read (a hub id), or a class graphfit has not restated
    return False, None


MINIMAX_M3 = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")


def minimax_runner(runner: str, quant: str | None, sm100: bool | None) -> tuple[bool, str]:
    """(known, `--moe-runner-backend`) after MiniMax-M3's hook off its NVFP4 stack, `quant`
    the flag it resolved (its copy included, issue 23 s64m): on SM100 an auto runner becomes
    deep_gemm under mxfp8 and flashinfer_trtllm_routed under modelopt_mixed
    (arg_groups/model_overrides/minimax_m3.py:169-172), then with no quantization auto /
    deep_gemm becomes triton on any GPU (:228-235). (ROCm's mxfp8 triton pick, :127-128, is
    not restated: graphfit's SM100 flag is False there.)"""
    if runner == "auto" and quant in ("mxfp8", "modelopt_mixed"):
        if sm100 is None:
            return False, runner
        if sm100:
            return True, "deep_gemm" if quant == "mxfp8" else "flashinfer_trtllm_routed"
    if quant is None and runner in ("auto", "deep_gemm"):
        return True, "triton"
    return True, runner


def _minimax_nvfp4(method: str | None, hf_quant: Mapping[str, Any] | str | None) -> bool:
    """`_resolve_quant_method` (minimax_m3.py:18-34): an mxfp8 checkpoint whose MoE fields
    name NVFP4 packed experts is served as minimax_m3_nvfp4 (issue 23 s51n)."""
    return method == "mxfp8" and isinstance(hf_quant, Mapping) and (
        str(hf_quant.get("moe_quant_algo", "")).upper() == "NVFP4"
        and hf_quant.get("moe_quant_format") == "nvfp4-pack-quantized")


# the runners each all-to-all backend lets past (an override's pick is checked after it,
# arg_groups/pipeline.py:225 then 294-295): deepep_v2 moe_hook.py:400-419, pplx :599-602,
# flashinfer :531-540, flashinfer_megamoe :328-334
A2A_RUNNERS: dict[str, tuple[str, ...]] = {
    "deepep_v2": ("deep_gemm", "auto"), "pplx": ("deep_gemm", "auto"),
    "flashinfer": ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm",
                   "flashinfer_trtllm_routed", "deep_gemm"),
    "flashinfer_megamoe": ("flashinfer_megamoe", "auto")}
A2A_CITE = {"deepep_v2": "moe_hook.py:403-419", "pplx": "moe_hook.py:599-602",
            "flashinfer": "moe_hook.py:531-540", "flashinfer_megamoe": "moe_hook.py:328-334"}
KIMI_MXFP4_SMS = (100, 103, 107)  # kimi_k3.py:181


def _quantized_layers(cfg: Mapping[str, Any] | None) -> Mapping[Any, Any] | None:
    """The quant config's `quantized_layers` table ({} when absent) both W4A16 expert tests
    read; None when the config is unknown or the table is not a mapping."""
    if cfg is None:
        return None
    layers = cfg.get("quantized_layers", {})
    return layers if isinstance(layers, Mapping) else None


def w4a16_experts(cfg: Mapping[str, Any] | None) -> bool | None:
    """Nemotron-H's `has_w4a16_moe_layers` (nemotron_h.py:64-71): a quantized layer under
    ".experts." with quant_algo W4A16_NVFP4; None when the config is not known."""
    layers = _quantized_layers(cfg)
    if layers is None:
        return None
    return any(isinstance(info, Mapping) and info.get("quant_algo") == "W4A16_NVFP4"
               and ".experts." in str(name) for name, info in layers.items())


def qwen3_w4a16_experts(cfg: Mapping[str, Any] | None) -> bool | None:
    """The Qwen3-MoE family's test (qwen3_moe.py:17-26, 51-54): a quantized layer whose name
    holds ".experts" with quant_algo W4A16_NVFP4 in any case; None: the config is unknown."""
    layers = _quantized_layers(cfg)
    if layers is None:
        return None
    return any(isinstance(info, Mapping) and ".experts" in str(name)
               and str(info.get("quant_algo", "")).upper() == "W4A16_NVFP4"
               for name, info in layers.items())


def _qwen3_runner(arch: str | None, runner: str, a2a: str, quant: str | None,
                  cfg: Mapping[str, Any] | None, w4a16_env: bool) -> tuple[bool, str]:
    """The Qwen3-MoE family on SM100 with W4A16_NVFP4 experts (qwen3_moe.py:51-76): the
    runner must be auto / marlin (or flashinfer_cutedsl under none / flashinfer with
    SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16), and auto becomes marlin whatever the a2a."""
    w4a16 = quant == "modelopt_mixed" and qwen3_w4a16_experts(cfg)
    if w4a16 is None:
        return False, runner
    if not w4a16:
        return True, runner
    cutedsl = runner == "flashinfer_cutedsl" and a2a in ("none", "flashinfer") and w4a16_env
    if runner not in ("auto", "marlin") and not cutedsl:
        raise ConfigError(f"{arch}: W4A16_NVFP4 MoE layers need --moe-runner-backend marlin "
                          f"(or flashinfer_cutedsl with its W4A16 mode): SGLang refuses "
                          f"(model_overrides/qwen3_moe.py:63-71)")
    return True, "marlin" if runner == "auto" else runner


def class_runner(arch: str | None, runner: str, a2a: str, sm100: bool | None,
                 capability: int | None, model_quant: str | None, quant: str | None,
                 cfg: Mapping[str, Any] | None, hybrid: bool | None,
                 kimi_pack: bool | None, w4a16_env: bool = False, *,
                 hf_quant: Mapping[str, Any] | str | None = None, remap: bool = False,
                 enable_eplb: bool = False, deepgemm: bool | None = False,
                 block_experts: tuple[int, ...] | None = None) -> tuple[bool, str]:
    """(known, `--moe-runner-backend` after the class's override) where the pick holds
    under an all-to-all backend (a2a none's picks are flashinfer_trtllm-family runners that
    take the quantizations they were picked for, RUNNER_EFFECTS). `model_quant`: the
    ModelConfig's quantization; `quant`: the flag after the override; `cfg`: the checkpoint's
    quantization config; `hybrid`: hybrid NVFP4 MoE metadata (model_config.py:775-784);
    `kimi_pack`: a Kimi K3 MXFP4 pack; `w4a16_env`: SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16.
    Nemotron-H's W4A16 experts refuse any a2a backend and any runner but marlin
    (nemotron_h.py:73-80), the Qwen3-MoE family's any runner but marlin / the CuTe DSL W4A16
    one (qwen3_moe.py:55-76): ConfigError. `hf_quant`, `remap`, `enable_eplb`,
    `deepgemm`: config.json's quantization_config, Nemotron-H's expert remap and EPLB flag,
    JIT DeepGEMM (sglang_class_picks: Nemotron-H's remap refusals and pick, HYV4's pick);
    `block_experts`: NemotronHPuzzle's per-MoE-block routed-expert counts."""
    k = kind(arch)
    if arch in MINIMAX_M3 and quant != "minimax_m3_nvfp4":
        return minimax_runner(runner, quant, sm100)
    hf = picks.hf_dict(hf_quant, cfg)
    hyv4 = picks.hyv4_runner(arch, runner, hf, deepgemm)  # deepseek_v2.py:80-97, any a2a
    if hyv4 is not None and (hyv4[0] or a2a == "flashinfer"):
        return hyv4  # unknown matters only where auto and deep_gemm part (moe_hook.py:531-540)
    if arch in _QWEN3 and sm100:  # its override runs on SM100 only (qwen3_moe.py:40)
        known, picked = _qwen3_runner(arch, runner, a2a, quant, cfg, w4a16_env)
        if picked != runner or not known:
            return known, picked
    elif arch in _QWEN3 and sm100 is None and quant == "modelopt_mixed" and (
            qwen3_w4a16_experts(cfg) is not False):
        return False, runner
    modelopt = model_quant in MODELOPT
    if k == "modelopt_any_gpu":
        picks.check_expert_remap(arch, runner, a2a, enable_eplb, remap,  # :57-63
                                 block_experts)
        if modelopt:
            picks.check_mixed_dict(arch, quant, hf)  # :65-72
        cfg = hf if isinstance(hf, Mapping) else None  # the W4A16 test reads hf_config's
    if k == "modelopt_any_gpu" and modelopt and quant == "modelopt_mixed" and (
            w4a16_experts(cfg) is not False):
        if w4a16_experts(cfg) is None:
            return False, runner
        if a2a != "none":
            raise ConfigError(f"{arch}: W4A16_NVFP4 MoE layers need --moe-a2a-backend none: "
                              f"SGLang refuses (model_overrides/nemotron_h.py:73-76)")
        if runner not in ("auto", "marlin"):
            raise ConfigError(f"{arch}: W4A16_NVFP4 MoE layers need --moe-runner-backend "
                              f"marlin: SGLang refuses (model_overrides/nemotron_h.py:77-80)")
        return True, "marlin"  # :81-82
    if k == "modelopt_any_gpu" and remap:
        pick = picks.remap_runner(runner, a2a, sm100)  # nemotron_h.py:87-98
        if pick is not None:
            return pick
    if a2a == "none":
        return True, runner
    if k == "modelopt_any_gpu":
        return nemotron_h_pick(runner, model_quant, quant, sm100, capability)
    if runner != "auto":
        return True, runner
    if arch == "DeepseekV4ForCausalLM":
        if hybrid is None:
            return False, runner
        return True, "flashinfer_trtllm_routed" if hybrid else runner  # deepseek_v4.py:66-74
    if arch == "KimiK3ForConditionalGeneration":
        gpu = (sm100 and capability in KIMI_MXFP4_SMS) if capability is not None else sm100
        if gpu is False or kimi_pack is False:
            return True, runner
        if gpu is None or kimi_pack is None:
            return False, runner
        return True, "flashinfer_mxfp4"  # kimi_k3.py:172-190
    return True, runner


def nemotron_h_pick(runner: str, model_quant: str | None, quant: str | None,
                    sm100: bool | None, capability: int | None) -> tuple[bool, str]:
    """(known, runner) Nemotron-H's override makes of `--moe-runner-backend auto` off
    SGLang's SM100 / no-a2a branch (model_overrides/nemotron_h.py:99-121): marlin for FP4
    experts on SM80-90, else flashinfer_cutlass."""
    if runner != "auto" or not (model_quant in MODELOPT or model_quant is None):
        return True, runner
    fp4 = model_quant in ("modelopt_fp4", "modelopt_mixed") or quant == "modelopt_fp4"
    if not fp4:
        return True, "flashinfer_cutlass"  # nemotron_h.py:121
    if capability is None:
        return (True, "flashinfer_cutlass") if sm100 else (False, runner)
    return True, "marlin" if 80 <= capability < 100 else "flashinfer_cutlass"  # :107-119


def check_a2a_runner(arch: str | None, given: str, picked: str, a2a: str) -> None:
    """The runner a class's override picked from auto, against what the a2a backend takes."""
    allowed = A2A_RUNNERS.get(a2a)
    if allowed is None or picked == given or picked in allowed:
        return
    raise ConfigError(f"{a2a}: {arch}'s override makes the auto MoE runner "
                      f"{picked} (sglang_model_quant.RUNNER_EFFECTS): SGLang refuses "
                      f"({A2A_CITE[a2a]})")


def nemotron_h_megamoe_runner(arch: str | None, runner: str, model_quant: str | None
                              ) -> None:
    """Nemotron-H's override turns `--moe-runner-backend auto` into flashinfer_cutlass or
    marlin whenever the a2a backend is not none and the ModelConfig's quantization is a
    ModelOpt one or none (nemotron_h.py:99-121; W4A16 experts raise first, :74-76), so
    flashinfer_megamoe's runner assert fails (moe_hook.py:328-334)."""
    if kind(arch) != "modelopt_any_gpu" or runner != "auto":
        return
    if model_quant is None or model_quant in MODELOPT:
        raise ConfigError(
            f"flashinfer_megamoe: {arch}'s override makes the auto MoE runner "
            f"flashinfer_cutlass/marlin (nemotron_h.py:99-121): SGLang asserts "
            f"(moe_hook.py:328-334); name flashinfer_megamoe")


def deepseek_v4_megamoe_runner(arch: str | None, runner: str, quant_algo: str | None,
                               fp4: bool | None, hybrid: bool | None = None) -> None:
    """DeepSeek-V4's override turns `--moe-runner-backend auto` into flashinfer_trtllm_routed
    for a checkpoint with hybrid NVFP4 MoE metadata, whatever the a2a backend
    (deepseek_v4.py:66-74), so flashinfer_megamoe's runner assert fails (moe_hook.py:
    328-334); MXFP4 routed experts change the runner only without an a2a backend (:75-88).
    graphfit's moe_fp4_checkpoint holds either: with quant_algo MIXED_PRECISION (the hybrid
    metadata's, model_config.py:779-784) it cannot tell them apart unless `hybrid` (read
    from the checkpoint's quantization config, sglang_quantization.hybrid_nvfp4) says."""
    if arch != "DeepseekV4ForCausalLM" or runner != "auto" or hybrid is False:
        return
    if hybrid:
        raise ConfigError(
            "flashinfer_megamoe: DeepSeek-V4 on hybrid NVFP4 metadata makes the auto MoE runner "
            "flashinfer_trtllm_routed (deepseek_v4.py:66-74): SGLang asserts (moe_hook.py:"
            "328-334); name flashinfer_megamoe")
    if fp4 is not True:
        return
    if str(quant_algo or "").upper() == "MIXED_PRECISION":
        raise ConfigError(
            "flashinfer_megamoe: DeepSeek-V4 on hybrid NVFP4 metadata makes the auto MoE runner "
            "flashinfer_trtllm_routed (deepseek_v4.py:66-74; moe_hook.py:328-334): not "
            "modelled; name flashinfer_megamoe")


__all__ = ["A2A_RUNNERS", "CITE", "DEEPSEEK_FAMILY", "KEEPS", "KIND", "MODELOPT",
           "NEMOTRON_H", "RUNNER_EFFECTS", "check_a2a_runner", "class_runner",
           "deepseek_v4_megamoe_runner", "flag_after_overrides", "kind", "minimax_runner",
           "nemotron_h_megamoe_runner", "qwen3_w4a16_experts", "w4a16_experts"]
