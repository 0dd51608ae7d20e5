"""SGLang 0.5.23's refusals of an attention-backend set it resolved itself (a model override or
its generic default), for multi-layer EAGLE lines that name no backend for the draft.

Why: graphfit.inputs.sglang_rules refuses what SGLang refuses about the backends a pasted line
NAMES; a backend SGLang picks itself (graphfit.planner.engines.sglang_arch_overrides,
sglang_attn_default) meets the same checks later in SGLang's argument pipeline
(arg_groups/pipeline.py:225-306), and a line graphfit planned there was refused by SGLang
(trtllm_mha from an override with topk 2, say). Two stages, in SGLang's order:

1. `check_model_hook`: `handle_model_specific_adjustments` (arg_groups/model_hook.py:140-),
   run right after the model overrides and BEFORE the generic default fills an unset base
   (pipeline.py:225, 242), asserts a backend list per architecture on
   `attention_backends_of(resolved_view(...))` (model_override_base.py:138-152), so an unset
   phase (None) fails the membership tests too:
   GPT-OSS (model_hook.py:515-543), Llama 4 (:615-630, the base), Gemma 4 (:636-660),
   Exaone 4 with a sliding-window pattern (:668-681, the base), Olmo2 (:682-692: the base is
   not flashinfer), LFM2 (:716-722: the base is not triton).
2. `check_resolved`, once the backend is final:
   * `_mla_kv_cache_dtype_checks` (arg_groups/overrides.py:1203-1219): trtllm_mla as the base
     or decode backend needs Blackwell and a KV cache dtype of fp8_e4m3 / bf16 / auto;
   * `_cutedsl_prefill_backend_fill` (overrides.py:1232-1259; issue 23 s42d): cutedsl_mla is
     decode only, needs SM100 and a KV cache dtype of fp8_e4m3 / bf16 / auto;
   * `_handle_attention_backend_compatibility` (arg_groups/attention_hook.py:198-227):
     trtllm_mha as the prefill or decode backend needs Hopper / SM100 / SM120, and as the
     prefill backend on SM120 no fp8_e4m3 KV cache and no skip-softmax (SGLANG_SKIP_SOFTMAX_
     PREFILL_THRESHOLD_SCALE_FACTOR above 0 on the pasted line, issue 23 s67p);
   * `_handle_eagle_family` (arg_groups/speculative_hook.py:1176-1180): trtllm_mha as the
     prefill or decode backend needs topk 1;
   * (:1267-1282) topk > 1 with a resolved page size > 1 needs a base backend of flashinfer,
     fa3 or triton (the page size after the model overrides and `_page_size_default`,
     overrides.py:1341-1363: 1 on CUDA and ROCm without SGLANG_AITER_KV_CACHE_LAYOUT), and
     after `_mla_backend_page_constraints` (overrides.py:1144-1187): flashmla 64,
     trtllm_mla / cutedsl_mla 32 or 64, trtllm_mha 16 to 128 (`resolved_page`);
   * NGRAM lines (`ngram`) skip the two EAGLE rules above and meet `_handle_ngram`'s own:
     topk (the BFS breadth) > 1 with a resolved page size > 1 on a flashinfer base only
     (speculative_hook.py:1356-1366). DFLASH, DSPARK, FROZEN_KV_MTP and UNO lines meet only
     the GPU / KV rules (their handlers hold no topk x backend rule; DFLASH and DSPARK force
     topk 1): graphfit.inputs.sglang_draft_default.every_line_checks passes them topk 1.
   * an nvfp4 KV cache: `nvfp4_phases` (kv_cache_hook.py:34-99, before the default fills the
     base, pipeline.py:241) writes its prefill / decode backends; `kv4` (:112-203, after the
     attention hook, before the speculative one, pipeline.py:254-306): SM100 / SM120 only
     on CUDA, and on SM100 an NGRAM BFS breadth (its topk) of 1 (trtllm_mha verifies a
     linear chain only).
   * (s37a) `--prefill-kv-cache-dequant-dtype` (read by that hook alone: no kernel, pool or
     buffer reads it) picks the prefill workspace instead of the backend set so far, and is
     refused without an nvfp4 KV cache (kv_cache_hook.py:39-45); `kv4` also holds the
     rules for an FP4 KV cache (nvfp4 or fp4_mx_block16) that depend on the model and the
     algorithm: the SM100 native pair refuses DFLASH / DSPARK and every algorithm but
     EAGLE / EAGLE3 / NEXTN / NGRAM (:159-188) and a named draft backend other than
     trtllm_mha (:205-230); the backend lists by MLA / MHA (:266-316), so an MLA model's
     native pair (base trtllm_mha, overrides.py:1128-1131) is refused; off CUDA it is
     refused outright (:317-318).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError, excerpt

HOOK = "arg_groups/model_hook.py"
GPT_OSS_BACKENDS = ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx", "intel_xpu",
                    "aiter")  # model_hook.py:523-532
GEMMA4_BACKENDS = ("trtllm_mha", "triton", "fa4", "ascend", "intel_xpu", "intel_amx",
                   "aiter")  # model_hook.py:645-653
LLAMA4_BACKENDS = ("fa3", "aiter", "triton", "ascend", "trtllm_mha", "intel_xpu")  # :622-629
EXAONE_SWA_BACKENDS = ("fa3", "triton", "trtllm_mha")  # model_hook.py:677
GEMMA4 = frozenset({"Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
                    "Gemma4UnifiedForConditionalGeneration"})
LLAMA4 = frozenset({"Llama4ForConditionalGeneration", "Llama4ForCausalLM"})
EXAONE = frozenset({"Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM"})
LFM2 = frozenset({"Lfm2ForCausalLM", "Lfm2MoeForCausalLM"})
PAGE_TREE_BACKENDS = ("flashinfer", "fa3", "triton")  # speculative_hook.py:1271
MLA_KV_DTYPES = frozenset({None, "auto", "fp8_e4m3", "bf16"})  # overrides.py:1214
BLACKWELL = frozenset({"sm100", "sm120"})
TRTLLM_MHA_GPUS = frozenset({"hopper", "sm100", "sm120"})  # attention_hook.py:200-202, 222-224
FA4 = "fa4"
DIFFUSION_GEMMA = "DiffusionGemmaForBlockDiffusion"  # overrides.py:1289-1292: page 1
FP8_E4M3_PREFILL_REFUSED = frozenset({"sm120"})  # attention_hook.py:207-221 (FMHAv2)
TOPK_ONE_BACKENDS = ("trtllm_mha",)  # speculative_hook.py:1176-1180
NGRAM_PAGE_TREE_BACKEND = "flashinfer"  # speculative_hook.py:1359
# --speculative-ngram-max-bfs-breadth's default (arg_groups/fields/spec.py:256-259): NGRAM's
# topk (speculative_hook.py:1309-1313)
NGRAM_BFS_BREADTH = 10
NVFP4 = "nvfp4"
NVFP4_GPUS = frozenset({"sm100", "sm120"})  # kv_cache_hook.py:124-131 (rocm: not CUDA)
KV4_HOOK = "arg_groups/kv_cache_hook.py"
NVFP4_PREFILL = ("flashinfer", "trtllm_mha")  # kv_cache_hook.py:18-24
# `_NVFP4_PREFILL_BACKEND` (kv_cache_hook.py:25-28): the prefill workspace dtype's backend
NVFP4_WORKSPACE = {"fp8_e4m3": "flashinfer", "nvfp4": "trtllm_mha"}
DEQUANT_AUTO = "auto"
FP4_KV = frozenset({NVFP4, "fp4_mx_block16"})  # kv_cache_hook.py:117
NATIVE_SPEC = frozenset({"EAGLE", "EAGLE3", "NEXTN", "NGRAM"})  # kv_cache_hook.py:159-164
PREFIX_WRITERS = frozenset({"DFLASH", "DSPARK"})  # kv_cache_hook.py:165-175
# the backend lists of an FP4 KV cache (kv_cache_hook.py:278-316): (prefill fa4?, MLA?)
KV4_LISTS = {(True, True): ("flashinfer", "trtllm_mla"),
             (True, False): ("triton", "torch_native", "flex_attention"),
             (False, True): ("flashinfer", "trtllm_mla"),
             (False, False): ("triton", "torch_native", "flex_attention", "trtllm_mha")}



def _refused(said: str, where: str, fix: str) -> ConfigError:
    return ConfigError(f"SGLang refuses {said} ({where}); {fix}")


def _phases(base: str | None, prefill: str | None, decode: str | None
            ) -> tuple[str | None, str | None]:
    """`attention_backends_of` (model_override_base.py:138-152)."""
    return prefill or base, decode or base


# the attention hook's trtllm_mha GPU checks, prefill then decode (attention_hook.py)
TRTLLM_MHA_GPU_CHECKS = (("prefill", "199-206"), ("decode", "222-227"))


def trtllm_mha_gpu(gpu: str, prefill: str | None, decode: str | None) -> None:
    """The attention hook's refusal of the trtllm_mha backend for a phase on a GPU class
    other than Hopper / SM100 / SM120 (attention_hook.py:199-206 prefill, then :222-227
    decode); `prefill` / `decode` are the resolved phases (`_phases`)."""
    for (phase, where), name in zip(TRTLLM_MHA_GPU_CHECKS, (prefill, decode), strict=True):
        if name == "trtllm_mha" and gpu not in TRTLLM_MHA_GPUS:
            raise _refused(f"trtllm_mha for {phase} on {gpu} (Hopper, SM100, SM120 only)",
                           f"arg_groups/attention_hook.py:{where}",
                           "name another attention backend")


def check_model_hook(architecture: str, base: str | None, prefill: str | None,
                     decode: str | None, *, swa_pattern: bool = False) -> None:
    """Stage 1 (module docstring): the backends after the model override, before SGLang's
    default fills an unset base; ConfigError in SGLang's words where its assert fails."""
    pre, dec = _phases(base, prefill, decode)
    got = f"prefill {pre}, decode {dec}"
    if architecture == "GptOssForCausalLM" and not (pre in GPT_OSS_BACKENDS
                                                    and dec in GPT_OSS_BACKENDS):
        raise _refused(f"GptOssForCausalLM with {got}", f"{HOOK}:515-543",
                       "name triton, trtllm_mha, fa3, fa4 or aiter for both")
    if architecture in LLAMA4 and base not in LLAMA4_BACKENDS:
        raise _refused(f"Llama4 with the {base} backend", f"{HOOK}:615-630",
                       "name fa3, triton, trtllm_mha or aiter")
    if architecture in GEMMA4 and not (pre in GEMMA4_BACKENDS and dec in GEMMA4_BACKENDS):
        raise _refused(f"Gemma4 with {got}", f"{HOOK}:636-660",
                       "name trtllm_mha, triton, fa4 or aiter for both")
    if architecture in EXAONE and swa_pattern and base not in EXAONE_SWA_BACKENDS:
        raise _refused(f"{architecture} (sliding window) with the {base} backend",
                       f"{HOOK}:668-681", "name fa3, triton or trtllm_mha")
    if architecture == "Olmo2ForCausalLM" and base == "flashinfer":
        raise _refused("Olmo2 with flashinfer (it degrades Olmo models)",
                       f"{HOOK}:682-692", "name another attention backend")
    if architecture in LFM2 and base == "triton":
        raise _refused(f"{architecture} with triton (its first layer may not be attention)",
                       f"{HOOK}:716-722", "name another attention backend")


