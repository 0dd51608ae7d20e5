"""SGLang 0.5.23's `check_server_args` on chunked prefill and PD multiplexing, after its LoRA
and mixed-chunk checks (arg_groups/validation_hook.py:240-262; issue 23, s67b).

* Chunked prefill against the page size (:243-246): with chunking on and not a decode server,
  `chunked_prefill_size % page_size == 0`, both as the hooks leave them. The chunk size is
  `--chunked-prefill-size` or the memory default (memory_hook.py:89-180), divided by the
  attention-DP width under attention DP (parallel_hook.py:326-332), so `--page-size 64
  --chunked-prefill-size 192 --attn-dp-size 2` is refused (96). The page size is judged only
  where graphfit knows what the hooks make of it: an NVIDIA GPU before Blackwell (named with
  its capability), whose default backends (fa3, flashinfer, triton) keep the page, and an
  architecture whose model override writes no page, nor a backend that changes it, on such a
  GPU (PAGE_OVERRIDES; DeepSeek-V4's 256 is known on every GPU); there the backend flags'
  page rules apply (sglang_backend_checks.resolved_page: `_mla_backend_page_constraints`,
  overrides.py:1144-1197, and `_page_size_default`, :1341-1363); so do they on SM100 for a
  plain MHA architecture with `--attention-backend` named, without speculation
  (`sm100_flagged`, issue 23 s68b), and on SM103, which SGLang takes for SM100
  (SM100_CAPS); on SM120 / SM121 for such an architecture without speculation, with any
  backend flags or none (`sm120_plain`, issue 23 s68j). Elsewhere (Blackwell's fa4 /
  trtllm_mha default picks and model overrides, ROCm) it is not judged.
* `--enable-pdmux` (:249-262), its asserts in order: no pipeline parallelism; chunked prefill
  off, exactly -1 (`--chunked-prefill-size -1`, or 0 / -2 divided by attention DP to -1, as
  Python's `//` does; issue 23 s68b; a model hook's -1, `hook_chunk_off`, passes it: issue
  23 s69a); no disaggregation; the overlap schedule off
  (`--disable-overlap-schedule`, or the hybrid-mamba no_buffer resolution that turns it off,
  overrides.py:453-486).

A model hook that turns chunking off declares `chunked_prefill_size=-1` over any given value
(arg_groups/model_hook.py:768-781, 848-887, 1024-1032; graphfit.inputs.sglang_chunk_off_model
reads its condition from config.json into `model_chunk_off`): the check then reads -1, so
neither the page check nor PD multiplexing's chunk assert refuses (`hook_chunk_off`, issue 23
s69a). A hook's model whose config.json graphfit did not read stays unjudged.

Why: graphfit planned these lines (a plain `--enable-pdmux`, a page size the chunk does not
fill) and SGLang refuses each before it builds a graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_attn_default import DEEPSEEK_FAMILY, DSA_ARCHITECTURES
from graphfit.planner.engines.sglang_backend_checks import fa4_page, resolved_page
from graphfit.planner.engines.sglang_mamba_pool import (
    MAMBAISH_ONLY_ARCHS,
    cache_of,
    is_hybrid_mamba,
)
from graphfit.planner.engines.sglang_prefill import given_chunk
from graphfit.planner.engines.sglang_server_nodes import attn_dp_enabled

HOOK = "arg_groups/validation_hook.py"
# multimodal architectures SGLang serves with chunked prefill off
# (`is_multimodal_chunked_prefill_supported`, configs/model_config.py:2553-2567, applied at
# model_hook.py:1024-1032), HRM-Text (:768-781) and EmbeddingGemma2 (:852-860): a hook may
# make their chunk size at the check -1 (`hook_chunk_off`)
CHUNK_OFF_ARCHS = frozenset({
    "Grok1VForCausalLM", "Grok1AForCausalLM", "LlavaLlamaForCausalLM",
    "MllamaForConditionalGeneration", "MossVLForConditionalGeneration", "CLIPModel",
    "HrmTextForCausalLM", "EmbeddingGemma2Model"})
HOOK_CHUNK = -1  # what the hooks declare (model_hook.py:780, 859, 886, 1031)
# model overrides that write a page size, or a backend that changes it, on a GPU before
# Blackwell (the others write theirs on SM100 / ROCm only: qwen3_5.py:26, nemotron_h.py:122,
# gpt_oss.py:29, llama4.py:24, olmo2.py, exaone.py, qwen3_vl.py's aiter): Beam's trtllm_mha
# on Hopper (beam.py:27-31), DeepSeek-V4 (deepseek_v4.py:51-61), MiniMax-M3 (minimax_m3.py:
# 92-115, 160-187), Kimi-K3 (kimi_k3.py), Qwen4-Exp's QSA (qwen4_exp.py:89-96) and the
# DeepSeek family's DSA pages (deepseek_v2.py:150-190)
PAGE_OVERRIDES = frozenset({
    "BeamForCausalLM", "DeepseekV4ForCausalLM", "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration"}) | DEEPSEEK_FAMILY | DSA_ARCHITECTURES
# DeepSeek-V4's override writes page 256 over any line off NPU (deepseek_v4.py:51-61); its
# dsv4 backend is in no page rule
DEEPSEEK_V4, DEEPSEEK_V4_PAGE = "DeepseekV4ForCausalLM", 256
# SM100 (B200): plain MHA architectures with no model override, MLA or sinks, whose default
# backend is trtllm_mha or fa4 (sm100_floor)
SM100, SM100_FLOOR = 100, 64
# SGLang's `is_sm100` is capability major 10 (utils/common.py:282, 309-313:
# `get_device_sm() // 10`, read through runtime_context.py:1832), so SM103 (GB300) takes every
# SM100 page rule: the trtllm_mha / fa4 default (model_override_base.py:312-325) and fa4's 128
# (overrides.py:1282; issue 23, s68j)
SM100_CAPS = frozenset({SM100, 103})
# SM120 / SM121 (`is_sm120_supported`, major 12: utils/common.py:282, 304-308): fa4's 128 is
# SM100's only (overrides.py:1282) and the MHA default is flashinfer or triton
# (model_override_base.py:330-334), both keeping the page (issue 23, s68j)
SM120_MAJOR = 12
SM100_PLAIN_MHA = frozenset({"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                             "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "MixtralForCausalLM"})
# CUDA capability majors whose default backends keep the page (Turing, Ampere / Ada, Hopper)
KEEPING_GPUS = (7, 8, 9)


def _refused(said: str, lines: str) -> str:
    return f"{said} (AssertionError, {HOOK}:{lines})"


def hook_chunk_off(config: EngineSettings) -> bool | None:
    """Whether a model hook turned chunked prefill off (module docstring): config.json's
    answer where graphfit read it (`model_chunk_off`), else None for a hook's architecture
    (CHUNK_OFF_ARCHS: its condition unread) and False for any other."""
    if config.model_chunk_off is not None:
        return config.model_chunk_off
    return None if config.architecture in CHUNK_OFF_ARCHS else False


def chunk_at_check(config: EngineSettings, changes: Mapping[str, Any]) -> int | None:
    """`chunked_prefill_size` as `check_server_args` reads it (module docstring): a model
    hook's -1 (attention DP's `//` keeps it -1), else the given chunk or the memory default;
    None where a hook's condition is unknown (`hook_chunk_off`)."""
    off = hook_chunk_off(config)
    if off is None:
        return None
    if off:
        return HOOK_CHUNK
    chunk = changes.get("chunked_prefill_size")
    if chunk is None:
        chunk = given_chunk(config.chunked_prefill_size, config.gpu_memory_gb)
    return chunk // config.attn_dp_size if attn_dp_enabled(config) else chunk


