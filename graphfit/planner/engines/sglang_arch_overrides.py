"""SGLang 0.5.23's per-architecture attention-backend overrides, as data, for the backend
multi-layer EAGLE's draft-extend steps run when the line names none.

Why: the draft-extend graph count (graphfit.planner.engines.sglang_mtp_graphs) depends on
that backend, and about 45 architectures have a model override
(arg_groups/model_overrides/*.py, registered by `_register_for`) that writes an attention
backend before SGLang's generic default runs. Each override is restated below with its
file:line; `draft_extend_default` then runs SGLang's order (arg_groups/overrides.py):

1. the model override writes `attention_backend` / `prefill_attention_backend` /
   `decode_attention_backend` / `speculative_draft_attention_backend` (or refuses the line);
2. `_deterministic_attention_backend` (overrides.py:1092-1123): with deterministic inference
   an unset base gets its pick, a set base outside the deterministic list is refused;
3. `_attention_backend_default` (overrides.py:1126-1140): equal split backends become the
   base, an unset base gets `get_default_attn_backend`
   (graphfit.planner.engines.sglang_attn_default.generic_default);
4. `_attention_backend_fa3_fp8_fallback` (overrides.py:1262-1270): base fa3 with fp8_e5m2
   KV becomes triton;
5. the draft-extend steps run the draft's own backend, else the phase's split backend, else
   the base (`DraftBackendFactory._create_backend`, speculative/draft_utils.py:47-66).

Two conditions recur: ALL_UNSET (`is_attention_backend_not_set`, model_override_base.py:
176-182: none of the three attention flags on the line) and BASE_UNSET
(`cfg.attention_backend is None`; a split flag may be set).

SGLang's later checks of the set resolved here (the model hook's lists, trtllm_mha / trtllm_mla
limits, the topk > 1 page-tree rule) are graphfit.planner.engines.sglang_backend_checks;
DeepSeek-V4's own refusals are `model_refusals`; the refusals that hold whatever the GPU, for a
line naming its draft backend itself, are `line_refusals`.

Not restated (name None, said why; the plan keeps the per-step count): Kimi-K3 with
`--dcp-size` > 1 on aiter (`_kimi_k3_dcp`; its other DCP lines are restated
since issue 23 s47d, DSPARK since s55k), Qwen4-Exp with a compressed QSA
indexer (the draft-extend steps build `QwenSparseAttnBackend`, draft_utils.py:123-124, 171-181:
per step, which the bound already counts) and MiniCPM under SGLANG_MINICPM_FORCE_DENSE (it only
renames `minicpm_*` flags the line gives, minicpm.py:28-43, so with none it changes nothing).
Kimi-K3 off SM100 takes SGLang's MLA default (it is MLA by its architecture).
Platforms graphfit does not plan (CPU AMX, Intel XPU, MPS, NPU) are left out of the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_attn_default import (
    AttentionDefaultInputs,
    DefaultBackend,
    checked,
    generic_default,
)
from graphfit.planner.engines.sglang_backend_checks import (
    ResolvedAttention,
    check_model_hook,
    check_resolved,
    fa4_page,
    nvfp4_draft,
    nvfp4_phases,
    resolved_page,
)

BASE = "attention_backend"
PREFILL = "prefill_attention_backend"
DECODE = "decode_attention_backend"
DRAFT = "speculative_draft_attention_backend"
ALL_UNSET = "all_unset"  # is_attention_backend_not_set (model_override_base.py:176-182)
BASE_UNSET = "base_unset"  # cfg.attention_backend is None
ALWAYS = "always"
OTHER = "*"  # every GPU kind the table does not name
_WHEN = (ALL_UNSET, BASE_UNSET, ALWAYS)
_FIELDS = (BASE, PREFILL, DECODE)
MODES = ("prefill", "decode")


@dataclass(frozen=True)
class OverrideRule:
    """One override that writes one attention field by GPU generation, when the line's flags
    leave it room (`when`); GPU kinds missing from `by_gpu` (and no OTHER entry) get no
    override: SGLang's generic default follows."""

    architectures: frozenset[str]
    where: str  # the override's file:line under arg_groups/model_overrides/
    when: str
    by_gpu: Mapping[str, str]
    field: str = BASE

    def __post_init__(self) -> None:
        if not self.architectures or self.when not in _WHEN or self.field not in _FIELDS:
            raise ConfigError(f"OverrideRule: bad rule {excerpt(self.where)}")
        object.__setattr__(self, "by_gpu", MappingProxyType(dict(self.by_gpu)))

    def pick(self, gpu: str) -> str | None:
        return self.by_gpu.get(gpu, self.by_gpu.get(OTHER))


def _rule(archs: tuple[str, ...], where: str, when: str, by_gpu: dict[str, str],
          field_: str = BASE) -> OverrideRule:
    return OverrideRule(frozenset(archs), where, when, by_gpu, field_)


