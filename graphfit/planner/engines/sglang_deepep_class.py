"""The DeepEP-class MoE layer's JIT-DeepGEMM assert in SGLang 0.5.23, for every model class
whose MoE layers SGLang builds through `get_moe_impl_class`.

Why a rule of its own: the assert is raised when the model is built (after every start-up
hook graphfit restates), it reads an environment variable rather than a flag, and it holds
for every architecture below, not for one model. MiniMax-M3's own restatement (built by
graphfit.inputs.sglang_minimax_moe.deepep_problem) is left where it is; this module covers
the other classes.

SGLang (paths under sglang/srt/):

* `get_moe_impl_class` (layers/moe/ep_moe/layer.py:352-365) returns `DeepEPMoE` for the
  a2a backends deepep, deepep_v2, mooncake, nixl, pplx and mori (MoRI EP v2 builds
  FusedMoE, :353-354).
* `DeepEPMoE.__init__` (:70-178) first takes the modern runner path (`deprecate_flag`, no
  assert) for deepep_v2, a humming runner, ROCm's AITER / NPU (:100-108), flashinfer_cutedsl
  with modelopt_fp4 / modelopt_mixed (:118-124) and, with JIT DeepGEMM on, FP8 / BF16
  dispatch / MXFP4 (:109-117, :125-134). Otherwise, when the
  DeepEP mode enables low latency (auto or low_latency, utils.py:275-276), the platform is
  CUDA and the layer is quantized, it asserts JIT DeepGEMM: "DeepEP DeepEPMode.<MODE> mode
  requires deep_gemm" (:168-178).
* Unquantized, BF16 experts on the deep_gemm runner under deepep or pplx (pplx turns runner
  auto into deep_gemm, arg_groups/moe_hook.py:603-609), JIT DeepGEMM off, CUDA: "Unquantized
  DeepEP MoE requires DeepGEMM BF16" (:135-147). Reaching it needs the loader's dtype
  (model_loader/loader.py:838): an oracle that built in float32 never did (s44n, s45e).
* Before that body, FusedMoE's constructor makes the a2a dispatcher
  (fused_moe_triton/layer.py:595, 190-201): Mooncake's raises NotImplementedError in a
  mode that enables normal dispatch, auto or normal (token_dispatcher/mooncake.py:343-344;
  utils.py:272-273), so a Mooncake EP line starts only with --deepep-mode low_latency. That
  holds for every FusedMoE model (e.g. Mixtral, mixtral.py:100), not only ARCHITECTURES.
  NixlEP's dispatcher (two_batch_overlap.py:1175-1178) does the same with its own sentence,
  "Normal mode is not supported for Nixl EP yet." (token_dispatcher/nixl.py:481-482; s54e:
  MiniMax-M3's walk had it since s52e, every other model was planned).
* JIT DeepGEMM is off when the line sets SGLANG_ENABLE_JIT_DEEPGEMM=0, or below SM90
  (deep_gemm_wrapper/configurer.py:32-55; graphfit.planner.engines.sglang_class_picks).
* The mode the layer reads is `--deepep-mode` after `handle_a2a_moe`: pplx turns auto into
  low_latency (arg_groups/moe_hook.py:581-587), MoRI turns auto into normal (:545-551) and
  deepep with flashinfer_cutedsl auto into low_latency (:363-375).
* MoRI needs no clause: EP v2 (SGLANG_MORI_EP_V2, on by default, moe_hook.py:777-804)
  builds FusedMoE (ep_moe/layer.py:353-354); EP v1 turns auto into normal (moe_hook.py:
  545-551), and its dispatcher, made before DeepEPMoE's body, imports the ROCm-only `mori`
  package (token_dispatcher/moriep.py:957-962), while on ROCm HIP skips the assert (:172).
* A named AMD GPU: SGLANG_ENABLE_JIT_DEEPGEMM is not read there and both asserts skip HIP;
  graphfit.inputs.sglang_rocm_deepgemm drops the variable's "off" on such a line.
* A Gemma 4 target with MoE blocks (GEMMA4_MOE, s69w): Gemma4MoE makes its experts through
  get_moe_impl_class (models/gemma4_causal.py:285-295), so the same asserts hold. Its GELU
  experts meet DeepGemmRunnerCore's SiLU assert first under a DeepGEMM runner (FusedMoE's
  constructor, before DeepEPMoE's body; graphfit.planner.engines.sglang_gelu_target, checked
  before this module), so what is left here is a quantized target on another runner.

Not restated (answered as planned, see docs/engines/sglang-coverage.md, s45e / s47e /
s50e): a runner graphfit cannot resolve. A draft's MoE under --speculative-moe-a2a-backend
mooncake / nixl: graphfit.planner.engines.sglang_draft_dispatch (s54e), for the draft classes
it restates.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import sglang_moe_a2a, sglang_quantization

# the a2a backends get_moe_impl_class builds DeepEPMoE for and DeepEPMoE keeps on its legacy
# path (deepep_v2 deprecates at :100-102; mori: see the module docstring)
LEGACY_A2A = frozenset({"deepep", "mooncake", "nixl", "pplx"})
LOW_LATENCY_MODES = frozenset({"auto", "low_latency"})  # DeepEPMode.enable_low_latency
NORMAL_MODES = frozenset({"auto", "normal"})  # DeepEPMode.enable_normal (utils.py:272-273)
CUTEDSL_QUANTS = frozenset({"modelopt_fp4", "modelopt_mixed"})  # ep_moe/layer.py:118-124
UNQUANTIZED_A2A = frozenset({"deepep", "pplx"})  # ep_moe/layer.py:140 (is_deepep / is_pplx)
# the runners that make the unquantized method's runner deep_gemm: deep_gemm and the LoRA
# ones (fused_moe_triton/layer.py:439-442; MoeRunnerBackend.is_lora, layers/moe/utils.py:174-179)
DEEP_GEMM_RUNNERS = frozenset({"deep_gemm", "lora_cutedsl", "lora_triton", "lora_marlin"})

# architecture -> the place its MoE layers call get_moe_impl_class (models/...)
ARCHITECTURES: dict[str, str] = {
    "BailingMoEForCausalLM": "bailing_moe.py:312",
    "BailingMoeForCausalLM": "bailing_moe.py:312",
    "BailingMoeV2ForCausalLM": "bailing_moe.py:312",
    "BailingMoeV2_5ForCausalLM": "bailing_moe_linear.py:301",
    "BailingMoeV3ForCausalLM": "bailing_moe_v3.py:568",
    "DeepseekV2ForCausalLM": "deepseek_v2.py:753",
    "DeepseekV3ForCausalLM": "deepseek_v2.py:753",
    "DeepseekV32ForCausalLM": "deepseek_v2.py:753",
    "DeepseekV3ForCausalLMNextN": "deepseek_v2.py:753 (deepseek_nextn.py:127's decoder layer)",
    "Ernie4_5_MoeForCausalLM": "ernie4.py:104",
    "ExaoneMoEForCausalLM": "exaone_moe.py:161",
    "ExaoneMoeForCausalLM": "exaone_moe.py:161",
    "Glm4MoeForCausalLM": "glm4_moe.py:436",
    "GlmMoeDsaForCausalLM": "glm4_moe.py:436",
    "Glm4MoeLiteForCausalLM": "glm4_moe_lite.py:209",
    "GptOssForCausalLM": "gpt_oss.py:229",
    "KimiLinearForCausalLM": "kimi_linear.py:115",
    "LagunaForCausalLM": "laguna.py:154",
    "LongcatFlashForCausalLM": "longcat_flash.py:300",
    "MiMoV2ForCausalLM": "mimo_v2.py:451",
    "MiMoV2FlashForCausalLM": "mimo_v2.py:451",
    "MiniMaxM2ForCausalLM": "minimax_m2.py:536",
    "MistralLarge3ForCausalLM": "deepseek_v2.py:753 (mistral_large_3.py:12)",
    "Qwen2MoeForCausalLM": "qwen2_moe.py:318",
    "Qwen3MoeForCausalLM": "qwen3_moe.py:265",
    "Qwen3NextForCausalLM": "qwen2_moe.py:318 (qwen3_next.py:549)",
    "Qwen3VLMoeForConditionalGeneration": "qwen3_moe.py:265 (qwen3_vl_moe.py:44)",
    "SarvamMLAForCausalLM": "sarvam_moe.py:277",
    "SarvamMoEForCausalLM": "sarvam_moe.py:277",
    "Step3p5ForCausalLM": "step3p5.py:152",
}


# s69w: the Gemma 4 targets whose decoder layers make Gemma4MoE's experts through
# get_moe_impl_class (models/gemma4_causal.py:285-295) only where the text config sets
# `enable_moe_block` (:640-653, 684-685; SglangOptions.gelu_moe_target): so they are
# DeepEP-class on such a line only (`listed`). The names are
# graphfit.planner.engines.sglang_gelu_target.GELU_TARGETS' (that module imports this one
# through the draft rules, so the set is restated here).
GEMMA4_MOE: dict[str, str] = {
    "Gemma4ForCausalLM": "gemma4_causal.py:285",
    "Gemma4ForConditionalGeneration": "gemma4_causal.py:285 (gemma4_mm.py:63)",
    "Gemma4UnifiedForConditionalGeneration": "gemma4_causal.py:285 (gemma4_unified.py:53)",
}


def listed(config: EngineSettings) -> str | None:
    """The architecture whose MoE layers SGLang builds as DeepEPMoE under a legacy backend,
    or None: ARCHITECTURES, or a Gemma 4 target with MoE blocks (GEMMA4_MOE; s69w: graphfit
    planned these under deepep with JIT DeepGEMM off, SGLang asserts)."""
    architecture = config.architecture
    if architecture in ARCHITECTURES:
        return architecture
    if architecture in GEMMA4_MOE and config.gelu_moe_target:
        return architecture
    return None


# MoE classes whose experts are no FusedMoE (so no a2a dispatcher is made): DBRX calls the
# fused_moe kernel itself (models/dbrx.py:123, 155, 190-195)
NO_DISPATCHER = frozenset({"DbrxForCausalLM"})


# the dispatchers whose constructor raises in a mode that enables normal dispatch:
# backend -> (what SGLang says, where); handle_a2a_moe changes neither backend's mode
NO_NORMAL_MODE: dict[str, tuple[str, str]] = {
    "mooncake": ("Mooncake EP has no normal mode", "token_dispatcher/mooncake.py:343-344"),
    "nixl": ("Normal mode is not supported for Nixl EP yet.", "token_dispatcher/nixl.py:481-482"),
}


def mooncake_problem(architecture: str | None, a2a: str, mode: str) -> str | None:
    """Mooncake's or NixlEP's dispatcher raise for one line (the backend the model sees,
    --deepep-mode as given: handle_a2a_moe leaves their mode alone), or None. It needs
    neither the quantization nor the runner: FusedMoE's constructor makes the dispatcher
    first, for every MoE class built on FusedMoE (DeepEPMoE's listed ones and the rest, e.g.
    Mixtral's MixtralMoE, mixtral.py:100), not only ARCHITECTURES. A dense model never
    reaches here with a backend (graphfit.inputs.sglang_a2a refuses it); without an
    architecture (no config.json read) graphfit cannot tell that SGLang builds any MoE
    layer: planned. (The name stays from s46e, when Mooncake was the only one.)"""
    if architecture is None or architecture in NO_DISPATCHER:
        return None
    found = NO_NORMAL_MODE.get(a2a)
    if found is None or mode not in NORMAL_MODES:
        return None
    said, site = found
    if a2a == "mooncake":
        return (f"{said}: --deepep-mode {mode} raises NotImplementedError building "
                f"{architecture}'s MoE ({site}); use low_latency")
    return (f"{said} (--deepep-mode {mode}: NotImplementedError building {architecture}'s "
            f"MoE, {site}); use low_latency")


def problem(architecture: str | None, a2a: str, mode: str, quant: str | None,
            runner: str, jit_deepgemm: bool | None) -> str | None:
    """SGLang's assert for one line, or None where the layer builds (or graphfit does not
    restate it). `a2a`: the backend the model sees (after Waterfill); `mode`: --deepep-mode
    as given; `quant`: the quantization config's name handed to the layer (None: none);
    `runner`: --moe-runner-backend after the class's override; `jit_deepgemm`: False only
    where JIT DeepGEMM is known to be off. A GEMMA4_MOE name counts as listed: the caller
    (`check_line`, through `listed`) passes it only where the target has MoE blocks."""
    if (architecture not in ARCHITECTURES and architecture not in GEMMA4_MOE) \
            or a2a not in LEGACY_A2A:
        return None
    said = mooncake_problem(architecture, a2a, mode)
    if said or quant is None:
        return said
    if jit_deepgemm is not False or mode not in LOW_LATENCY_MODES:
        return None
    if runner == "humming" or (runner == "flashinfer_cutedsl" and quant in CUTEDSL_QUANTS):
        return None
    shown = "low_latency" if a2a == "pplx" else mode  # moe_hook.py:581-587
    return (f"DeepEP DeepEPMode.{shown.upper()} mode requires deep_gemm (AssertionError, "
            f"layers/moe/ep_moe/layer.py:168-178: {architecture}'s DeepEPMoE, JIT DeepGEMM "
            f"off)")


def unquantized_problem(architecture: str | None, a2a: str, quant: str | None, runner: str,
                        dtype: str, jit_deepgemm: bool | None) -> str | None:
    """DeepEPMoE's unquantized assert (ep_moe/layer.py:135-147), or None: no quantization
    config, BF16 expert weights (the model loader builds under the ModelConfig dtype,
    model_loader/loader.py:838; create_weights takes it), the deep_gemm runner the
    unquantized method makes from --moe-runner-backend deep_gemm or a LoRA one
    (fused_moe_triton/layer.py:439-442, 502-506; quantization/unquant.py:1183-1184;
    DEEP_GEMM_RUNNERS), a2a deepep or pplx, CUDA, and JIT
    DeepGEMM off. The earlier branches (:101-134) all need deepep_v2, humming, ROCm/NPU, JIT
    on or a quantization, so none takes such a line first."""
    if (architecture not in ARCHITECTURES and architecture not in GEMMA4_MOE) \
            or a2a not in UNQUANTIZED_A2A or quant is not None:
        return None
    if runner not in DEEP_GEMM_RUNNERS or dtype != "bfloat16" or jit_deepgemm is not False:
        return None
    return (f"Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, layers/moe/"
            f"ep_moe/layer.py:135-147: {architecture}'s DeepEPMoE, runner {runner}, JIT "
            f"DeepGEMM off)")


def check(architecture: str | None, a2a: str, mode: str, quant: str | None, runner: str,
          jit_deepgemm: bool | None) -> None:
    """Raise SGLang's reason where `problem` finds one."""
    said = problem(architecture, a2a, mode, quant, runner, jit_deepgemm)
    if said:
        raise ConfigError(said)