@dataclass(frozen=True)
class ResolvedAttention:
    """The attention backends SGLang resolved for a line (base; the split fields, None where
    they fall back to the base), on a GPU kind (graphfit.planner.engines.sglang_attn_default.
    GPU_KINDS), with the line's speculative topk (1 when absent), the resolved page size and
    the KV cache dtype (None: auto)."""

    gpu: str
    base: str | None
    prefill: str | None
    decode: str | None
    topk: int = 1
    page_size: int = 1
    kv_cache_dtype: str | None = None
    # an NGRAM line: its own page rule (`ngram_page`) instead of the EAGLE family's topk rules
    ngram: bool = False
    # (s37a) an MLA model, the line's algorithm (upper case; None: no speculation) and its
    # --speculative-draft-attention-backend: `kv4`'s model and algorithm rules
    mla: bool = False
    algorithm: str | None = None
    draft_backend: str | None = None
    # --enable-unified-memory; --disaggregation-mode other than null; hierarchical cache or
    # LMCache (host pools): kv4's pool rules (kv_cache_hook.py:132-137, 251-263)
    unified_memory: bool = False
    disaggregated: bool = False
    host_pool: bool = False
    # SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR above 0 (`attention_hook`; s67p)
    skip_softmax: bool = False

    def __post_init__(self) -> None:
        for name in ("topk", "page_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name}: must be an int >= 1, got {excerpt(value)}")