BLACKWELL = ("sm100", "sm120")  # `is_blackwell`: capability 10.x / 11.x / 12.x
# the overrides that are a plain table (model_overrides/<file>:<lines>)
RULES: tuple[OverrideRule, ...] = (
    _rule(("BeamForCausalLM",), "beam.py:27-31", ALL_UNSET,
          {"hopper": "trtllm_mha", "sm100": "trtllm_mha", "sm120": "trtllm_mha"}),
    _rule(("EmbeddingGemma2Model",), "embedding_gemma2.py:39-41", BASE_UNSET,
          {OTHER: "triton"}),
    _rule(("FalconH1ForCausalLM", "JetNemotronForCausalLM", "JetVLMForConditionalGeneration"),
          "falcon_h1.py:12-19", BASE_UNSET, {"sm100": "triton"}),
    _rule(("Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
           "Gemma4UnifiedForConditionalGeneration"), "gemma4.py:30-44", BASE_UNSET,
          {"sm100": "trtllm_mha", OTHER: "triton"}),
    _rule(("DiffusionGemmaForBlockDiffusion",), "gemma4.py:26-44", BASE_UNSET,
          {OTHER: "triton"}),
    _rule(("GptOssForCausalLM",), "gpt_oss.py:29-44", ALL_UNSET,
          {"sm100": "trtllm_mha", "hopper": "fa3", "rocm": "aiter", OTHER: "triton"}),
    _rule(("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP"),
          "inkling.py:68-73", ALL_UNSET, {"hopper": "fa4", "sm100": "fa4", OTHER: "triton"}),
    _rule(("Lfm2ForCausalLM", "Lfm2MoeForCausalLM"), "lfm2.py:12-17", BASE_UNSET,
          {"sm100": "flashinfer"}),
    _rule(("Llama4ForConditionalGeneration", "Llama4ForCausalLM"), "llama4.py:23-37",
          BASE_UNSET, {"sm100": "trtllm_mha", "hopper": "fa3", "rocm": "aiter",
                       OTHER: "triton"}),
    _rule(("MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"), "mimo_v2.py:27-29", ALL_UNSET,
          {"sm100": "fa4"}),
    _rule(("MiniCPMV4_6ForConditionalGeneration", "MiniCPMV4_7ForConditionalGeneration"),
          "minicpmv.py:12-18", BASE_UNSET, {"sm100": "triton"}),
    _rule(("MossVLForConditionalGeneration",), "moss_vl.py:20-22", ALL_UNSET,
          {OTHER: "flashinfer"}, PREFILL),
    _rule(("DeepseekV4ForCausalLM",), "deepseek_v4.py:24", ALWAYS, {OTHER: "dsv4"}),
)
# the overrides with conditions beyond the GPU and the flags (restated in `_special`)
NEMOTRON_H = frozenset({"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
                        "NemotronH_Omni_Reasoning_V3"})
QWEN3_5 = frozenset({"Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration",
                     "InternS2PreviewForConditionalGeneration",
                     "InternS2MobiusForConditionalGeneration",
                     "Qwen3_5ForConditionalGeneration"})
QWEN4_EXP = frozenset({"Qwen4ExpForConditionalGeneration"})
QWEN3_VL = frozenset({"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"})
QWEN3_VL_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe"})  # qwen3_vl.py:17
MINIMAX_M3_VL = "MiniMaxM3SparseForConditionalGeneration"  # minimax_m3_vl.py:68
MINIMAX_M3 = frozenset({"MiniMaxM3SparseForCausalLM",
                        "MiniMaxM3SparseForConditionalGeneration"})
MINICPM = frozenset({"MiniCPMForCausalLM", "MiniCPMSALAForCausalLM"})
GRANITE_HYBRID = frozenset({"GraniteMoeHybridForCausalLM"})
MOSS_VL = frozenset({"MossVLForConditionalGeneration"})
KIMI_K3 = frozenset({"KimiK3ForConditionalGeneration"})
IQUEST = frozenset({"IQuestQ1ForCausalLM", "IQuestQ1MTP"})
DEEPSEEK_V4 = frozenset({"DeepseekV4ForCausalLM"})
# each special branch's override, file:lines under arg_groups/model_overrides/
SPECIAL_WHERE: tuple[tuple[frozenset[str], str], ...] = (
    (NEMOTRON_H, "nemotron_h.py:123-148"), (QWEN3_5, "qwen3_5.py:26-48"),
    (QWEN4_EXP, "qwen4_exp.py:57-71"), (QWEN3_VL, "qwen3_vl.py:85-130"),
    (MINIMAX_M3, "minimax_m3.py:56-192"), (MINICPM, "minicpm.py:44-62"),
    (GRANITE_HYBRID, "granitemoehybrid.py:15-19"), (KIMI_K3, "kimi_k3.py:122-149"),
    (IQUEST, "iquest_q1.py:35-36"))
