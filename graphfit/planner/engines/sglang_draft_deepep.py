"""A MoE draft's DeepEPMoE assert in SGLang 0.5.23 (issue 23, s61e): the unquantized
DeepEPMoE body (layers/moe/ep_moe/layer.py:135-147) on the draft's own MoE layers.

Why its own rule: SGLang builds the draft model after the target's (the target's asserts,
graphfit.planner.engines.sglang_deepep_class, come first), inside the worker's runner and a2a
contexts (speculative/eagle_worker_v2.py:215-221; layers/moe/utils.py:941-975), so the draft's
layer reads the DRAFT's a2a backend and runner, its own quantization and dtype. A line whose
target builds can stop there. SGLang raises "Unquantized DeepEP MoE requires DeepGEMM BF16"
(AssertionError, ep_moe/layer.py:135-147) where all of these hold (paths under sglang/srt/):

* the worker enters the a2a context (graphfit.planner.engines.sglang_draft_dispatch.in_context:
  EAGLE / EAGLE3 / NEXTN / FROZEN_KV_MTP, not multi-layer EAGLE);
* the draft's class makes its experts through `get_moe_impl_class` (`DEEPEP_DRAFTS`): the
  renamed Qwen3MoeForCausalLMMTP (configs/model_config.py:1155-1157) builds Qwen3-MoE's sparse
  block (models/qwen3_moe_mtp.py:56, qwen3_moe.py:265); s63d: so do the DeepSeek / GLM /
  Bailing NextN drafts, Qwen3-Next's and a MoE Qwen3.5's MTP draft (their sites in
  `DEEPEP_DRAFTS`). Mixtral's MixtralMoE is a FusedMoE outside it (mixtral.py:100): no
  DeepEPMoE;
* `--speculative-moe-a2a-backend` deepep or pplx (`get_moe_impl_class`, ep_moe/layer.py:352-365,
  then `is_deepep() or is_pplx()`, :140, inside the context);
* the draft is unquantized: its ModelConfig's quantization (`--speculative-draft-model-
  quantization`, else the target's `--quantization`, arg_groups/serving_hook.py:676-708) is
  none and its checkpoint carries none (SglangOptions.draft_quantization / draft_quant_config,
  graphfit.inputs.sglang_draft_quant);
* the draft's dtype is bfloat16 (`draft_dtype`, else the target's);
* the draft's runner is deep_gemm: `--speculative-moe-runner-backend` as given (s63d), else
  the runner SGLang defaults it to, the target's resolved runner with a lora_* one turned
  into auto (overrides.py:1640-1655; utils.py:471-476, 493-497);
* CUDA with JIT DeepGEMM off (SGLANG_ENABLE_JIT_DEEPGEMM=0, or below SM90; a named AMD GPU
  skips the assert, `_is_hip`, :142).

A quantized draft (s61e: `fp8` given or inherited on an unquantized local draft; s69e: any
method, below) under any of DeepEPMoE's legacy a2a backends meets the low-latency assert
instead (:168-178; `quantized_problem`).

s63d: a lora_* `--speculative-moe-runner-backend` on a speculative line is refused at start-up
(arg_groups/lora_hook.py:183-196, `runner_flag_problem`).

s66d: Step-3.5 / 3.7's MTP block (sparse where `moe_layers_enum` names layer 45),
Exaone-MoE's MTP layer (sparse where `is_moe_layer[0]`) and GLM-5-Next's NextN layer build
DeepEPMoE too (InternS2-Mobius's draft is a MoE Qwen3.5 MTP); Step-3.5's block
is made without the loader's quantization config (`UNQUANTIZED_BLOCKS`), so a quantized
Step-3.5 draft meets the unquantized assert, never the low-latency one.

s67d: Qwen4-Exp's MTP draft (Qwen4ExpForCausalLMMTP), always a MoE block.

s68d: a Qwen3.5 / Qwen4-Exp MTP draft builds its layer with `_mtp_quant_config`, which drops
a serialized NVFP4 `modelopt_fp4` config, a `modelopt_mixed` one listing no `mtp.` layer and a
`quark` one excluding the MTP's experts (models/qwen3_5_mtp.py:50-91, 123; qwen4_exp_mtp.py:
47). Where the draft's ModelConfig settles on the method whose config its checkpoint has
dropped (`draft_mtp_unquantized`, graphfit.inputs.sglang_mtp_quant; the method:
sglang_draft_quant.settled_method), its experts are unquantized DeepEPMoE: the unquantized
assert applies, the low-latency one never (`mtp_dropped`).

s68n: DeepSeek-V4's NextN draft (DeepseekV4ForCausalLMNextN), always a DeepseekV2MoE block
(models/deepseek_v4.py:3155-3166).

s68i: the Gemma 4 unified assistant's MoE draft (`DEEPEP_DRAFTS`); under a DeepGEMM runner
its GELU experts assert in the runner first (graphfit.planner.engines.sglang_draft_gelu_runner,
checked before the dispatcher in `check`), so of these asserts only the FP8 low-latency one.

s69d: a DeepSeek-family NextN draft settling on modelopt_fp4 builds its experts unquantized,
or FP8 with SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE and a deep_gemm runner
(graphfit.planner.engines.sglang_draft_nextn_fp4, checked last in `check`).

s69e: the low-latency assert reads only that the layer's quantization config is not None
(:168-178), so it holds for every method the draft's ModelConfig settles on
(sglang_draft_quant.settled_method: the flag on an unquantized local draft, else the draft
checkpoint's method, model_config.py:2056-2160), not for FP8 alone: a ModelOpt FP8 / FP4 /
MIXED, Quark, fp8-block, ... draft asserts in auto / low_latency mode with JIT DeepGEMM off.
Not where the draft class hands its layer no config (`NEXTN_DROPS`, `mtp_dropped`,
`UNQUANTIZED_BLOCKS`), nor where DeepEPMoE takes its modern path first: a humming runner
(:101-104), flashinfer_cutedsl with modelopt_fp4 / modelopt_mixed (:118-124).

s70d: those two read the runner the quantization method reports, not the flag: a ModelOpt
FP8, Quark FP8, W4AFP8 draft, and a MIXED Qwen3.5 / Qwen4-Exp MTP draft whose experts are
FP8 or unlisted, run triton (or none) whatever humming / flashinfer_cutedsl was asked for,
and still assert (graphfit.planner.engines.sglang_draft_runner_swap).

s70r: the low-latency assert reads the `--deepep-mode` SGLang settles on
(`get_deepep_mode()`, :168), which a mori target's a2a hook rewrites: auto to normal, and
low_latency to normal under EPv2 (arg_groups/moe_hook.py:545-561;
graphfit.planner.engines.sglang_mori_ep.deepep_mode), so under such a target the assert
holds only for low_latency under EPv1.

s70p: a DeepSeek-V3 / GLM-5-Next NextN draft drops its config only where its checkpoint's
Quark exclude list matches the NextN layer (a Quark draft) or GLM-5-Next's `ignore` lists it
(any method): `READ_DROPS`, `read_dropped`, read by graphfit.inputs.sglang_nextn_excludes.
Such a layer's experts meet the unquantized assert; a kept one the low-latency assert.

Not restated: draft classes outside MOE_DRAFTS; the unquantized assert on a draft whose class
drops a checkpoint's config (`NEXTN_DROPS`) other than the modelopt_fp4 ones (s69d: DeepSeek
family; s70d: GLM-4.5, GLM-4.7-Flash, Bailing, sglang_draft_nextn_fp4.DROPPING_CLASSES) and
the Quark / `ignore` ones above (s70p).
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import (
    sglang_draft_dispatch,
    sglang_draft_quant,
    sglang_mori_ep,
    sglang_quantization,
)
from graphfit.planner.engines import sglang_draft_gelu_runner as gelu_runner
from graphfit.planner.engines import sglang_draft_nextn_fp4 as nextn_fp4
from graphfit.planner.engines import sglang_draft_runner_swap as runner_swap
from graphfit.planner.engines.sglang_deepep_class import (
    CUTEDSL_QUANTS,
    DEEP_GEMM_RUNNERS,
    LEGACY_A2A,
    LOW_LATENCY_MODES,
    UNQUANTIZED_A2A,
)

# the draft class SGLang builds -> where its experts call get_moe_impl_class
DEEPEP_DRAFTS: dict[str, str] = {
    "Qwen3MoeForCausalLMMTP": "models/qwen3_moe_mtp.py:56, qwen3_moe.py:265",
    # s63d: the NextN / MTP drafts' sparse blocks (sglang_draft_moe_classes.MOE_DRAFTS) make
    # their experts through get_moe_impl_class too
    "DeepseekV3ForCausalLMNextN": "models/deepseek_nextn.py:127-135, deepseek_v2.py:753",
    "GlmMoeDsaForCausalLMNextN": "models/glm4_moe.py:1288, deepseek_v2.py:753",
    "Glm4MoeForCausalLMNextN": "models/glm4_moe_nextn.py:72-79, glm4_moe.py:436",
    "Glm4MoeLiteForCausalLMNextN": "models/glm4_moe_lite_nextn.py:76-83, glm4_moe_lite.py:209",
    "BailingMoeForCausalLMNextN": ("models/bailing_moe_nextn.py:113-133, bailing_moe.py:312, "
                                   "bailing_moe_linear.py:301"),
    "Qwen3NextForCausalLMMTP": "models/qwen3_next.py:702-706, qwen2_moe.py:318",
    "Qwen3_5ForCausalLMMTP": "models/qwen3_5.py:1381-1382, qwen2_moe.py:318",
    "HYV4ForCausalLMNextN": "models/hunyuan_v4_nextn.py:64-70, deepseek_v2.py:753",
    "GigaChat35ForCausalLMNextN": "models/gigachat35.py:350-367, deepseek_v2.py:753",
    # s66d: Step-3.5 / 3.7's MTP block and Exaone-MoE's MTP layer, where sparse
    "Step3p5MTP": "models/step3p5_mtp.py:84-88, step3p5.py:152",
    "ExaoneMoEForCausalLMMTP": "models/exaone_moe.py:468, 161",
    "Glm5NextForConditionalGenerationNextN": ("models/glm5_next_nextn.py:72-77, "
                                              "deepseek_nextn.py:127-135, deepseek_v2.py:753"),
    # s67d: Qwen4-Exp's MTP layer, always a Qwen2MoeSparseMoeBlock (its text model type)
    "Qwen4ExpForCausalLMMTP": "models/qwen4_exp_mtp.py:59-64, qwen3_5.py:1381-1382, "
                              "qwen2_moe.py:318",
    # s68n: DeepSeek-V4's NextN layer, always a DeepseekV2MoE block
    "DeepseekV4ForCausalLMNextN": "models/deepseek_v4.py:3155-3166, deepseek_v2.py:753",
    # s68i: the Gemma 4 unified assistant's MoE blocks (s68m), a FROZEN_KV_MTP draft; its
    # GELU experts meet DeepGemmRunnerCore's assert first under a DeepGEMM runner
    # (graphfit.planner.engines.sglang_draft_gelu_runner), so only the FP8 low-latency one
    "Gemma4UnifiedAssistantForCausalLM": "models/gemma4_causal.py:285, 640-641",
}
# s66d: the draft classes whose MoE block is built without the loader's quantization config:
# Step-3.5's MTP block is made with no `quant_config` (models/step3p5_mtp.py:84-88; the
# layer's default None, step3p5.py:410), so its experts are unquantized DeepEPMoE whatever
# the draft's quantization: the unquantized assert applies, the low-latency one never
UNQUANTIZED_BLOCKS = frozenset({"Step3p5MTP"})
# s68d: the draft classes built by Qwen3.5's MTP module, which may drop the config
# (models/qwen3_5_mtp.py:50-91, 123; qwen4_exp_mtp.py:47)
MTP_CLASSES = frozenset({"Qwen3_5ForCausalLMMTP", "Qwen4ExpForCausalLMMTP"})
# s69e: NextN classes that hand their decoder layer no quantization config for some
# checkpoint methods (s70p: and by the checkpoint's own lists, `READ_DROPS`):
# the layer's experts are then unquantized, so the low-latency assert never holds there
NEXTN_DROPS: dict[str, frozenset[str]] = {
    # DeepseekModelNextN drops modelopt_fp4 (deepseek_nextn.py:75-79); s70p: DeepSeek's class
    # drops a Quark config only where its exclude list matches the NextN layer (:265-275),
    # GLM-5-Next's any config its `ignore` lists the layer in (`READ_DROPS`); GLM-MoE-DSA's
    # own Quark reading rewrites the config and never drops it (glm4_moe.py:1359-1430)
    "DeepseekV3ForCausalLMNextN": frozenset({"modelopt_fp4"}),
    "GlmMoeDsaForCausalLMNextN": frozenset({"modelopt_fp4"}),
    "Glm5NextForConditionalGenerationNextN": frozenset({"modelopt_fp4"}),
    "Glm4MoeForCausalLMNextN": frozenset({"modelopt_fp4"}),  # glm4_moe_nextn.py:52-56
    "Glm4MoeLiteForCausalLMNextN": frozenset({"modelopt_fp4"}),  # glm4_moe_lite_nextn.py:55-60
    "BailingMoeForCausalLMNextN": frozenset({"modelopt_fp4"}),  # bailing_moe_nextn.py:84-88
}

# s70p: the NextN classes whose `_resolve_nextn_quant_config` reads the checkpoint's Quark
# exclude list / config.json's `ignore` (graphfit.inputs.sglang_nextn_excludes ->
# `draft_nextn_unquantized`; deepseek_nextn.py:265-275, glm5_next_nextn.py:49-68)
READ_DROPS = frozenset({"DeepseekV3ForCausalLMNextN", "Glm5NextForConditionalGenerationNextN"})


def read_dropped(config: EngineSettings, method: str | None) -> bool:
    """s70p: whether a DeepSeek-V3 / GLM-5-Next NextN draft settling on `method` builds its
    layer with no config by its checkpoint's own lists: GLM-5-Next's `ignore` drops any
    method, a Quark exclude drops a Quark config only."""
    read = config.draft_nextn_unquantized
    if method is None or config.draft_moe_class not in READ_DROPS or read is None:
        return False
    return read == "ignore" or method == read


def mtp_dropped(config: EngineSettings) -> bool:
    """Whether a Qwen3.5 / Qwen4-Exp MTP draft's layer is built without the loader's
    quantization config (module docstring, s68d): the checkpoint's dropped method is the one
    the draft settles on."""
    dropped = config.draft_mtp_unquantized
    return (dropped is not None and config.draft_moe_class in MTP_CLASSES
            and sglang_draft_quant.settled_method(config) == dropped)


def draft_runner(config: EngineSettings) -> str | None:
    """The draft's runner: `--speculative-moe-runner-backend` as given (s63d; SGLang resolves
    the name only, layers/moe/utils.py:493-497), else the one SGLang defaults to (module
    docstring), or None where graphfit cannot tell the target's."""
    given = config.speculative_moe_runner_backend
    if given is not None:
        return given
    known, runner = sglang_quantization.class_runner(config)
    if not known:
        return None
    if runner.startswith("lora_"):
        return "auto"  # overrides.py:1650-1653: the draft carries no adapters
    if runner == "flashinfer_megamoe":
        return "flashinfer_trtllm"  # overrides.py:1650-1651
    return runner