def attention_hook(gpu: str, base: str | None, prefill: str | None, decode: str | None,
                   kv_cache_dtype: str | None, skip_softmax: bool = False) -> None:
    """The refusals `handle_attention_backend_compatibility` makes of a backend set on a GPU
    kind, in its order (arg_groups/attention_hook.py:186-227): trtllm_mla as the base or
    decode backend (`_mla_kv_cache_dtype_checks`, overrides.py:1203-1219), cutedsl_mla in any
    field (`_cutedsl_prefill_backend_fill`, :1232-1259), then trtllm_mha per phase and
    FMHAv2's fp8_e4m3 or skip-softmax prefill on SM120 (`skip_softmax`:
    SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR above 0, graphfit.inputs.
    sglang_skip_softmax; issue 23 s67p). Why a function of its own: a prefill-CP line meets
    them before the CP hook's refusals (graphfit.inputs.sglang_prefill_cp_platform, issue 23
    s66p), not only once the plan's backend is final (`check_resolved`)."""
    pre, dec = _phases(base, prefill, decode)
    other = "name another attention backend"
    if "trtllm_mla" in (base, decode):
        if gpu not in BLACKWELL:
            raise _refused(f"trtllm_mla off Blackwell (on {gpu})",
                           "arg_groups/overrides.py:1208-1213", other)
        if kv_cache_dtype not in MLA_KV_DTYPES:
            raise _refused(f"trtllm_mla with {kv_cache_dtype} KV (fp8_e4m3, bf16, auto only)",
                           "arg_groups/overrides.py:1214-1217",
                           f"use --kv-cache-dtype fp8_e4m3 or {other}")
    if "cutedsl_mla" in (base, decode, prefill):  # `_cutedsl_prefill_backend_fill`
        if prefill == "cutedsl_mla":  # an assert there (decode only)
            raise _refused("cutedsl_mla for prefill (decode only)",
                           "arg_groups/overrides.py:1241-1243", other)
        if gpu != "sm100":
            raise _refused(f"cutedsl_mla off SM100 (on {gpu})",
                           "arg_groups/overrides.py:1244-1247", other)
        if kv_cache_dtype not in MLA_KV_DTYPES | {"bfloat16"}:
            raise _refused(f"cutedsl_mla with {kv_cache_dtype} KV (fp8_e4m3, bf16, auto "
                           f"only)", "arg_groups/overrides.py:1248-1256",
                           f"use --kv-cache-dtype fp8_e4m3 or {other}")
    trtllm_mha_gpu(gpu, pre, dec)
    if pre == "trtllm_mha" and gpu in FP8_E4M3_PREFILL_REFUSED and (
            kv_cache_dtype == "fp8_e4m3"):
        raise _refused("trtllm_mha (FMHAv2) prefill with fp8_e4m3 KV on SM120",
                       "arg_groups/attention_hook.py:207-221",
                       f"use another --kv-cache-dtype or {other}")
    if pre == "trtllm_mha" and gpu in FP8_E4M3_PREFILL_REFUSED and skip_softmax:
        raise _refused("trtllm_mha (FMHAv2) prefill with skip-softmax on SM120",
                       "arg_groups/attention_hook.py:207-221",
                       f"unset SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR or {other}")


