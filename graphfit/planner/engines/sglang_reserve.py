"""SGLang's memory reserve for a graphfit config: the default `mem_fraction_static` and what it
leaves outside static memory (weights + KV) for activations and graphs.

`sglang_memory` restates SGLang's formula over `StaticMemoryInputs`; this module reads those
inputs from an `EngineConfig` **as given**, since SGLang's memory hook runs before the
speculative hook fills max_running_requests (48) and before the scheduler sizes the request
pool (arg_groups/pipeline.py): a running-request count graphfit itself filled in is not what
the hook saw. `SglangModel.resolve` calls `default_fraction` on the given config and stores
the result in `SglangOptions.mem_fraction_static`, like SGLang's own
`declare_resolution(mem_fraction_static=...)` (memory_hook.py:337-341).

MLA models (graphfit's MLA architectures) reserve a flat 1.5 GiB for their prefill graphs
(memory_hook.py:384-389). A multimodal model outside the PD decode role and without
--language-only has its fraction lowered by its vision encoder's size
(`adjust_mem_fraction_for_vlm`, memory_hook.py:283-289, 330-335, 417-462), read from the model
directory's `vision_config` (SglangOptions.vision_layers / vision_hidden_size).
Whether SGLang sizes KV after capture (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, on by default for
Muse Spark; then 1.5 GiB + TP x PP / 8 GiB, a VLM a flat 8 GiB more, whatever its encoder):
graphfit.planner.engines.sglang_post_capture, from SglangOptions.post_capture_kv_sizing.

Not filled in (None) where SGLang's default is not positive (a PD decode server's activation
reserve for running requests x draft tokens can exceed a small GPU; `graphfit plan` warns), and
where graphfit cannot restate SGLang's value: GPU memory unknown (SGLang reads it from the
device; graphfit's 0.95 fallback would be a guess) and a multimodal model whose vision
encoder's size is not known (no model directory, or a vision_config that does not state it;
`graphfit plan` says so) unless SGLang sizes KV after capture, and post-capture sizing under
--enable-unified-memory when the model's config.json was not read
(sglang_post_capture.UNIFIED_NOT_MODELLED). Chunking off (`chunked_prefill_size` <= 0)
reserves for --max-prefill-tokens (memory_hook.py:307-308). Without a model directory graphfit
takes the model as text-only, as the line it shows says.
MLA models: oracle-tested in tests/oracle/test_sglang_memory_oracle.py and
tests/oracle/test_sglang_mla_reserve_oracle.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_qwen3_vl as qwen3_vl
from graphfit.planner.engines.sglang_mamba_pool import uses_kda
from graphfit.planner.engines.sglang_memory import (
    MIB_PER_GIB,
    StaticMemoryInputs,
    VisionEncoder,
    mem_fraction_static,
    vlm_applies,
)
from graphfit.planner.engines.sglang_multimodal import (
    breakable_prefill_refused,
    sglang_multimodal,
)
from graphfit.planner.engines.sglang_post_capture import (
    INKLING_UNIFIED_FAILS,
    PostCaptureInputs,
    inkling_unified_fails,
    planned,
    switch_on,
)

if TYPE_CHECKING:  # imported where used, as the other sglang_prefill names
    from graphfit.planner.engines.sglang_prefill import PrefillInputs

GIB = 1 << 30
# graphfit's speculative method -> a name SGLang's `SpeculativeAlgorithm.from_string` reads
# the same way for post-capture sizing under unified memory (sglang_post_capture: MTP is
# NEXTN or FROZEN_KV_MTP, both `is_eagle`)
SPEC_NAMES = {SpecMethod.EAGLE: "EAGLE", SpecMethod.EAGLE3: "EAGLE3", SpecMethod.MTP: "NEXTN",
              SpecMethod.DRAFT_MODEL: "STANDALONE", SpecMethod.DFLASH: "DFLASH",
              SpecMethod.DSPARK: "DSPARK", SpecMethod.NGRAM: "NGRAM", SpecMethod.UNO: "UNO"}
# multimodal architectures whose SGLang config class keeps the vision config as
# `raw_vision_config` (configs/nano_nemotron_vl.py:84-88; Nano Omni V3's subclass, :180-186,
# and the full Omni V3's, :189-198), so `adjust_mem_fraction_for_vlm` finds no
# `vision_config` and leaves the fraction as it is (memory_hook.py:432-434)
VISION_CONFIG_UNREAD = frozenset({"NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
                                  "NemotronH_Omni_Reasoning_V3"})
RESERVE_UNFIT = ("SGLang's default mem_fraction_static is not positive here: its activation + "
                 "graph reserve exceeds the GPU's memory (memory_hook.py:295-328), so weights "
                 "and KV get nothing; pass --mem-fraction-static or fewer running requests x "
                 "draft tokens")


def hook_prefill_inputs(config: EngineSettings) -> PrefillInputs:
    """The prefill-graph resolution's inputs as the memory hook sees them: before the
    attention-backend rule and the attention-DP re-clamp, without the request pool and
    context length, which only filter what the runner captures."""
    from graphfit.planner.engines.sglang_prefill import (
        MLA_ARCHITECTURES,
        PrefillInputs,
        declared_max_tokens,
        deepseek_v4_breakable_off,
        full_prefill_by_default,
    )
    from graphfit.planner.engines.sglang_prefill_cp_bcg import hook_strategy

    return PrefillInputs(
        backend=config.cuda_graph_backend_prefill,
        max_tokens=declared_max_tokens(config.architecture, config.cuda_graph_max_bs_prefill),
        tokens=config.cuda_graph_bs_prefill, chunked_prefill_size=config.chunked_prefill_size,
        max_total_tokens=config.max_total_tokens, pp_size=config.pp_size,
        gpu_memory_gb=config.gpu_memory_gb, tp_size=config.tp_size,
        attn_cp_size=config.attn_cp_size, two_batch_overlap=config.two_batch_overlap,
        disaggregation_mode=config.disaggregation_mode,
        mla=config.architecture in MLA_ARCHITECTURES, moe_a2a_backend=config.moe_a2a_backend,
        kda_breakable_off=uses_kda(config.architecture, config.mamba_state_shape),
        deepseek_v4_breakable_off=deepseek_v4_breakable_off(config.architecture),
        full_by_default=full_prefill_by_default(config.architecture),  # Inkling
        multimodal_breakable_off=breakable_prefill_refused(
            config.multimodal, config.architecture),
        # DCP turns breakable prefill graphs off inside handle_cuda_graph_config
        # (cuda_graph_hook.py:165, 212-216), which runs before the memory hook (pipeline.py:191,
        # 218): the hook sizes the reserve without them (issue 23 s44d)
        dcp=config.dcp_size > 1,
        # attention CP keeps them there where CP's breakable graphs are supported with the
        # backend the flags name (cuda_graph_hook.py:203-211; issue 23 s55g)
        cp_bcg=hook_strategy(config))


def memory_inputs(config: EngineSettings) -> StaticMemoryInputs:
    """What `handle_gpu_memory_settings` reads, from a config as given (not yet resolved)."""
    from graphfit.planner.engines.sglang_memory import default_decode_max_bs
    from graphfit.planner.engines.sglang_prefill import (
        MLA_ARCHITECTURES,
        given_chunk,
        resolve_prefill,
    )

    mode = config.disaggregation_mode
    # the graphs as the flags give them: a graph-less attention backend turns them off only
    # after this hook (graphfit.inputs.sglang_hook_graphs)
    hook_mode = config.hook_cudagraph_mode
    graphs = config.cudagraph_mode if hook_mode is None else CUDAGraphMode(hook_mode)
    decode_on = graphs is not CUDAGraphMode.NONE
    if mode == "prefill" and graphs is CUDAGraphMode.FULL_AND_PIECEWISE:
        decode_on = False  # no decode backend given (cuda_graph_hook.py:557-566)
    S = config.max_num_seqs
    if config.cudagraph_capture_sizes:
        max_bs = max(config.cudagraph_capture_sizes)  # memory_hook.py:202-207
    elif config.max_cudagraph_capture_size is not None:
        max_bs = config.max_cudagraph_capture_size
    else:
        max_bs, _ = default_decode_max_bs(config.gpu_memory_gb, config.tp_size)
        if S is not None:
            max_bs = min(max_bs, S)  # memory_hook.py:182-188
            if qwen3_vl.applies(config, max_bs, locked=False):
                max_bs = S  # memory_hook.py:190-196 (graphfit.planner.engines.sglang_qwen3_vl)
    # the prefill graphs as the hook sees them: before the attention-backend rule and the
    # attention-DP re-clamp; the request pool and context length only filter what the runner
    # captures, not the list's length
    prefill_in = hook_prefill_inputs(config)
    if hook_mode is not None:
        prefill_in = replace(prefill_in, backend=config.hook_prefill_backend)
    prefill = resolve_prefill(prefill_in)
    cps = given_chunk(config.chunked_prefill_size, config.gpu_memory_gb)
    layers, width = config.vision_layers, config.vision_hidden_size
    vision = (VisionEncoder(layers, width) if vlm_adjusted(config) and layers is not None
              and width is not None and config.architecture not in VISION_CONFIG_UNREAD
              else None)
    mla = config.architecture in MLA_ARCHITECTURES
    post = planned(PostCaptureInputs(
        switch=switch_on(config.post_capture_kv_sizing, config.architecture),
        architecture=config.architecture, mla=mla, disaggregation_mode=mode,
        decode_graphs=decode_on, prefill_graphs=prefill.phase_backend != "disabled",
        prefill_max_tokens=max(prefill.tokens, default=0), chunked_prefill_size=cps,
        unified_memory=config.enable_unified_memory, declined=config.post_capture_declined,
        transfer_backend=config.disaggregation_transfer_backend,
        mooncake_protocol=config.mooncake_protocol, pp_size=config.pp_size,
        dynamic_chunking=config.dynamic_chunking, max_prefill_tokens=config.max_prefill_tokens,
        hybrid_swa=config.hybrid_swa,
        # a mamba-like state (`mambaish_config`, overrides.py:1830): Inkling's conv state too
        mamba=config.mamba_state_shape is not None or config.inkling_conv_state is not None,
        spec_algorithm=SPEC_NAMES.get(config.spec_method), dcp_size=config.dcp_size))
    return StaticMemoryInputs(
        gpu_memory_gb=config.gpu_memory_gb, disaggregation_mode=mode,
        max_running_requests=S, decode_max_bs=max_bs, decode_graphs=decode_on,
        prefill_graphs=prefill.phase_backend != "disabled", prefill_sizes=len(prefill.tokens),
        chunked_prefill_size=cps, draft_tokens=config.speculative_num_draft_tokens,
        tp_size=config.tp_size, pp_size=config.pp_size, attn_dp_size=config.attn_dp_size,
        mla=mla, vision=vision, deepep=config.moe_a2a_backend == "deepep",
        prefill_breakable=prefill.phase_backend == "breakable", vlm=vlm_adjusted(config),
        post_capture_kv_sizing=post, max_prefill_tokens=config.max_prefill_tokens)


def vlm_adjusted(config: EngineSettings) -> bool:
    """A multimodal model SGLang treats as a VLM (`is_vlm`: outside the PD decode role,
    memory_hook.py:283-289; graphfit refuses --language-only and --language-model-only): its
    default is lowered by the vision encoder's size (`adjust_mem_fraction_for_vlm`,
    :417-462)."""
    return (sglang_multimodal(config.multimodal, config.architecture)
            and vlm_applies(config.disaggregation_mode))


def post_capture(config: EngineSettings) -> bool | None:
    """Whether SGLang sizes KV after capture for this config (graphfit.planner.engines.
    sglang_post_capture); None where graphfit does not restate the answer."""
    try:
        return memory_inputs(config).post_capture_kv_sizing
    except ConfigError:
        return None


def _vision_unknown(config: EngineSettings) -> bool:
    """A VLM whose vision encoder's size graphfit was not told: its default is not restated,
    unless SGLang sizes KV after capture (then a flat 8 GiB, whatever the encoder,
    memory_hook.py:423-431)."""
    if config.architecture in VISION_CONFIG_UNREAD:  # the fraction unchanged
        return False
    return vlm_adjusted(config) and (config.vision_layers is None
                                     or config.vision_hidden_size is None) and (
        post_capture(config) is not True)


def _restated(config: EngineSettings) -> bool:
    """graphfit restates SGLang's default for this config (the module docstring)."""
    return (config.gpu_memory_gb is not None and not _vision_unknown(config)
            and post_capture(config) is not None)