def page_at_check(config: EngineSettings) -> int | None:
    """`page_size` as `check_server_args` reads it where graphfit knows it (module
    docstring), else None."""
    if config.architecture == DEEPSEEK_V4:
        return DEEPSEEK_V4_PAGE  # on every CUDA GPU, after any flag (deepseek_v4.py:51-61)
    cap = config.gpu_capability
    if sm120_plain(config):  # no fa4 page, a default backend that keeps it
        return resolved_page(config.page_size, config.attention_backend_flag,
                             config.prefill_attention_backend, config.decode_attention_backend,
                             draft=config.draft_attention_backend)
    if sm100_flagged(config):  # fa4 named: its 128 (overrides.py:1273-1297)
        return resolved_page(config.page_size, config.attention_backend_flag,
                             config.prefill_attention_backend, config.decode_attention_backend,
                             fa4_page("sm100", False, config.speculative_eagle_topk,
                                      config.architecture or ""),
                             draft=config.draft_attention_backend)
    if (cap is None or cap // 10 not in KEEPING_GPUS or config.architecture is None
            or config.architecture in PAGE_OVERRIDES):
        return None
    return resolved_page(config.page_size, config.attention_backend_flag,
                         config.prefill_attention_backend, config.decode_attention_backend,
                         draft=config.draft_attention_backend)