SPECIAL = frozenset().union(*(archs for archs, _ in SPECIAL_WHERE))
RESTATED = frozenset().union(*(r.architectures for r in RULES)) | SPECIAL
LARGE_HOPPER_MIB = 60 * 1024  # qwen3_vl.py:25
QSA_WHY = ("Qwen4-Exp's compressed QSA draft builds QwenSparseAttnBackend (draft_utils.py:"
           "123-124, 171-181), which captures one graph per step (qwen_sparse_attn_backend.py:"
           "218, base_attn_backend.py:153-160): counted per step, SGLang's own count")


@dataclass(frozen=True)
class OverrideInputs:
    """What the overrides read beyond SGLang's default's inputs: the line's split flags (the
    base and the draft's own flag are unset where this is asked), the speculative attention
    mode, the GPU memory in GiB (Qwen3-VL's large-Hopper test), and config.json facts:
    model_type, Granite's mamba layers, MiniCPM's sparse layers, MiniMax-M3's NVFP4-expert
    checkpoint, Qwen4-Exp's compressed QSA indexer; the line's `--dcp-size`."""

    default: AttentionDefaultInputs
    prefill_flag: str | None = None
    decode_flag: str | None = None
    mode: str = "prefill"
    gpu_mem_gb: float | None = None
    model_type: str = ""
    mamba_layers: bool = False
    minicpm_sparse: bool = False
    minimax_nvfp4: bool = False
    qsa: bool = False
    dcp_size: int = 1
    mla_unknown: bool = False  # an MLA-shaped config outside graphfit's MLA list
    # the line's --attention-backend and --speculative-draft-attention-backend: set only
    # where a line naming the draft backend itself is checked (`draft_extend_default`)
    base_flag: str | None = None
    draft_flag: str | None = None
    # the topk SGLang's resolved-set checks see where it differs from the line's (an
    # algorithm outside the EAGLE family: 1, or NGRAM's BFS breadth), and NGRAM's own page
    # rule instead of the EAGLE ones (sglang_backend_checks.ngram_page; every_line_checks)
    checked_topk: int | None = None
    ngram: bool = False
    # (s37a) the line's --prefill-kv-cache-dequant-dtype (None: auto) and algorithm (upper
    # case; None: no speculation), for `nvfp4_phases` and `kv4`
    dequant_flag: str | None = None
    algorithm: str | None = None
    # the line's pool flags kv4 reads (ResolvedAttention.unified_memory, disaggregated,
    # host_pool)
    unified_memory: bool = False
    disaggregated: bool = False
    host_pool: bool = False
    # (s51n) the line's --moe-a2a-backend and --moe-runner-backend, for MiniMax-M3 NVFP4's
    # Blackwell checks (minimax_m3.py:103-114)
    moe_a2a: str = "none"
    moe_runner: str = "auto"
    # (s67p) SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR above 0 on the pasted line
    # (ResolvedAttention.skip_softmax)
    skip_softmax: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"mode: expected prefill or decode, got {excerpt(self.mode)}")
        if isinstance(self.dcp_size, bool) or not isinstance(self.dcp_size, int) or (
                self.dcp_size < 1):
            raise ConfigError(f"dcp_size: must be an int >= 1, got {excerpt(self.dcp_size)}")

    @property
    def all_unset(self) -> bool:
        return self.prefill_flag is None and self.decode_flag is None and (
            self.base_flag is None)


class _NotRestated(Exception):
    """An override graphfit does not restate for this input (the message says why)."""


def _refuse(arch: str, where: str, said: str) -> ConfigError:
    """SGLang's sentence with its file:line; the architecture is left out where naming it
    would push the sentence past the 200-character error line (s53d: MiniMax-M3's VL name)."""
    cited = f"{said} (arg_groups/model_overrides/{where})"
    named = f"SGLang refuses this line for {arch}: {cited}"
    return ConfigError(named if len(named) <= 190 else f"SGLang refuses this line: {cited}")


