"""SGLang 0.5.23's attention backend for a line that names none, by GPU and model.

Why graphfit needs it: multi-layer EAGLE's draft-extend graph count depends on the backend the
draft-extend steps run (graphfit.planner.engines.sglang_mtp_graphs); with no backend flag on
the line that is SGLang's default, resolved in the attention hook.

What SGLang does (each cited):

* `_attention_backend_default` (arg_groups/overrides.py:1126-1140): `--prefill-attention-
  backend X --decode-attention-backend X` (the same X) makes X the base backend; else, with no
  `--attention-backend`, the base backend is `get_default_attn_backend`
  (arg_groups/model_override_base.py:277-352):
  - MHA models: fa3 on Hopper with CUDA >= 12.3 (`is_hopper_with_cuda_12_3`,
    utils/common.py:292-296) when there is no speculation or topk is 1 with page size 1
    (`is_no_spec_infer_or_topk_one`, utils/common.py:3960-3966); on SM100 (capability major
    10, CUDA >= 12.8, utils/common.py:308-312) under the same test and, with speculation, a
    topk on the line (or DFLASH): trtllm_mha, fa4 for asymmetric K/V widths
    (`has_asymmetric_kv`, configs/model_config.py:1262-1271); AMD (ROCm): aiter; else
    flashinfer unless the model has attention sinks (then triton).
  - MLA models: fa3 on Hopper, flashinfer on SM100, triton elsewhere on CUDA (AMD: aiter for
    16 or 128 KV heads, else triton).
* Model overrides run before and may name a backend themselves (arg_groups/model_overrides/):
  the DeepSeek V3 family (deepseek_v2.py:51-190) names `dsa` for DSA checkpoints
  (configs/model_config.py:191-213) and `trtllm_mla` on SM100 when no backend flag is given;
  Olmo2 (and Exaone 4 with a sliding-window pattern) name trtllm_mha on SM100, fa3 from
  capability 8.0, else triton (olmo2.py:15-31, exaone.py:15-30);
  other architectures whose overrides write a backend are listed in OWN_BACKEND and not
  restated (their default is unknown to graphfit).
* Later: FlashAttention 3 with `--kv-cache-dtype fp8_e5m2` becomes triton
  (`_attention_backend_fa3_fp8_fallback`, overrides.py:1262-1270). Deterministic inference
  (after the overrides, before the default: arg_groups/pipeline.py:225-242) picks flashinfer
  on SM100 / SM120 (triton for DeepSeek-shaped models), else fa3
  (`_deterministic_attention_backend`, overrides.py:1087-1123).

Assumed (said in the origin of the value): CUDA >= 12.8 (so >= 12.3), flashinfer installed
(an SGLang dependency, `is_flashinfer_available`, utils/common.py:388-395), not an
out-of-tree platform.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError, excerpt

HOOK = "arg_groups/model_override_base.py:277-352"
# architectures whose model override writes an attention backend itself (arg_groups/
# model_overrides/*.py, the `_register_for` lists of the providers that write one); the
# DeepSeek family is restated (DEEPSEEK_FAMILY), the others are not
OWN_BACKEND = frozenset({
    "BeamForCausalLM", "DeepseekV4ForCausalLM", "EmbeddingGemma2Model", "FalconH1ForCausalLM",
    "JetNemotronForCausalLM", "JetVLMForConditionalGeneration",
    "Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "GptOssForCausalLM", "GraniteMoeHybridForCausalLM", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP", "IQuestQ1ForCausalLM", "IQuestQ1MTP",
    "KimiK3ForConditionalGeneration", "Lfm2ForCausalLM", "Lfm2MoeForCausalLM",
    "Llama4ForConditionalGeneration", "Llama4ForCausalLM", "MiMoV2ForCausalLM",
    "MiMoV2FlashForCausalLM", "MiniCPMForCausalLM", "MiniCPMSALAForCausalLM",
    "MiniCPMV4_6ForConditionalGeneration", "MiniCPMV4_7ForConditionalGeneration",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
    "MossVLForConditionalGeneration", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
    "NemotronH_Omni_Reasoning_V3", "Qwen3NextForCausalLM",
    "Qwen3_5MoeForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
    "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration",
})
# overrides restated: SM100 -> trtllm_mha, capability >= 8.0 -> fa3, else triton, when
# `--attention-backend` is not given (model_overrides/olmo2.py:15-31 always;
# model_overrides/exaone.py:15-30 when the config names a `sliding_window_pattern`)
OLMO2 = frozenset({"Olmo2ForCausalLM"})
EXAONE = frozenset({"Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM"})
# SGLang's hybrid sliding-window architectures (`is_hybrid_swa_model`, configs/model_config.py:
# 2651-2697; a text config may opt in with `is_hybrid_swa`): their KV pool decides whether
# FlashAttention refreshes its draft-extend metadata in the graph
# (flashattention_backend.py:553-560), which graphfit does not model
HYBRID_SWA = frozenset({
    "BeamForCausalLM", "Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
    "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark", "GptOssForCausalLM",
    "GraniteSWAForCausalLM", "GraniteMoeSWAForCausalLM", "IQuestQ1ForCausalLM", "IQuestQ1MTP",
    "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP", "Step3p5ForCausalLM",
    "Step3p5MTP", "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "LagunaForCausalLM", "MellumForCausalLM", "MuseGlimmerForCausalLM",
    "MuseGlimmerForConditionalGeneration", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP", "UnlimitedOCRForCausalLM",
})
# SGLang's MLA architectures named without a condition (configs/model_config.py:1367-1397)
MLA_ARCHITECTURES = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGeneration",
    "Glm5NextForConditionalGenerationNextN", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "DotsVLMForCausalLM", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle",
    "KimiK25ForConditionalGeneration", "Eagle3DeepseekV2ForCausalLM", "GigaChat35ForCausalLM",
    # Kimi-K3 is MLA by its architecture alone (configs/model_config.py:1463-1475)
    "KimiK3ForConditionalGeneration",
    "GigaChat35ForCausalLMNextN", "MiniCPM3ForCausalLM",
})
# architectures SGLang's DSA test names; a DSA checkpoint also carries `index_topk`
# (`is_deepseek_dsa`, configs/model_config.py:191-212)
DSA_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGenerationNextN",
    "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
})
# SGLang's attention-sink architectures (SWA_SINK_ARCHS, configs/model_config.py:88-96; a
# text config's `learnable_sink` too, :1273-1289)
SINK_ARCHITECTURES = frozenset({
    "GptOssForCausalLM", "GraniteSWAForCausalLM", "GraniteMoeSWAForCausalLM",
    "IQuestQ1ForCausalLM", "IQuestQ1MTP",
})
# deepseek_v2.py:37-50 (restated: `dsa` for DSA checkpoints, `trtllm_mla` on SM100)
DEEPSEEK_FAMILY = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm5NextForConditionalGeneration", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM",
})
# `_deterministic_is_deepseek_model` (arg_groups/overrides.py:1039-1056)
DETERMINISTIC_DEEPSEEK = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm4MoeLiteForCausalLM",
})
# DETERMINISTIC_ATTENTION_BACKEND_CHOICES (arg_groups/choices.py:113-120)
DETERMINISTIC_CHOICES = frozenset({"ascend", "fa3", "fa4", "flashinfer", "intel_xpu",
                                   "triton"})
# the GPU generations SGLang's probes tell apart
GPU_KINDS = ("turing", "ampere", "ada", "hopper", "sm100", "sm120", "rocm")


@dataclass(frozen=True)
class AttentionDefaultInputs:
    """What SGLang's default reads: the GPU kind (GPU_KINDS; CUDA capability 7.x / 8.0 / 8.9 /
    9.x / 10.x / 12.x, or an AMD GPU), the model (config.json: its first architecture, MLA,
    a DSA checkpoint, attention sinks, K/V widths that differ) and the line's speculation
    topk, page size and algorithm, KV-cache dtype and deterministic switch."""

    gpu: str
    architecture: str
    mla: bool = False
    dsa: bool = False
    attention_sinks: bool = False
    asymmetric_kv: bool = False
    kv_heads: int | None = None
    sliding_window_pattern: bool = False
    speculative_algorithm: str | None = None
    topk: int | None = None
    page_size: int | None = None
    kv_cache_dtype: str | None = None
    deterministic: bool = False
    all_unset: bool = True  # no --attention-backend / --prefill- / --decode- flag on the line

    def __post_init__(self) -> None:
        if self.gpu not in GPU_KINDS:
            raise ConfigError(f"gpu: expected one of {', '.join(GPU_KINDS)}, got "
                              f"{excerpt(self.gpu)}")
        for name in ("topk", "page_size", "kv_heads"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ConfigError(f"{name}: must be an int >= 1, got {excerpt(value)}")


@dataclass(frozen=True)
class DefaultBackend:
    """SGLang's default base attention backend (None: graphfit does not restate it) and why."""

    name: str | None
    why: str