def check_resolved(r: ResolvedAttention) -> None:
    """Stage 2 (module docstring), in SGLang's order; ConfigError in SGLang's words."""
    pre, dec = _phases(r.base, r.prefill, r.decode)
    other = "name another attention backend"
    attention_hook(r.gpu, r.base, r.prefill, r.decode, r.kv_cache_dtype, r.skip_softmax)
    kv4(r, pre, dec)
    if r.ngram:
        ngram_page(r)
        return
    topk_one = next((n for n in (pre, dec) if n in TOPK_ONE_BACKENDS), None)
    if r.topk > 1 and topk_one is not None:
        raise _refused(f"{topk_one} with topk {r.topk} (topk 1 only)",
                       "arg_groups/speculative_hook.py:1176-1180",
                       f"use --speculative-eagle-topk 1 or {other}")
    if r.topk > 1 and r.page_size > 1 and r.base not in PAGE_TREE_BACKENDS:
        raise _refused(f"topk {r.topk} with page size {r.page_size} on {r.base} (only "
                       f"{', '.join(PAGE_TREE_BACKENDS)})",
                       "arg_groups/speculative_hook.py:1267-1282",
                       f"use topk 1 or {other}")


def nvfp4_phases(gpu: str, kv_cache_dtype: str | None, explicit: str | None,
                 prefill: str | None, decode: str | None, requested: str | None = None
                 ) -> tuple[str | None, str | None]:
    """The (prefill, decode) flags after `handle_nvfp4_prefill_kv_dequant_dtype`
    (kv_cache_hook.py:34-99, pipeline.py:241, before the default fills the base).
    `requested` is `--prefill-kv-cache-dequant-dtype` (None: auto); other than auto it is
    refused without an nvfp4 KV cache (:39-45). Auto: `explicit` (the prefill or base
    backend set so far: the line's, a model override's, deterministic inference's) picks
    the workspace (flashinfer: fp8_e4m3, trtllm_mha: native nvfp4; unset: native on SM100
    only); a named dtype picks it whatever `explicit` says. Then prefill is that
    workspace's backend and decode trtllm_mha. Unchanged without an nvfp4 KV cache."""
    requested = requested or DEQUANT_AUTO
    if kv_cache_dtype != NVFP4:
        if requested != DEQUANT_AUTO:
            raise _refused(f"--prefill-kv-cache-dequant-dtype {requested} without an nvfp4 KV "
                           f"cache", f"{KV4_HOOK}:39-45",
                           "drop the flag or use --kv-cache-dtype nvfp4")
        return prefill, decode
    if requested == DEQUANT_AUTO:
        if explicit is not None and explicit not in NVFP4_PREFILL:
            raise _refused(f"an nvfp4 KV cache with the {explicit} prefill backend (flashinfer "
                           f"or trtllm_mha only)", f"{KV4_HOOK}:47-56", "drop the backend flag")
        native = explicit == "trtllm_mha" or (explicit is None and gpu == "sm100")
    else:
        native = requested == NVFP4
    if native and gpu != "sm100":
        raise _refused(f"native NVFP4 prefill (trtllm_mha) on {gpu} (SM100 only)",
                       f"{KV4_HOOK}:59-63", "use --prefill-kv-cache-dequant-dtype fp8_e4m3")
    target = NVFP4_WORKSPACE[NVFP4 if native else "fp8_e4m3"]
    if prefill not in (None, target):
        raise _refused(f"an nvfp4 KV cache with prefill backend {prefill} ({target} here)",
                       f"{KV4_HOOK}:65-76", "drop --prefill-attention-backend")
    if decode not in (None, "trtllm_mha"):
        raise _refused(f"an nvfp4 KV cache with decode backend {decode} (trtllm_mha only)",
                       f"{KV4_HOOK}:78-84", "drop --decode-attention-backend")
    return target, "trtllm_mha"