def sm100_flagged(config: EngineSettings) -> bool:
    """On SM100 a plain MHA architecture (SM100_PLAIN_MHA: no model override writes its
    backend or page) with `--attention-backend` named and no speculation: no default backend
    is picked, so the flags' page rules decide the page, as on earlier GPUs
    (`_mla_backend_page_constraints` / `_page_size_default`; issue 23 s68b). With only the
    prefill and decode flags the base backend is still SGLang's default (trtllm_mha or fa4,
    whose page rules apply: the oracle's split-flag lines), so not judged here."""
    return (config.gpu_capability in SM100_CAPS and config.architecture in SM100_PLAIN_MHA
            and config.attention_backend_flag is not None
            and config.spec_method is SpecMethod.NONE)


def sm120_plain(config: EngineSettings) -> bool:
    """On SM120 / SM121 a plain MHA architecture (SM100_PLAIN_MHA) without speculation: its
    default backend is flashinfer or triton (model_override_base.py:330-334), which keep the
    page, and fa4's 128 is SM100's only (overrides.py:1282), so the flags' page rules decide it
    with any backend flags or none (`_mla_backend_page_constraints`: trtllm_mha's 16 to 128;
    issue 23, s68j). SM103 is SM100 to SGLang (SM100_CAPS)."""
    cap = config.gpu_capability
    return (cap is not None and cap // 10 == SM120_MAJOR
            and config.architecture in SM100_PLAIN_MHA
            and config.spec_method is SpecMethod.NONE)


def sm100_floor(config: EngineSettings) -> int | None:
    """On SM100 the page SGLang's default backend leaves is at least 64 for a plain MHA
    architecture (SM100_PLAIN_MHA: no model override, no MLA, no sinks) with no backend flag,
    no page given and no speculation: trtllm_mha makes page 1 into 64 (overrides.py:1173-1187),
    fa4 (asymmetric K/V) into 128 (:1273-1297; model_override_base.py:277-352). None
    elsewhere."""
    flags = (config.attention_backend_flag, config.decode_attention_backend,
             config.prefill_attention_backend, config.draft_attention_backend)
    if (config.gpu_capability not in SM100_CAPS or config.architecture not in SM100_PLAIN_MHA
            or any(flags) or config.page_size != 1
            or config.spec_method is not SpecMethod.NONE):
        return None
    return SM100_FLOOR


def chunk_page_problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """:243-246."""
    chunk, page = chunk_at_check(config, changes), page_at_check(config)
    floor = sm100_floor(config)
    if page is None and floor is not None and chunk is not None and chunk > 0 \
            and config.disaggregation_mode != "decode" and chunk % floor:
        return _refused(f"chunked_prefill_size must be divisible by page_size ({chunk} at the "
                        f"check, page {floor} or 128)", "243-246")
    if (chunk is None or page is None or chunk <= 0 or config.disaggregation_mode == "decode"
            or chunk % page == 0):
        return None
    return _refused(f"chunked_prefill_size must be divisible by page_size ({chunk} at the "
                    f"check, page {page})", "243-246")


def overlap_on(config: EngineSettings) -> bool:
    """The overlap schedule after the hooks: `--disable-overlap-schedule` turns it off, and
    so does a hybrid-mamba model's no_buffer resolution (sglang_mamba_pool.MambaCache.
    resolved) and pipeline parallelism (overrides.py:1623-1628)."""
    if config.disable_overlap_schedule or config.pp_size > 1:
        return False
    arch = config.architecture
    if (arch is not None and arch not in MAMBAISH_ONLY_ARCHS
            and is_hybrid_mamba(arch, config.mamba_state_shape)):
        return cache_of(config).resolved()[1]
    return True


def pdmux_problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """:249-262, in SGLang's order."""
    if not config.enable_pdmux:
        return None
    chunk = chunk_at_check(config, changes)
    for bad, said, lines in (
            (config.pp_size != 1, "PD-Multiplexing is only supported with pipeline "
                                  "parallelism disabled (pp_size=1)", "250-252"),
            (chunk is not None and chunk != -1, "PD-Multiplexing is not compatible with "
                                                "chunked prefill", "253-255"),
            (config.disaggregation_mode != "null", "PD-Multiplexing is not compatible with "
                                                   "disaggregation mode", "256-258"),
            (overlap_on(config), "PD-Multiplexing is not compatible with overlap schedule",
             "259-261")):
        if bad:
            return _refused(said, lines)
    return None


def problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """The first of these refusals in SGLang's order, or None."""
    return chunk_page_problem(config, changes) or pdmux_problem(config, changes)


__all__ = ["CHUNK_OFF_ARCHS", "HOOK_CHUNK", "chunk_at_check", "chunk_page_problem",
           "hook_chunk_off", "overlap_on",
           "page_at_check", "pdmux_problem", "problem", "sm100_flagged", "sm120_plain"]