def _mha(inp: AttentionDefaultInputs) -> tuple[str, str]:
    no_spec_or_topk_one = inp.topk is None or (inp.topk == 1 and inp.page_size in (None, 1))
    if inp.gpu == "hopper" and no_spec_or_topk_one:
        return "fa3", "MHA on Hopper"
    if inp.gpu == "sm100" and no_spec_or_topk_one and (
            inp.speculative_algorithm is None or inp.topk is not None
            or inp.speculative_algorithm.upper() == "DFLASH"):
        if inp.asymmetric_kv:
            return "fa4", "MHA with unequal K/V widths on SM100"
        return "trtllm_mha", "MHA on SM100"
    if inp.gpu == "rocm":
        return "aiter", "MHA on ROCm"
    if inp.attention_sinks:
        return "triton", "MHA with attention sinks (flashinfer has none)"
    why = "MHA, speculation topk > 1 or page size > 1" if inp.gpu in ("hopper", "sm100") \
        else f"MHA on {inp.gpu}"
    return "flashinfer", why


def _mla(inp: AttentionDefaultInputs) -> tuple[str, str]:
    if inp.gpu == "hopper":
        return "fa3", "MLA on Hopper"
    if inp.gpu == "sm100":
        return "flashinfer", "MLA on SM100"
    if inp.gpu == "rocm":
        return ("aiter" if inp.kv_heads in (16, 128) else "triton"), "MLA on ROCm"
    return "triton", f"MLA on {inp.gpu}"