def default_fraction(config: EngineSettings) -> float | None:
    """SGLang's default mem_fraction_static for a config as given, or None where graphfit
    cannot restate it (the module docstring)."""
    if inkling_unified_fails(
            switch=switch_on(config.post_capture_kv_sizing, config.architecture),
            architecture=config.architecture, unified_memory=config.enable_unified_memory,
            hybrid_swa=config.hybrid_swa, declined=config.post_capture_declined,
            transfer_backend=config.disaggregation_transfer_backend,
            mooncake_protocol=config.mooncake_protocol, dcp_size=config.dcp_size):
        raise ConfigError(INKLING_UNIFIED_FAILS)  # SGLang's memory hook itself fails
    if not _restated(config):
        return None
    return mem_fraction_static(memory_inputs(given_view(config)))


# SglangOptions.prefill_cp_given's fields, in its order
PREFILL_CP_GIVEN = ("attn_dp_size", "dp_replicas", "attn_cp_size", "ep_size", "moe_a2a_backend")


def given_view(config: EngineSettings) -> EngineSettings:
    """`config` as SGLang's memory hook (pipeline.py:218) reads a DeepSeek-family prefill-CP
    line: with the widths the line gives, before the family override (:225) declares the
    resolved ones (SglangOptions.prefill_cp_given; issue 23 s60p)."""
    from graphfit.planner.engines.sglang_dwdp import view

    given = config.prefill_cp_given
    return config if given is None else view(config, dict(zip(PREFILL_CP_GIVEN, given,
                                                               strict=True)))