def nvfp4_draft(gpu: str, kv_cache_dtype: str | None, decode_mode: bool) -> str | None:
    """The backend multi-layer EAGLE's draft-extend steps run with an nvfp4 KV cache and no
    draft backend named: on SM100 trtllm_mha (`handle_kv4_compatibility` writes it as the
    draft backend, kv_cache_hook.py:204-224: decode is always trtllm_mha there); on SM120
    the phase the speculative attention mode picks (draft_utils.py:47-66) from the pair the
    nvfp4 hook wrote: prefill flashinfer (native prefill is SM100's, :59-63), decode
    trtllm_mha. None without nvfp4 or on another GPU (refused, `kv4`). SM100's mixed pair
    (prefill flashinfer, decode trtllm_mha) also has its `--speculative-attention-mode`
    rewritten to decode (:232-249). That routes target verify to trtllm_mha
    (layers/attention/hybrid_attn_backend.py:64-88) and skips the prefill child's own
    graph state (:148-154), neither of which graphfit plans for any backend (the seq_lens
    fill is the decode child's either way, :156-159); it would pick the draft-extend phase
    too, but the draft backend written just before wins (draft_utils.py:47-66), so the
    answer here is trtllm_mha whatever the mode (s39a)."""
    if kv_cache_dtype != NVFP4 or gpu not in NVFP4_GPUS:
        return None
    if gpu == "sm100" or decode_mode:
        return "trtllm_mha"
    return NVFP4_WORKSPACE["fp8_e4m3"]