def _special(inp: OverrideInputs) -> dict[str, str]:
    """The overrides with extra conditions (one branch per file, each cited)."""
    d = inp.default
    arch, gpu = d.architecture, d.gpu
    algo = (d.speculative_algorithm or "").upper()
    if arch in IQUEST:
        raise _refuse(arch, "iquest_q1.py:35-36",
                      "IQuest Q1 MTP drafting does not support multi-layer EAGLE")
    if arch in NEMOTRON_H:  # nemotron_h.py:123-148
        if gpu not in BLACKWELL or not inp.all_unset or not algo:
            return {}
        if gpu == "sm100" and d.topk in (None, 1):
            out = {BASE: "trtllm_mha"}
            if algo in ("EAGLE", "NEXTN", "DSPARK") and inp.draft_flag is None:
                out[DRAFT] = "trtllm_mha"
            return out
        out = {BASE: "triton"}
        if algo in ("EAGLE", "NEXTN", "DFLASH", "DSPARK") and inp.draft_flag is None:
            out[DRAFT] = "flashinfer"
        return out
    if inp.base_flag is not None and arch in QWEN3_5 | QWEN4_EXP | QWEN3_VL | GRANITE_HYBRID:
        return {}  # these write only with no --attention-backend (qwen3_5.py:26,
        # qwen4_exp.py:57, qwen3_vl.py:129, granitemoehybrid.py:18)
    if arch in QWEN3_5 or arch in QWEN4_EXP:  # qwen3_5.py:26-48, qwen4_exp.py:57-71
        if gpu != "sm100":
            return {}
        generic = generic_default(replace(d, deterministic=False, kv_cache_dtype=None))
        # with speculation the extra-buffer / radix-cache test is always true (:40-45)
        return {BASE: "trtllm_mha" if generic.name == "trtllm_mha" and algo else "triton"}
    if arch in QWEN3_VL:  # qwen3_vl.py:20-31, 85-130 (the profiled large-Hopper defaults)
        large = (gpu == "hopper" and inp.gpu_mem_gb is not None
                 and inp.gpu_mem_gb * 1024 >= LARGE_HOPPER_MIB
                 and inp.model_type in QWEN3_VL_TYPES)
        return {DECODE: "flashinfer"} if large and inp.decode_flag is None else {}
    if arch in MINIMAX_M3:  # minimax_m3.py:56-192
        if inp.minimax_nvfp4:
            return _minimax_nvfp4(inp)
        if not inp.all_unset:
            return {}
        if gpu == "rocm":
            return {BASE: "triton"}
        if gpu == "sm100":  # SGLANG_DISABLE_M3_FP8_ATTN_GEMM unset assumed
            return {BASE: "trtllm_mha" if d.kv_cache_dtype == "fp8_e4m3" else "fa4"}
        return {BASE: "fa3"} if gpu == "hopper" else {}
    if arch in MINICPM:  # minicpm.py:44-62 (SGLANG_MINICPM_FORCE_DENSE unset)
        if inp.minicpm_sparse and inp.all_unset:
            return {BASE: "minicpm_flashinfer" if gpu in BLACKWELL else "minicpm_flashattn"}
        return {}
    if arch in GRANITE_HYBRID:  # granitemoehybrid.py:15-19
        return {BASE: "flashinfer"} if inp.mamba_layers and gpu == "sm100" else {}
    if arch in KIMI_K3:  # kimi_k3.py:54-149
        if inp.dcp_size > 1:
            return _kimi_k3_dcp(inp)
        if gpu == "sm100" and inp.all_unset:  # DSPARK too (:146-149), verify on decode
            return {PREFILL: "trtllm_mla", DECODE: "trtllm_mla"}
        return {}  # off SM100 SGLang's MLA default (Kimi-K3 is MLA: sglang_attn_default)
    return {}


def minimax_nvfp4_refusals(arch: str, algorithm: str | None, page_size: int | None) -> None:
    """The MiniMax-M3 NVFP4 hook's refusals that need no GPU (minimax_m3.py:56-93): speculation
    other than DSPARK / DFLASH (:56-58); DSPARK / DFLASH on a target other than the VL wrapper
    (:62-67); a page size other than 128 (:92-93), checked here only without speculation: with
    DSPARK / DFLASH the GPU-bound draft checks (`minimax_nvfp4_draft_problem`) come first.
    Run by the line reader too (graphfit.inputs.sglang_minimax_target.line), as the hook runs
    before the model is built."""
    algo = (algorithm or "").upper()
    if algo not in ("", "DSPARK", "DFLASH"):
        raise _refuse(arch, "minimax_m3.py:56-58",
                      "M3.1 NVFP4 only supports DSPARK or DFLASH speculation")
    if algo and arch != MINIMAX_M3_VL:
        # the short form: SGLang's sentence names both architectures (200-char error line)
        raise ConfigError(f"SGLang refuses this line: M3.1 NVFP4 {algo} requires "
                          f"{MINIMAX_M3_VL}, got {arch} (arg_groups/model_overrides/"
                          f"minimax_m3.py:62-67)")
    if algo:
        return
    if page_size not in (None, 128):
        raise _refuse(arch, "minimax_m3.py:92-93", "M3.1 NVFP4 requires --page-size 128")