def _built(config: EngineSettings, backends: frozenset[str]) -> str | None:
    """The draft class that builds DeepEPMoE under one of `backends` inside the worker's a2a
    context on CUDA with JIT DeepGEMM off (both asserts need it), or None."""
    name = config.draft_moe_class
    if name not in DEEPEP_DRAFTS or (config.speculative_moe_a2a_backend or "") not in backends:
        return None
    if not sglang_draft_dispatch.in_context(config):
        return None
    if picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability) is not False:
        return None
    return name


def problem(config: EngineSettings) -> str | None:
    """SGLang's draft DeepEPMoE assert for a resolved line (module docstring), or None."""
    name = _built(config, UNQUANTIZED_A2A)
    draft = config.speculative_moe_a2a_backend or ""
    if name is None or (config.draft_dtype or config.dtype) != "bfloat16":
        return None
    quantized = config.draft_quantization is not None or config.draft_quant_config is not None
    dropped = quantized and mtp_dropped(config)
    read = quantized and read_dropped(config, sglang_draft_quant.settled_method(config))
    if quantized and name not in UNQUANTIZED_BLOCKS and not dropped and not read:
        return None
    runner = draft_runner(config)
    if runner not in DEEP_GEMM_RUNNERS:
        return None
    if dropped:  # s68d: shorter, to name the dropped config within one line
        return (f"Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, ep_moe/layer."
                f"py:135-147): draft {name} drops its {config.draft_mtp_unquantized} config "
                f"(qwen3_5_mtp.py:50-91); a2a {draft}, JIT off")
    if read:  # s70p: the checkpoint's own list leaves the NextN layer unquantized
        site = ("glm5_next_nextn.py:49-68" if config.draft_nextn_unquantized == "ignore"
                else "deepseek_nextn.py:265-275")
        return (f"Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, ep_moe/layer."
                f"py:135-147): {name}'s {config.draft_nextn_unquantized} list drops the NextN "
                f"config ({site})")
    return (f"Unquantized DeepEP MoE requires DeepGEMM BF16 (AssertionError, layers/moe/ep_moe/"
            f"layer.py:135-147: the draft's {name}, a2a {draft}, "
            f"runner {runner}, JIT DeepGEMM off)")