def default_attention_backend(inp: AttentionDefaultInputs) -> DefaultBackend:
    """SGLang's base attention backend when the line names none (module docstring)."""
    return override_default(inp) or generic_default(inp)


def named_before_default(inp: AttentionDefaultInputs) -> str | None:
    """The base a model override or deterministic inference names before
    `handle_nvfp4_prefill_kv_dequant_dtype` reads it (pipeline.py:225-241), for a line naming
    no backend; None where SGLang's generic default fills it only after that hook
    (`_attention_backend_default`, overrides.py:1126-1139)."""
    found = override_default(inp)
    if found is not None:
        return found.name
    return _deterministic(inp)[0] if inp.deterministic else None


def override_default(inp: AttentionDefaultInputs) -> DefaultBackend | None:
    """The base a model override graphfit restates names for a line naming no backend
    (`default_attention_backend`); None where the override names nothing."""
    if inp.architecture == "WhisperForConditionalGeneration" and not inp.deterministic:
        return DefaultBackend("flashinfer", f"Whisper ({HOOK})")
    if inp.architecture in OWN_BACKEND:
        return DefaultBackend(None, f"{inp.architecture}'s model override picks its own "
                                    f"backend (arg_groups/model_overrides/, not restated)")
    if inp.architecture in OLMO2 or (inp.architecture in EXAONE
                                     and inp.sliding_window_pattern):
        name, why = ("trtllm_mha" if inp.gpu == "sm100" else "fa3"
                     if inp.gpu not in ("turing", "rocm") else "triton"), (
            f"{inp.architecture}'s override on {inp.gpu} (model_overrides/"
            f"{'olmo2.py:24-30' if inp.architecture in OLMO2 else 'exaone.py:24-29'})")
        return _checked(inp, _fp8_e5m2(inp, name, why))
    # both DeepSeek branches need none of the three backend flags on the line
    # (`is_attention_backend_not_set`, deepseek_v2.py:101, 176-180)
    if inp.architecture in DEEPSEEK_FAMILY and inp.dsa and inp.all_unset:
        return _checked(inp, DefaultBackend(
            "dsa", "DeepSeek DSA checkpoint (model_overrides/deepseek_v2.py:98-102)"))
    if inp.architecture in DEEPSEEK_FAMILY and inp.gpu == "sm100" and inp.all_unset:
        return _checked(inp, DefaultBackend(
            "trtllm_mla", "DeepSeek V3 family on SM100 (deepseek_v2.py:174-184)"))
    return None