def minimax_nvfp4_draft_problem(algorithm: str | None, blackwell: bool, ragged: str | None,
                                pp_size: int, disaggregated: bool,
                                page_size: int | None) -> str | None:
    """The hook's sentence for a DSPARK / DFLASH line on a MiniMax-M3 NVFP4 VL target, in its
    order (minimax_m3.py:68-93): Blackwell (:68-69), SGLANG_RAGGED_VERIFY_MODE=static (:70-73,
    `ragged` None: not known here, and the later checks are left to the caller that knows
    it), PP 1 (:74-75), DFLASH colocated (:76-79), then the page size (:92-93); None where it
    accepts (or the algorithm is neither). Its writes are not restated, as no figure of the
    plan reads them: the draft KV dtype bf16 for auto (:80-81; graphfit does not size the
    draft's KV pool), the DSPARK draft backend trtllm_mha (:83-87; its seq_lens fill is 1 as
    for every CUDA backend, sglang_seq_len_fill) and SGLANG_SPEC_TP_SYNC=rng (:88-91)."""
    algo = (algorithm or "").upper()
    if algo not in ("DSPARK", "DFLASH"):
        return None
    where = "(arg_groups/model_overrides/minimax_m3.py:"
    if not blackwell:
        return f"M3.1 NVFP4 {algo} requires Blackwell {where}68-69)"
    if ragged is None:
        return None
    if ragged != "static":
        return f"M3.1 NVFP4 {algo} requires SGLANG_RAGGED_VERIFY_MODE=static {where}70-73)"
    if pp_size != 1:
        return f"M3.1 NVFP4 {algo} requires PP=1 {where}74-75)"
    if algo == "DFLASH" and disaggregated:
        return f"M3.1 NVFP4 DFLASH currently requires colocated serving {where}76-79)"
    if page_size not in (None, 128):
        return f"M3.1 NVFP4 requires --page-size 128 {where}92-93)"
    return None


def minimax_nvfp4_blackwell_refusals(arch: str, moe_a2a: str, moe_runner: str,
                                     kv_cache_dtype: str | None) -> None:
    """The hook's Blackwell-only refusals (minimax_m3.py:103-119): the a2a backend none /
    megamoe (:103-108 under flashinfer_trtllm_routed, else :109-111), the KV dtype auto /
    fp8_e4m3 (:116-119). Run by the planner and, for a pasted line once the GPU is known,
    before the model class is judged (graphfit.inputs.sglang_minimax_target.settle_hook)."""
    if moe_a2a not in ("none", "megamoe"):
        if moe_runner == "flashinfer_trtllm_routed":
            raise _refuse(arch, "minimax_m3.py:103-108", "M3.1 NVFP4 flashinfer_trtllm_routed"
                          " requires --moe-a2a-backend none or megamoe")
        raise _refuse(arch, "minimax_m3.py:109-111",
                      "M3.1 NVFP4 requires --moe-a2a-backend megamoe")
    if (kv_cache_dtype or "auto") not in ("auto", "fp8_e4m3"):
        raise _refuse(arch, "minimax_m3.py:116-119",
                      "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3")


def _minimax_nvfp4(inp: OverrideInputs) -> dict[str, str]:
    """MiniMax-M3 served as minimax_m3_nvfp4 (minimax_m3.py:56-122, issue 23 s51n): SGLang
    refuses speculation other than DSPARK / DFLASH (:56-58) and a page size other than 128
    (:92-93). Off Blackwell it writes page 128, the marlin MoE runner for `auto` and fa3 where
    no attention backend is given (:94-102). On Blackwell it requires the a2a backend none /
    megamoe (any other: :104-108 under flashinfer_trtllm_routed, else :110-111), writes
    megamoe with deep_gemm for `auto` (:112-114), page 128, fp8_e4m3 KV for `auto` and refuses
    any other KV dtype (:116-119), and trtllm_mha where no backend is given (:120-121).
    DSPARK / DFLASH (:59-91, issue 23 s53d): the VL wrapper (`minimax_nvfp4_refusals`), then
    Blackwell here; the environment / PP / colocation / page checks where the line's
    environment is known (graphfit.inputs.sglang_minimax_target.settle_hook)."""
    d = inp.default
    arch = d.architecture
    minimax_nvfp4_refusals(arch, d.speculative_algorithm, d.page_size)
    said = minimax_nvfp4_draft_problem(d.speculative_algorithm, d.gpu in BLACKWELL, None, 1,
                                       False, None)
    if said is not None:
        raise ConfigError(f"SGLang refuses this line for {arch}: {said}")
    if d.gpu not in BLACKWELL:
        return {BASE: "fa3"} if inp.all_unset else {}
    minimax_nvfp4_blackwell_refusals(arch, inp.moe_a2a, inp.moe_runner, d.kv_cache_dtype)
    return {BASE: "trtllm_mha"} if inp.all_unset else {}