def nextn_dropped(config: EngineSettings, method: str) -> bool:
    """Whether a NextN draft class may hand its layer no config for the draft checkpoint's
    `method` (`NEXTN_DROPS`; s69e). A flag on an unquantized draft is never dropped: each
    drop reads the checkpoint (a ModelOpt FP4 / Quark flag alone needs a checkpoint file,
    graphfit.inputs.sglang_draft_quant refuses it first)."""
    name = config.draft_moe_class or ""
    if config.draft_quant_config is None or name not in NEXTN_DROPS:
        return False
    return read_dropped(config, method) or method in NEXTN_DROPS[name]


def quantized_problem(config: EngineSettings) -> str | None:
    """The low-latency assert (ep_moe/layer.py:168-178) on a quantized draft (s69e: any
    method the draft's ModelConfig settles on, sglang_draft_quant.settled_method; FP8 only
    before), under a draft a2a backend get_moe_impl_class builds DeepEPMoE for on its legacy
    path (deepep, mooncake, nixl, pplx), --deepep-mode auto / low_latency, JIT DeepGEMM off
    (so the JIT branches, :109-134, do not take it), CUDA, a draft runner other than humming
    (:100-104) and other than flashinfer_cutedsl on a ModelOpt FP4 / MIXED config (:118-124),
    a draft class that hands its layer the config (module docstring)."""
    name = _built(config, LEGACY_A2A)
    draft = config.speculative_moe_a2a_backend or ""
    if name is None or name in UNQUANTIZED_BLOCKS or mtp_dropped(config):
        return None
    method = sglang_draft_quant.settled_method(config)
    mode = sglang_mori_ep.deepep_mode(config)  # s70r: as a mori target's hook rewrites it
    if method is None or mode not in LOW_LATENCY_MODES:
        return None
    if nextn_dropped(config, method):
        return None
    runner = draft_runner(config)
    if runner is None:
        return None
    exempt = runner == "humming" or (runner == "flashinfer_cutedsl" and method in CUTEDSL_QUANTS)
    swap = runner_swap.swapped(config, method, runner) if exempt else None  # s70d
    if exempt and swap is None:
        return None
    target = config.moe_a2a_backend or "none"
    mode = "low_latency" if target == "pplx" else mode  # moe_hook.py:581-587
    if swap is not None:  # s70d: shorter, to name what the method runs within one line
        return (f"DeepEP DeepEPMode.{mode.upper()} mode requires deep_gemm (ep_moe/layer.py:"
                f"168-178, JIT off): {name}'s {method} runs {swap}, not {runner}")
    return (f"DeepEP DeepEPMode.{mode.upper()} mode requires deep_gemm (AssertionError, "
            f"layers/moe/ep_moe/layer.py:168-178: the draft's {name}, {method}, a2a {draft}, "
            f"JIT DeepGEMM off)")