def check_line(config: EngineSettings) -> None:
    """Mooncake's raise, then the unquantized assert and `check`, on a resolved line: the
    backend the model sees after Waterfill (sglang_moe_a2a.runtime_backend: none on a dense
    model, whose layers never read the flag), the ModelConfig's quantization and dtype, the
    runner after the class's override and pplx's pick (skipped where graphfit cannot tell
    it), JIT DeepGEMM from SGLANG_ENABLE_JIT_DEEPGEMM and the GPU. Called after every
    start-up check: SGLang builds the model once its arguments are resolved."""
    a2a = sglang_moe_a2a.runtime_backend(config)  # dense: none (s68m)
    said = mooncake_problem(config.architecture, a2a, config.deepep_mode)
    if said:
        raise ConfigError(said)
    architecture = listed(config)  # a Gemma 4 target only with MoE blocks (s69w)
    if architecture is None or not sglang_quantization.flag_known(config):
        return
    known, runner = sglang_quantization.class_runner(config)
    if not known:
        return
    if a2a == "pplx" and runner == "auto":
        runner = "deep_gemm"  # handle_a2a_moe's pplx pick (arg_groups/moe_hook.py:603-609)
    quant = sglang_quantization.verified_quant(config)
    jit = picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability)
    said = unquantized_problem(architecture, a2a, quant, runner, config.dtype, jit)
    if said:
        raise ConfigError(said)
    check(architecture, a2a, config.deepep_mode, quant, runner, jit)


__all__ = ["ARCHITECTURES", "DEEP_GEMM_RUNNERS", "GEMMA4_MOE", "LEGACY_A2A", "NO_DISPATCHER",
           "NO_NORMAL_MODE", "UNQUANTIZED_A2A", "check", "check_line", "listed",
           "mooncake_problem", "problem", "unquantized_problem"]