def kv4(r: ResolvedAttention, prefill: str | None, decode: str | None) -> None:
    """`handle_kv4_compatibility` on an FP4 KV cache (module docstring), given the resolved
    prefill / decode backends (`nvfp4_phases` wrote them for nvfp4), in SGLang's order."""
    if r.kv_cache_dtype not in FP4_KV:
        return
    if r.gpu == "rocm":
        if r.kv_cache_dtype == NVFP4:
            return  # the attention hook refused its trtllm_mha decode first (check_resolved)
        raise _refused(f"--kv-cache-dtype {r.kv_cache_dtype} off CUDA", f"{KV4_HOOK}:317-318",
                       "use another --kv-cache-dtype")
    if r.kv_cache_dtype == NVFP4 and r.gpu not in NVFP4_GPUS:
        raise _refused(f"--kv-cache-dtype nvfp4 on {r.gpu} (Blackwell SM100 or SM120 only)",
                       f"{KV4_HOOK}:124-131", "use --kv-cache-dtype fp4_mx_block16")
    if r.unified_memory:
        raise _refused("an FP4 KV cache with --enable-unified-memory (its pool has no FP4 "
                       "block scales)", f"{KV4_HOOK}:132-137", "drop --enable-unified-memory")
    native = r.kv_cache_dtype == NVFP4 and r.gpu == "sm100" and "trtllm_mha" in (
        prefill, decode)  # :141-146
    _native_spec(r, native)
    if native and r.disaggregated:
        raise _refused("SM100 native NVFP4 (trtllm_mha) with PD disaggregation",
                       f"{KV4_HOOK}:251-256", "use another --kv-cache-dtype")
    if native and r.host_pool:
        raise _refused("SM100 native NVFP4 (trtllm_mha) with a hierarchical cache or LMCache",
                       f"{KV4_HOOK}:257-263", "drop the host cache or use another "
                       "--kv-cache-dtype")
    _kv4_lists(r, prefill, decode)


def _native_spec(r: ResolvedAttention, native: bool) -> None:
    """The SM100 native pair's speculation rules (kv_cache_hook.py:141-230)."""
    algorithm = r.algorithm
    if not native or algorithm is None:
        return
    if algorithm in PREFIX_WRITERS:
        raise _refused(f"SM100 native NVFP4 speculation with {algorithm}", f"{KV4_HOOK}:165-175",
                       "use EAGLE / NEXTN or NGRAM, or --prefill-kv-cache-dequant-dtype "
                       "fp8_e4m3 with --attention-backend flashinfer")
    if algorithm not in NATIVE_SPEC:
        raise _refused(f"SM100 native NVFP4 speculation with {algorithm} (EAGLE, EAGLE3, "
                       f"NEXTN, breadth-1 NGRAM only)", f"{KV4_HOOK}:176-188",
                       "use another --speculative-algorithm")
    if r.ngram and r.topk != 1:
        raise _refused(f"SM100 native NVFP4 NGRAM with BFS breadth {r.topk} (trtllm_mha "
                       f"verifies a linear chain only)", f"{KV4_HOOK}:189-203",
                       "use --speculative-ngram-max-bfs-breadth 1")
    if algorithm != "NGRAM" and r.draft_backend not in (None, "trtllm_mha"):
        raise _refused(f"SM100 native NVFP4 speculation with draft backend {r.draft_backend} "
                       f"(trtllm_mha only)", f"{KV4_HOOK}:225-230",
                       "drop --speculative-draft-attention-backend")