def runner_flag_problem(config: EngineSettings) -> str | None:
    """SGLang's start-up refusal of a lora_* draft runner on a speculative line (module
    docstring; s63d), or None."""
    given = config.speculative_moe_runner_backend
    if given is None or not given.startswith("lora") or config.spec_method is SpecMethod.NONE:
        return None
    return (f"--speculative-moe-runner-backend {given} is not supported: the LoRA MoE runner "
            f"serves the target's adapters, a draft has none (SGLang raises ValueError, "
            f"arg_groups/lora_hook.py:183-196)")


def check(config: EngineSettings) -> None:
    """The draft's build in SGLang's order: its layer entry's read (s67d:
    `draft_build_failure`, graphfit.inputs.sglang_draft_layer_entries), FusedMoE's
    constructor, which makes the runner (s68i: sglang_draft_gelu_runner) then the dispatcher
    (sglang_draft_dispatch.problem, s54e / s55e; its pplx half, pplx_problem, s63d), then
    DeepEPMoE's body asserts (`problem`)."""
    said = (config.draft_build_failure  # s67d: the draft's layer entry, read first
            # s68i: FusedMoE makes its runner (fused_moe_triton/layer.py:576) before the
            # dispatcher (:595): a GELU draft's DeepGemmRunnerCore assert comes first
            or gelu_runner.problem(config, draft_runner(config))
            or sglang_draft_dispatch.problem(config) or sglang_draft_dispatch.pplx_problem(config)
            or problem(config) or quantized_problem(config)
            # s69d: a modelopt_fp4 DeepSeek-family NextN draft's own MoE config
            or nextn_fp4.problem(config, draft_runner(config)))
    if said:
        raise ConfigError(said)


__all__ = ["DEEPEP_DRAFTS", "MTP_CLASSES", "NEXTN_DROPS", "READ_DROPS", "UNQUANTIZED_BLOCKS",
           "check", "draft_runner", "mtp_dropped", "nextn_dropped", "problem",
           "quantized_problem", "read_dropped", "runner_flag_problem"]