def unfit_warning(config: EngineSettings) -> str:
    """RESERVE_UNFIT with SGLang's own figure where graphfit restates it (issue 23 s45l):
    SGLang's resolution keeps a fraction <= 0 (memory_hook.py:324-341 has no floor), and the
    server then stops when it sizes the KV cache: its slack, the pre-load free memory x
    (1 - fraction), is at least that memory, so `rest_memory <= 0` raises "Loaded weights
    leave no GPU memory for the KV cache under --mem-fraction-static=<fraction>"
    (mem_cache/kv_cache_configurator.py:3007, 3038-3058). graphfit still plans the graphs
    SGLang resolves, and leaves the fraction unset."""
    fraction = default_fraction(config)
    if fraction is None or fraction > 0:
        return RESERVE_UNFIT
    return (f"SGLang's default mem_fraction_static is {fraction:g} here (not positive): its "
            "activation + graph reserve exceeds the GPU's memory (memory_hook.py:295-328) and "
            "the server stops sizing the KV cache: \"Loaded weights leave no GPU memory for "
            f"the KV cache under --mem-fraction-static={fraction:g}\" (kv_cache_configurator."
            "py:3038-3058); pass --mem-fraction-static or fewer running requests x draft "
            "tokens")


def reserve_unfit(config: EngineSettings) -> bool:
    """A resolved config whose default fraction SGLang computes as <= 0: the GPU memory is
    known and graphfit restates the default, yet `SglangModel.resolve` left it unset."""
    return config.mem_fraction_static is None and _restated(config)