def _kimi_k3_dcp(inp: OverrideInputs) -> dict[str, str]:
    """Kimi-K3's DCP branch (kimi_k3.py:54-120, issue 23 s47d), on the line's decode backend
    (`attention_backends_of`: the split flag, else the base, model_override_base.py:138-152):
    none or cutedsl_mla keeps decode on cutedsl_mla with trtllm_mla prefill (:84-96) once
    FlashInfer's `trtllm_batch_decode_with_kv_cache_mla` takes `enable_dcp` (:20-38), which
    FlashInfer 0.6.17, the version SGLang 0.5.23 checks for, does (flashinfer/mla/_core.py@
    0.6.17:2905-2933); any other backend but aiter is SGLang's AssertionError (:109-112).
    DSPARK takes the same backends (:84-96) with verify on decode (:66-82); its
    SGLANG_RAGGED_VERIFY_MODE refusal is graphfit.planner.engines.sglang_dcp's (issue 23
    s55k). Not restated: aiter (the gluon MLA kernel's presence, :41-48, 97-108)."""
    decode = inp.decode_flag or inp.base_flag
    if decode == "aiter":
        raise _NotRestated("Kimi-K3 with --dcp-size > 1 on aiter needs the aiter gluon MLA "
                           "kernel (kimi_k3.py:41-48, 97-108), which graphfit cannot probe")
    if decode not in (None, "cutedsl_mla"):
        raise _refuse("KimiK3ForConditionalGeneration", "kimi_k3.py:109-112",
                      f"the decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' "
                      f"or 'aiter', got {decode!r}")
    return {PREFILL: "trtllm_mla", DECODE: "cutedsl_mla"}


def overrides_of(inp: OverrideInputs) -> tuple[dict[str, str], str]:
    """(the fields the architecture's override writes for this input, its file:line);
    ConfigError where the override refuses the line, _NotRestated where graphfit does not
    restate it."""
    arch = inp.default.architecture
    for rule in RULES:
        if arch not in rule.architectures:
            continue
        room = (rule.when == ALWAYS or (rule.when == ALL_UNSET and inp.all_unset)
                or (rule.when == BASE_UNSET and inp.base_flag is None))
        name = rule.pick(inp.default.gpu) if room else None
        return ({rule.field: name} if name else {}), rule.where
    where = next((w for archs, w in SPECIAL_WHERE if arch in archs), "")
    return _special(inp), where


# the models whose override (or default branch) writes a base backend whenever the line names
# none, each pick on its model's assert list (RULES above; olmo2.py:24-30, exaone.py:24-29):
# for the line-level checks below every such pick passes, and triton stands for it
BASE_WRITERS = frozenset({"Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
                          "Gemma4UnifiedForConditionalGeneration", "Llama4ForCausalLM",
                          "Llama4ForConditionalGeneration", "Olmo2ForCausalLM",
                          "Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM"})


def model_refusals(architecture: str, algorithm: str | None, topk: int | None,
                   kv_cache_dtype: str | None) -> None:
    """SGLang's refusals of a DeepSeek-V4 line whatever the backends
    (`apply_deepseek_v4_defaults`, from model_hook.py:258-265): a KV cache dtype other than
    fp8_e4m3 / bfloat16 (auto becomes fp8_e4m3: `_deepseek_v4_kv_cache_dtype`,
    arg_groups/overrides.py:892-913); speculation other than EAGLE (as given on the line: the
    hook runs before NEXTN becomes EAGLE) or DSPARK, and EAGLE with a topk other than 1,
    none given included (arg_groups/deepseek_v4_hook.py:148-158)."""
    if architecture not in DEEPSEEK_V4:
        return
    if kv_cache_dtype not in (None, "auto", "fp8_e4m3", "bfloat16"):
        raise ConfigError(f"SGLang refuses --kv-cache-dtype {kv_cache_dtype} on {architecture}"
                          f" (arg_groups/overrides.py:892-913); use fp8_e4m3 or bfloat16")
    where = "arg_groups/deepseek_v4_hook.py:148-158"
    if algorithm is not None and algorithm not in ("EAGLE", "DSPARK"):
        raise ConfigError(f"SGLang refuses {algorithm} on {architecture}: only EAGLE and "
                          f"DSPARK ({where}); use --speculative-algorithm EAGLE")
    if algorithm == "EAGLE" and topk != 1:  # `== 1`: no topk (SGLang picks later) fails too
        raise ConfigError(f"SGLang refuses EAGLE topk {topk or 'unset'} on {architecture}: "
                          f"topk 1 only "
                          f"({where}); use --speculative-eagle-topk 1")