def _kv4_lists(r: ResolvedAttention, prefill: str | None, decode: str | None) -> None:
    """The FP4 KV cache's backend lists (kv_cache_hook.py:266-316): none for a split pair
    whose prefill is not fa4; else, by MLA / MHA, the decode backend (fa4 prefill) or the
    base (overrides.py:1128-1131 made it the shared phase) must be listed."""
    if prefill != decode and prefill != FA4:
        return
    listed = KV4_LISTS[(prefill == FA4, r.mla)]
    name = decode if prefill == FA4 else r.base
    if name not in listed:
        kind = "MLA" if r.mla else "MHA"
        what = "decode" if prefill == FA4 else "attention"
        raise _refused(f"an FP4 KV cache on an {kind} model with {what} backend {name} "
                       f"({', '.join(listed)} only)", f"{KV4_HOOK}:266-316",
                       "name a listed backend or use another --kv-cache-dtype")


def ngram_page(r: ResolvedAttention) -> None:
    """NGRAM's own tree check, in `_handle_ngram` after its topk became the BFS breadth
    (speculative_hook.py:1310-1314): topk > 1 with a resolved page size > 1 runs on a
    flashinfer base only (:1356-1366); NGRAM has no trtllm_mha topk rule (that one is the
    EAGLE family's, :1176-1180)."""
    if r.topk > 1 and r.page_size > 1 and r.base != NGRAM_PAGE_TREE_BACKEND:
        raise _refused(f"NGRAM topk {r.topk} with page size {r.page_size} on {r.base} (only "
                       f"{NGRAM_PAGE_TREE_BACKEND})", "arg_groups/speculative_hook.py:1356-1366",
                       f"use --speculative-ngram-max-bfs-breadth 1 or --attention-backend "
                       f"{NGRAM_PAGE_TREE_BACKEND}")


def resolved_page(page: int | None, base: str | None, prefill: str | None,
                  decode: str | None, fa4: int | None = None, *,
                  draft: str | None = None) -> int:
    """The page size the speculative hook sees (module docstring), from the one after the
    model override (None: unset): `_mla_backend_page_constraints` (overrides.py:1144-1197)
    makes it 64 for flashmla, 32 or 64 for trtllm_mla / cutedsl_mla, 16 to 128 for
    trtllm_mha (the draft's backend too, where the caller passes `draft`) and 64 for hpc_ops;
    then `_fa4_page_constraint` (attention_hook.py:241, overrides.py:1273-1297) sets `fa4`
    (`fa4_page`: 128, or None where its conditions fail) over any page when fa4 is one of the
    three backends; else `_page_size_default` (overrides.py:1341-1363) makes an unset one 1."""
    names = {base, decode}
    if "flashmla" in names:
        page = 64
    if names & {"trtllm_mla", "cutedsl_mla"} or prefill == "cutedsl_mla":
        page = page if page in (32, 64) else 64
    if "trtllm_mha" in (base, decode, prefill, draft):
        page = page if page in (16, 32, 64, 128) else 64
    if "hpc_ops" in (base, decode, prefill):
        page = 64
    if fa4 is not None and FA4 in {base, prefill, decode}:
        page = fa4
    return page or 1


def fa4_page(gpu: str, mla: bool, line_topk: int | None, architecture: str) -> int | None:
    """The page `_fa4_page_constraint` (overrides.py:1273-1297) writes where fa4 is the base,
    prefill or decode backend: on SM100, for a model without an MLA backend, with the topk
    the attention hook sees (the line's; NGRAM's BFS breadth comes later, speculative_hook.py:
    1309-1313) <= 1: 128, or 1 for DiffusionGemma (:1289-1292); None where it does not run."""
    if gpu != "sm100" or mla or (line_topk or 0) > 1:
        return None
    return 1 if architecture == DIFFUSION_GEMMA else 128