def reserve_bytes(gpu_memory_gb: float, fraction: float) -> int:
    """The bytes SGLang leaves outside static memory: (1 - mem_fraction_static) x the GPU's
    (model_executor/pool_configurator.py sizes weights + KV from the fraction)."""
    return round(gpu_memory_gb * GIB * (1 - fraction))


def reserve_line(config: EngineSettings) -> str | None:
    """The one line `graphfit plan` shows, or None when the fraction is not known."""
    fraction, gb = config.mem_fraction_static, config.gpu_memory_gb
    if fraction is None or gb is None:
        return None
    from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

    left = reserve_bytes(gb, fraction) / GIB
    post = post_capture(config) is True
    if post and vlm_adjusted(config):
        model = ("a vision-language model sizing KV after capture (1.5 GiB + TP x PP / 8 GiB "
                 "+ 8 GiB for its encoder, :291-295, 423-431)")
    elif post:
        model = "a model sizing KV after capture (1.5 GiB + TP x PP / 8 GiB, :291-295)"
    elif vlm_adjusted(config):
        model = "a vision-language model (x its vision encoder's factor, :417-462)"
    elif config.architecture in MLA_ARCHITECTURES:
        model = "an MLA model (1.5 GiB for prefill graphs, :384-389)"
    else:
        model = "a text-only model"
    line = (f"{fraction:g}: {fraction * gb:.1f} of {gb:g} GiB static (weights + KV), "
            f"{left:.1f} GiB for activations and graphs (SGLang's default for {model} "
            f"unless given, memory_hook.py:281-343")
    if config.disaggregation_mode == "decode":
        line += "; decode role: 1.5 MiB per running request x draft token, :298-304"
    return line + ")"


VLM_NOTE = ("not restated: SGLang lowers its default for a multimodal model by the vision "
            "encoder's size (memory_hook.py:330-335, 417-462), which needs the model "
            "directory's vision_config")

__all__ = ["GIB", "MIB_PER_GIB", "RESERVE_UNFIT", "VLM_NOTE", "default_fraction",
           "memory_inputs", "post_capture", "reserve_bytes", "reserve_line", "reserve_unfit",
           "unfit_warning",
           "vlm_adjusted"]