def line_refusals(architecture: str, base: str | None, prefill: str | None,
                  decode: str | None, *, swa_pattern: bool = False,
                  algorithm: str | None = None, topk: int | None = None,
                  kv_cache_dtype: str | None = None, multi_layer: bool = True) -> None:
    """SGLang's refusals, independent of the GPU, of a line that names its backends itself
    (for multi-layer EAGLE, `draft_extend_default` covers the lines that do not):
    IQuest-Q1 refuses a backend other than fa3 (iquest_q1.py:19-23), an algorithm other
    than EAGLE / NEXTN (:24-26), topk > 1 (:31-34) and
    multi-layer EAGLE (:35-36, only with `multi_layer`); Moss-VL's prefill backend must be
    flashinfer (moss_vl.py:18-30); the model hook's backend lists (graphfit.planner.engines.
    sglang_backend_checks.check_model_hook) on the line's flags; `model_refusals`. SGLang
    runs all of them on every line (arg_groups/pipeline.py:225-306)."""
    model_refusals(architecture, algorithm, topk, kv_cache_dtype)
    if architecture in IQUEST:
        if any(name not in (None, "fa3") for name in (base, prefill, decode)):
            raise _refuse(architecture, "iquest_q1.py:19-23", "IQuestQ1 requires FA3 "
                          "attention for both prefill and decode")
        if algorithm and algorithm.upper() not in ("EAGLE", "NEXTN"):
            raise _refuse(architecture, "iquest_q1.py:24-26",
                          "IQuest Q1 MTP requires serial EAGLE or NEXTN drafting")
        if (topk or 1) > 1:
            raise _refuse(architecture, "iquest_q1.py:31-34",
                          "IQuestQ1 speculative decoding requires --speculative-eagle-topk 1")
        if multi_layer:
            raise _refuse(architecture, "iquest_q1.py:15-53",
                          "IQuest Q1 MTP drafting does not support multi-layer EAGLE")
        return  # its override writes fa3 for what the line leaves unset (iquest_q1.py:41-47)
    if not (base or prefill or decode):
        return  # every override's own pick passes its model's checks (RULES, `_special`)
    if architecture in MOSS_VL and (prefill or base) != "flashinfer":
        raise _refuse(architecture, "moss_vl.py:18-30",
                      "MossVLForConditionalGeneration requires flashinfer prefill attention")
    if base is None and architecture in BASE_WRITERS:
        base = "triton"
    check_model_hook(architecture, base, prefill, decode, swa_pattern=swa_pattern)


def override_page(inp: OverrideInputs, base: str | None) -> int | None:
    """The page size after the model override (the line's, or the override's), where it can
    matter to SGLang's topk > 1 page-tree checks (graphfit.planner.engines.
    sglang_backend_checks), from `base`: the backend the override wrote, else the line's
    `--attention-backend` (what the override itself reads, before SGLang's generic default
    and the fa3 fp8_e5m2 fallback): DeepSeek-V4 256 over any line (deepseek_v4.py:51-61, GPU);
    Qwen4-Exp's compressed QSA 64 over any line (qwen4_exp.py:89-96); Qwen3.5 / Qwen3-Next /
    Qwen4-Exp on SM100 with no `--attention-backend` 64 for trtllm_mha, else 1, over the
    line's (qwen3_5.py:25-49, qwen4_exp.py:57-71); MiniMax-M3 128 for fa4 / trtllm_mha on
    SM100 and fa3 on Hopper when the line gives none (minimax_m3.py:160-168, 180-187). The
    others write a page size only with trtllm_mha (16 to 128 kept, resolved_page) or not at
    all."""
    arch, gpu = inp.default.architecture, inp.default.gpu
    if forced_base(arch) is not None:
        return 256
    if arch in QWEN4_EXP and inp.qsa:
        return 64  # compressed QSA's page size over any line (qwen4_exp.py:89-96)
    if arch in QWEN3_5 | QWEN4_EXP and gpu == "sm100" and inp.base_flag is None:
        return 64 if base == "trtllm_mha" else 1
    if arch in MINIMAX_M3 and inp.minimax_nvfp4:
        return 128  # the NVFP4 branch writes 128 on every GPU (minimax_m3.py:92-97, 115)
    if inp.default.page_size is None and arch in MINIMAX_M3 and (
            (gpu == "sm100" and base in ("fa4", "trtllm_mha"))
            or (gpu == "hopper" and base == "fa3")):
        return 128
    return inp.default.page_size


def forced_base(architecture: str, gpu: str = OTHER) -> tuple[str, str] | None:
    """(backend, file:line) an override writes as the base whatever the line says (ALWAYS:
    DeepSeek-V4's dsv4, deepseek_v4.py:24), else None."""
    for rule in RULES:
        if architecture in rule.architectures and rule.when == ALWAYS:
            name = rule.pick(gpu)
            return (name, rule.where) if name else None
    return None


@dataclass(frozen=True)
class SettledSet:
    """The attention backends SGLang holds for an architecture with a model override once its
    default has run (`settled`): the base, the split flags, what the override wrote (and its
    file:line), and the default's inputs as the override left them (Qwen4-Exp's QSA page)."""

    default: AttentionDefaultInputs
    base: str | None
    prefill: str | None
    decode: str | None
    written: Mapping[str, str]
    where: str

    def __post_init__(self) -> None:
        if not isinstance(self.default, AttentionDefaultInputs):
            raise ConfigError("SettledSet.default: AttentionDefaultInputs required")
        object.__setattr__(self, "written", MappingProxyType(dict(self.written)))