def generic_default(inp: AttentionDefaultInputs) -> DefaultBackend:
    """The default after the model overrides named nothing: deterministic inference's pick,
    else `get_default_attn_backend` (MHA / MLA by GPU), then the fp8_e5m2 fallback (module
    docstring). graphfit.planner.engines.sglang_arch_overrides reaches it for an
    architecture whose override leaves the backend to SGLang."""
    if inp.deterministic:
        name, why = _deterministic(inp)
    else:
        name, why = _mla(inp) if inp.mla else _mha(inp)
        why = f"{why} ({HOOK})"
    return _fp8_e5m2(inp, name, why)


def checked(inp: AttentionDefaultInputs, found: DefaultBackend) -> DefaultBackend:
    """`_checked` for graphfit.planner.engines.sglang_arch_overrides, then the fp8_e5m2
    fallback SGLang runs after every override (overrides.py:1262-1270)."""
    found = _checked(inp, found)
    return found if found.name is None else _fp8_e5m2(inp, found.name, found.why)


def _checked(inp: AttentionDefaultInputs, found: DefaultBackend) -> DefaultBackend:
    """A backend a model override named, under deterministic inference: SGLang validates it
    against its deterministic list and refuses the others (overrides.py:1117-1122,
    arg_groups/choices.py:113-120)."""
    if inp.deterministic and found.name not in DETERMINISTIC_CHOICES:
        raise ConfigError(f"SGLang refuses --enable-deterministic-inference with the "
                          f"{found.name} backend {inp.architecture}'s override picks on "
                          f"{inp.gpu} (overrides.py:1117-1122); name a backend")
    return found


def _deterministic(inp: AttentionDefaultInputs) -> tuple[str, str]:
    """`--enable-deterministic-inference` with no backend named by the line or an override
    (it runs after the model overrides and before the default, pipeline.py:225-242):
    SM100 / SM120 flashinfer (triton for the DeepSeek-shaped models), else fa3
    (`_deterministic_attention_backend`, overrides.py:1087-1123, 1039-1056)."""
    where = "overrides.py:1087-1123"
    if inp.gpu in ("sm100", "sm120"):
        if inp.architecture in DETERMINISTIC_DEEPSEEK:
            return "triton", f"deterministic inference, DeepSeek-shaped, on {inp.gpu} ({where})"
        return "flashinfer", f"deterministic inference on {inp.gpu} ({where})"
    return "fa3", f"deterministic inference on {inp.gpu} ({where})"


def _fp8_e5m2(inp: AttentionDefaultInputs, name: str, why: str) -> DefaultBackend:
    """FlashAttention 3 has no fp8_e5m2 KV: SGLang moves it to triton (overrides.py:
    1262-1270, run after the default and the model overrides)."""
    if name == "fa3" and inp.kv_cache_dtype == "fp8_e5m2":
        return DefaultBackend("triton", f"{why}; fa3 with fp8_e5m2 KV becomes triton "
                                        f"(overrides.py:1262-1270)")
    return DefaultBackend(name, why)