def settled(inp: OverrideInputs) -> SettledSet | DefaultBackend:
    """SGLang's order up to its attention default for a line on an architecture with a model
    override (module docstring, steps 1-4): the override's writes, the model hook's lists,
    deterministic inference, the nvfp4 hook's phases (kv_cache_hook.py:34-99), equal split
    flags made the base, the generic default, the fa3 fp8_e5m2 fallback. A DefaultBackend
    with name None (and why) where graphfit does not restate it; ConfigError where SGLang
    refuses the line on the way. Why its own function: the attention hook's checks on a
    prefill-CP line read this set before the CP hook's (graphfit.inputs.
    sglang_prefill_cp_hook_set; issue 23 s68p), not only the draft-extend steps."""
    d = inp.default
    model_refusals(d.architecture, d.speculative_algorithm, d.topk, d.kv_cache_dtype)
    try:
        written, where = overrides_of(inp)
    except _NotRestated as exc:
        return DefaultBackend(None, str(exc))
    if d.architecture in MOSS_VL and (written.get(PREFILL) or inp.prefill_flag) != (
            "flashinfer"):  # moss_vl.py:23-30: the prefill backend must be flashinfer
        raise _refuse(d.architecture, "moss_vl.py:23-30",
                      "MossVLForConditionalGeneration requires flashinfer prefill attention")
    if d.architecture in QWEN4_EXP and inp.qsa:
        # the override's page size 64 reaches SGLang's default (qwen4_exp.py:89-96)
        d = replace(d, page_size=64)
    origin = f"{d.architecture}'s override on {d.gpu} (model_overrides/{where})"
    base = written.get(BASE) or inp.base_flag
    prefill = written.get(PREFILL) or inp.prefill_flag
    decode = written.get(DECODE) or inp.decode_flag
    check_model_hook(d.architecture, base, prefill, decode)  # model_hook.py, before defaults
    if base is not None:  # a backend outside the deterministic list is refused
        base = checked(d, DefaultBackend(base, origin)).name
    elif d.deterministic:
        base = generic_default(d).name  # the deterministic pick (overrides.py:1092-1115)
    prefill, decode = nvfp4_phases(d.gpu, d.kv_cache_dtype, prefill or base, prefill, decode,
                                   inp.dequant_flag)
    if prefill is not None and prefill == decode:
        base = prefill  # overrides.py:1128-1131
    if base is None:
        if inp.mla_unknown:
            return DefaultBackend(None, f"{d.architecture}'s override leaves the backend to "
                                        f"SGLang's default, and its MLA-shaped config is "
                                        f"outside graphfit's MLA list")
        base = generic_default(d).name
    if base == "fa3" and d.kv_cache_dtype == "fp8_e5m2":
        base = "triton"  # overrides.py:1262-1270
    return SettledSet(d, base, prefill, decode, written, where)


def draft_extend_default(inp: OverrideInputs) -> DefaultBackend:
    """The backend multi-layer EAGLE's draft-extend steps run for an architecture with a
    model override, on a line naming no backend for them (module docstring: SGLang's order,
    `settled`); name None with the reason where graphfit does not restate it; ConfigError
    where SGLang refuses the line."""
    found = settled(inp)
    if isinstance(found, DefaultBackend):
        return found
    d, base, prefill, decode, written = (found.default, found.base, found.prefill,
                                         found.decode, found.written)
    check_resolved(ResolvedAttention(
        d.gpu, base, prefill, decode, inp.checked_topk or d.topk or 1,
        resolved_page(override_page(inp, written.get(BASE) or inp.base_flag), base, prefill,
                      decode, fa4_page(d.gpu, d.mla, d.topk, d.architecture)),
        d.kv_cache_dtype, ngram=inp.ngram, mla=d.mla, algorithm=inp.algorithm,
        draft_backend=written.get(DRAFT) or inp.draft_flag, unified_memory=inp.unified_memory,
        disaggregated=inp.disaggregated, host_pool=inp.host_pool,
        skip_softmax=inp.skip_softmax))
    if d.architecture in QWEN4_EXP and inp.qsa:
        return DefaultBackend(None, QSA_WHY)
    phase = decode if inp.mode == "decode" else prefill
    draft = written.get(DRAFT) or inp.draft_flag or nvfp4_draft(
        d.gpu, d.kv_cache_dtype, inp.mode == "decode") or phase or base
    if not written:
        return DefaultBackend(draft, f"{d.architecture}'s override leaves {d.gpu} to SGLang's "
                                     f"default (model_overrides/{found.where}): {draft}")
    origin = f"{d.architecture}'s override on {d.gpu} (model_overrides/{found.where})"
    return DefaultBackend(draft, f"{origin}: draft-extend {draft}")
