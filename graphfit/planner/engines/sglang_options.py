"""`SglangOptions`: the inputs only SGLang's model reads (its parallelism, its GPU memory,
two-batch overlap). See `graphfit.planner.core.options` for the split between these and the
shared `EngineConfig`."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.options import EngineOptions, positive_int, sizes, true_false
from graphfit.planner.engines.sglang_draft_moe_classes import DRAFT_MOE_CLASSES
from graphfit.planner.engines.sglang_moe_a2a import (
    check_backend,
    check_deepep_mode,
    check_draft_choice,
    check_runner,
)
from graphfit.planner.engines.sglang_mtp_graphs import backend_name, check_draft_extend_backend
from graphfit.planner.engines.sglang_quant_overrides import quant_config_text
from graphfit.planner.engines.sglang_unified_switches import SWITCHES

PREFILL_BACKENDS = ("breakable", "full", "disabled")  # SGLang cuda_graph_config.py:50
DISAGGREGATION_MODES = ("null", "prefill", "decode")  # SGLang --disaggregation-mode
# --mamba-radix-cache-strategy (arg_groups/fields/exec_.py:512-519)
MAMBA_STRATEGIES = ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")
# --linear-attn-backend (arg_groups/choices.py:194-203, fields/exec_.py:542-548)
LINEAR_ATTN_BACKENDS = ("triton", "cutedsl", "flashinfer", "flashkda", "nvidia_kda", "ptx_kda",
                        "helion", "intel_xpu")
MAMBA_BACKENDS = ("triton", "flashinfer")  # --mamba-backend (arg_groups/fields/exec_.py:483-489)
# --kv-cache-dtype's argparse choices (arg_groups/fields/model.py:197-221)
KV_CACHE_DTYPES = ("auto", "bf16", "bfloat16", "fp4_mx_block16", "fp8_e4m3", "fp8_e5m2",
                   "mxfp8", "nvfp4")


@dataclass(frozen=True)
class SglangOptions(EngineOptions):
    """SGLang 0.5.23 server arguments graphfit's model reads.

    gpu_memory_gb: GPU memory in GiB as nvidia-smi reports it; SGLang sizes the default
        decode graph max_bs and request pool from it (srt/arg_groups/memory_hook.py:78-89).
        None: unknown (the model covers what it cannot know).
    tp_size: tensor parallel size (`--tp-size`).
    attn_dp_size: attention data-parallel groups (`--attn-dp-size`); attn_cp_size: attention
        context parallelism (`--attn-cp-size`). The attention TP width is
        tp_size // attn_dp_size // attn_cp_size (srt/runtime_context.py:73-76), which
        aligns the captured batch sizes.
    two_batch_overlap: `--enable-two-batch-overlap`: only even batch sizes are captured
        (model_executor/runner/base_cuda_graph_runner.py:83-104).
    cuda_graph_backend_prefill: prefill CUDA graphs' backend, breakable, full or disabled
        (`--cuda-graph-backend-prefill`); None: SGLang's default (breakable graphs up to
        chunked_prefill_size tokens; graphfit.planner.engines.sglang_prefill_plan).
    cuda_graph_max_bs_prefill: the largest prefill graph, in tokens; cuda_graph_bs_prefill:
        the prefill token counts to capture (arg_groups/cuda_graph_hook.py:480-497).
    chunked_prefill_size: `--chunked-prefill-size`; None: SGLang's default from GPU memory.
    full_prefill_max_req: the full prefill backend's request slots.
    disaggregation_mode: the PD disaggregation role, null, prefill or decode
        (`--disaggregation-mode`): prefill servers drop decode graphs and decode servers
        prefill graphs.
    pp_size: pipeline-parallel stages (prefill graphs are opt-in under PP).
    max_total_tokens: `--max-total-tokens`, the KV pool's token capacity cap; it bounds the
        request pool (mem_cache/kv_cache_configurator.py:3129-3150) and the prefill max.
    multi_layer_eagle: `--enable-multi-layer-eagle` (arg_groups/fields/spec.py:230): EAGLE /
        EAGLE3 / NEXTN run the multi-layer EAGLE worker (speculative/spec_info.py:354), whose
        draft-extend graphs are one runner per draft step sharing one buffer set and no
        draft-decode runner (speculative/multi_layer_eagle_worker_v2.py:417-458,
        multi_layer_eagle_draft_extend_cuda_graph_runner.py:540-655).
    mtp_draft_backend: the attention backend name multi-layer EAGLE's draft-extend steps run
        (`DraftBackendFactory._create_backend`, speculative/draft_utils.py:47-66:
        `--speculative-draft-attention-backend`, else the prefill backend (the decode one with
        `--speculative-attention-mode decode`, :145-149), each falling back to
        `--attention-backend`, arg_groups/model_override_base.py:138-152); None: not on the
        line (SGLang's choice by GPU and model, not restated). It decides the draft-extend
        graph count (graphfit.planner.engines.sglang_mtp_graphs).
    single_cg_draft: `SGLANG_ENABLE_SINGLE_CG_DRAFT` (environ.py:1921, on by default): one
        draft-extend graph per size for all steps where the backend allows it
        (speculative/multi_layer_eagle_worker_v2.py:431-451).
    frozen_kv_mtp: `--speculative-algorithm FROZEN_KV_MTP` (spec_method mtp): the draft reads
        the target's frozen KV; one draft-loop graph runner of width topk and no draft-extend
        graphs (speculative/frozen_kv_mtp_worker_v2.py:179-183, 380-399).
    dflash_domino: a DFLASH draft whose config.json says `dflash_config.projector_type:
        domino` (speculative/dflash_utils.py:542-543, read by graphfit.inputs.sglang_draft):
        its sampler folded into the draft graph is `_DominoDraftSampler`, `out` only at any TP
        size (speculative/dflash_worker_v2.py:322-345, 937-967).
    dflash_selector_top_k: a DFLASH selector draft (DFlash2DraftModel and its aliases,
        models/dflash.py:1264-1324) and its `dflash_config.selector_top_k`: the sampler folded
        into the draft graph is `_SelectorDraftSampler` (dflash_worker_v2.py:254-283,
        907-923), chosen before a Domino one; None: no selector.
    speculative_adaptive: `--speculative-adaptive` where SGLang keeps it on
        (arg_groups/fields/spec.py:237; speculative/adaptive_spec_params.py:57-101): one
        graph set per candidate step count of the built-in config, swapped at run time
        (graphfit.planner.engines.sglang_adaptive).
    mem_fraction_static: `--mem-fraction-static`, the share of GPU memory SGLang keeps static
        (weights + KV); the rest is its activation and graph reserve. None: SGLang's default
        (arg_groups/memory_hook.py:281-343), which the model fills in when gpu_memory_gb is
        known (graphfit.planner.engines.sglang_reserve) and leaves None otherwise.
    sm90: SGLang's `is_sm90_supported()` on the serving GPU (utils/common.py:274-285,
        331-335: compute capability 9.x and CUDA >= 12.3), which gates the large-Hopper
        Qwen3-VL decode max_bs override (arg_groups/model_overrides/qwen3_vl.py:20-60).
        None: unknown (a GPU memory figure without a name); set from a GPU name by the CLI.
    vision_layers, vision_hidden_size: the vision encoder's size, read from a local model's
        config.json `vision_config` (num_hidden_layers, or `depth` as HF's Qwen-VL configs
        map it; hidden_size). SGLang lowers its default mem_fraction_static by it for a
        multimodal model (`adjust_mem_fraction_for_vlm`, arg_groups/memory_hook.py:417-462).
        None: not known (graphfit then does not restate that default).
    max_mamba_cache_size: `--max-mamba-cache-size` (arg_groups/fields/schedule.py:216-219):
        the state cache slots of a hybrid mamba / linear-attention model, which cap its
        request pool (graphfit.planner.engines.sglang_mamba_pool); None: sized from GPU
        memory, not modelled. disable_radix_cache, mamba_radix_cache_strategy
        (exec_.py:512-519), disable_overlap_schedule, page_size: the flags that decide the
        state slots one request holds (kv_cache_configurator.py:3062-3088,
        arg_groups/overrides.py:453-486). Read only for hybrid mamba architectures.
    mamba_state_shape: a hybrid mamba / linear-attention model's state shape read from its
        config.json (graphfit.planner.engines.sglang_mamba_memory.SHAPE_FIELDS: layers,
        intermediate_size, n_groups, num_heads, head_dim, state_size, conv_kernel, as
        `Mamba2StateShape.create` reads them, configs/mamba_utils.py:194-241; state_size 0:
        LFM2's conv-only state, lfm2.py:80-91; then an optional conv_full, Zaya's whole
        per-layer conv state, zaya.py:284-288). None: not known. mamba_ssm_dtype:
        `--mamba-ssm-dtype` (arg_groups/fields/exec_.py:490-496) or the config's
        `mamba_ssm_dtype` (mamba_utils.py:47-103); None: float32.
        mamba_full_memory_ratio: `--mamba-full-memory-ratio` (fields/schedule.py:220-227);
        None: 0.9. weights_gb: graphfit's input, the GiB one rank's loaded weights take (the
        "mem usage" SGLang logs at "Load weight end", model_runner.py:1365-1378);
        preload_avail_gb: the free GiB SGLang measures before loading them
        (distributed/bootstrap.py:207-212; None: gpu_memory_gb is assumed). With them the
        state cache SGLang sizes from memory caps the request pool
        (graphfit.planner.engines.sglang_mamba_memory). mamba_memory_slots: that state cache
        size, filled in by the model where graphfit restates it (like mem_fraction_static).
        mamba_layer_map: one 0/1 per model layer, 1 where the layer holds a mamba / linear
        state (the model config's `mamba2_cache_params.layers`); under pipeline parallelism
        SGLang charges each rank the largest stage's share of the state
        (kv_cache_configurator.py:3233-3249). None: not known (its sum must be the shape's
        layer count). mamba_head_counts: Zaya's (num_attention_heads, num_query_groups),
        which its attention asserts the TP width divides at load (models/zaya.py:917-925,
        460-471; graphfit.planner.engines.sglang_mamba_memory.check_inputs); None: not read.
        inkling_conv_state: Inkling's short-conv state read from its text config
        (graphfit.planner.engines.sglang_mamba_inkling.INKLING_FIELDS; configs/inkling.py:
        217-256), priced in place of mamba_state_shape; None: not read.
        enable_scattered_sconv: `--enable-scattered-sconv` (fields/exec_.py:740-743), which
        shards Inkling's stream conv states over the attention-TP width (inkling.py:234-240).
        prefill_max_requests: `--prefill-max-requests` (arg_groups/fields/schedule.py:82-85,
        None: no cap): with --max-mamba-cache-size and a FULL prefill backend whose given
        full_prefill_max_req is at least it, a PD prefill server keeps no pre-capture slack
        for the state (kv_cache_configurator.py:3011-3030; sglang_mamba_memory).
        prefill_attention_backend: the target's prefill attention backend,
        `--prefill-attention-backend` else `--attention-backend`, else SGLang's default
        where graphfit restates it (`attention_backends_of`, arg_groups/
        model_override_base.py:138-152); None: not known. With decode_attention_backend
        it is the pair --enable-unified-memory's checks read (kv_cache_hook.py:613-641,
        690-712; graphfit.planner.engines.sglang_unified_memory).
        disable_lazy_compaction: SGLANG_DISABLE_LAZY_COMPACTION (EnvBool, off, environ.py:
        602); unified_switches: the cache / parallelism switches a unified-memory line sets
        (names in graphfit.planner.engines.sglang_unified_switches.SWITCHES, kept sorted;
        None: none).
        Both feed --enable-unified-memory's start-up refusals (kv_cache_hook.py:554-587,
        658-688; sglang_unified_switches).
        draft_vocab_size: the EAGLE-family draft-extend runners' logits columns, read from
        the DRAFT's config.json: its `draft_vocab_size`, else `hot_vocab_size`, else its own
        `vocab_size` (eagle_draft_extend_cuda_graph_runner.py:233-247,
        multi_layer_eagle_draft_extend_cuda_graph_runner.py:647-653); None: the target's
        vocab_size (graphfit.inputs.sglang_draft_shape).
        draft_dtype: the draft ModelConfig's dtype (`_get_and_verify_dtype` of the draft's
        own config with --dtype, configs/model_config.py:881, 2284-2345), the draft runners'
        hidden_states dtype (eagle_utils.py:279-290, eagle_draft_extend_cuda_graph_runner.
        py:182-196); None: the target's dtype.
        draft_extend_hidden_size: an EAGLE3 draft's aux hidden-state width (its
        `target_hidden_size` or hidden size times its aux layer count,
        `get_draft_input_from_target_hidden_dim`, eagle_utils.py:237-276); None: three
        target layers.
        dcp_size: `--dcp-size` (decode context parallelism, parallel_hook.py:243-248);
        dcp_comm_backend: `--dcp-comm-backend` (a2a / ag_rs / fi_a2a; None: SGLang's
        default, overrides.py:1374-1396). Both read by graphfit.planner.engines.sglang_dcp.
        unified_linear: on a unified-memory line, (SGLang's resolved linear-attention decode
        backend, None where the GPU decides it; the prefill one; --mamba-backend), which the
        page-major layout's allow-lists read (kv_cache_hook.py:828-862); None: not a
        unified-memory line. asymmetric_kv: the model's K and V rows differ in width
        (`has_asymmetric_kv`, configs/model_config.py:1263-1271, from config.json); None:
        not known. Both issue 23 s42u (sglang_unified_switches.page_major).
        hook_cudagraph_mode, hook_prefill_backend: the decode graph mode (a CUDAGraphMode
        value) and prefill backend the flags gave before --attention-backend torch_native /
        flex_attention turned both phases off: SGLang's memory hook (pipeline.py:218) runs
        before that rule (attention_hook.py:122-160, pipeline.py:242), so its default
        fraction still counts the graphs' reserve (memory_hook.py:313, 357-399). None: no
        such backend (the config's own fields are what the hook sees); hook_prefill_backend
        is read only where hook_cudagraph_mode is set (None there: none given).
        mm_feature_transport: `--mm-feature-transport` (arg_groups/fields/mm.py:144-157);
        for a multimodal model a GPU transport (cuda_ipc / cuda_vmm) adds its pool to the
        memory SGLang reserves before sizing the state cache (kv_cache_configurator.py:
        202-219). None: resolved to cpu (serving_hook.py:800-840; the multi-node MNNVL
        auto-selection is not modelled).
    mamba_conv_dtype, pp_layer_partition, vlm_cache_size_mb, mm_feature_cache_mb: the
        environment variables the mamba state cache's memory solve reads
        (graphfit.planner.engines.sglang_mamba_env), each None at SGLang's default:
        SGLANG_MAMBA_CONV_DTYPE (environ.py:1628, the conv state's dtype, mamba_utils.py:68;
        None: bfloat16), SGLANG_PP_LAYER_PARTITION kept as written (the pipeline stages'
        layer counts, distributed/utils.py:110-150, parsed where pp_size > 1; None: the even
        split), SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB (environ.py:1598,
        1622; a multimodal model's reservation, kv_cache_configurator.py:202-219; None: 100
        and 1024 MiB).
    enable_pd_role_switch, enable_unified_memory: `--enable-pd-role-switch` /
        `--enable-unified-memory`; either keeps the speculative intermediate states on a
        disaggregated prefill server (`_pd_prefill_skips_mamba_spec_state`,
        kv_cache_configurator.py:172-181), where graphfit then does not restate the state
        cache (they change the pools in ways not modelled, :1575-1590, 3207-3211).
    enable_dp_lm_head: `--enable-dp-lm-head` (arg_groups/fields/parallel.py:199): the LM head
        on the attention-TP group. DFLASH and DSPARK need it under attention DP
        (speculative_hook.py:303-316, 674-676); SGLang turns it off with one DP rank
        (overrides.py:1366-1370). It changes no graph buffer graphfit plans
        (graphfit.planner.engines.sglang_spec_dp).
    dp_spec_prefill_coordination: `SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION` (environ.py:1558,
        off): SGLang allows it with single-layer EAGLE / EAGLE3 / DSPARK only, not with DFLASH
        under attention DP, and with DSPARK under attention DP in static ragged verify only
        (speculative_hook.py:252-258, 313-317, 683-696). It changes scheduling, no graph.
    moe_a2a_backend: `--moe-a2a-backend` (arg_groups/fields/exec_.py:836-868), for a MoE
        model: any backend but "none" gathers the attention input, so the captured batch
        sizes are multiples of the attention-TP width (utils/common.py:4133-4180;
        graphfit.planner.engines.sglang_moe_a2a, which lists the backends refused).
    dspark_samples_anchor: the DSPARK draft config's `sample_from_anchor` (default True,
        speculative/dspark_components/dspark_config.py:29-31): the draft's graph runner holds
        gamma rows per request when True, gamma + 1 when False (model_executor/
        model_runner.py:880-895; graphfit.planner.engines.sglang_dspark). Read from a local
        draft's config.json on a pasted line.
    deepep_mode: `--deepep-mode` (auto / normal / low_latency, arg_groups/fields/exec_.py:
        898-901). With the deepep backend, normal turns both graph phases off in
        `handle_a2a_moe` (arg_groups/moe_hook.py:383-398), which runs after the memory hook
        (arg_groups/pipeline.py:218, 295): SGLang's default mem_fraction_static still
        reserves for the graphs (graphfit.planner.engines.sglang_moe_a2a.normal_mode_off).
    moe_runner_backend: `--moe-runner-backend` (arg_groups/fields/exec_.py:884-891, choices
        arg_groups/choices.py:136), read for the all-to-all rules: megamoe is an alias of
        `--moe-a2a-backend megamoe` (arg_groups/mega_moe_hook.py:259-276; applied here: the
        backend becomes megamoe, the runner auto), pplx runs only with deep_gemm or auto
        (arg_groups/moe_hook.py:599-602), deepep_v2 with deep_gemm (auto resolves to it,
        :403-419), flashinfer with its own list (:531-540).
    speculative_moe_a2a_backend: `--speculative-moe-a2a-backend` (arg_groups/fields/spec.py),
        the draft model's all-to-all backend; None: the target's (layers/moe/utils.py:
        463-468, 498-502). Read for the draft runners' gather rule
        (graphfit.planner.engines.sglang_moe_a2a.check_draft_backend).
    dspark_proposal: how the DSPARK draft proposal runs (graphfit.planner.engines.
        sglang_dspark_modes, read from SGLang's environment by graphfit.inputs.
        sglang_dspark_env): "sampling" (default: the Markov block folded into the draft graph
        samples, with step logits), "greedy" (`SGLANG_DSPARK_USE_GREEDY_DRAFT`, environ.py:
        554: argmax only, no step logits, dspark_draft_sampler.py:189-193) or "eager"
        (`SGLANG_DSPARK_FOLDED_PROPOSAL=0`, environ.py:555: no sampler folded,
        dspark_worker_v2.py:600-613).
    dspark_mid_fold: `SGLANG_OPT_DSV41_DSPARK_MID_FOLD` (environ.py:1891, off): the folded
        DSPARK sampler also writes `verify_ids` [max_bs, gamma + 1] (dspark_draft_sampler.py:
        63-68).
    dspark_post_forward_graph: `SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH` (environ.py:1903,
        off): the DSPARK verify epilogue also allocates `block_accept_lens` [max_bs] int32
        (dspark_verify.py:657-661), read `[:bs]` by its accept (:958-962, 1055-1067): a
        `target_compact` buffer under compact (graphfit.planner.engines.
        sglang_dspark_epilogue); no other buffer graphfit plans changes.
    ragged_verify_mode: `SGLANG_RAGGED_VERIFY_MODE` as given (environ.py:1572, "static");
        read by DSPARK only (spec_info.py:160-164, ragged_verify.py:19-27): "static",
        "cap-accept" and "compact" are planned, any other value is refused as SGLang
        refuses it (graphfit.planner.engines.sglang_dspark_modes).
    dspark_target_layers: how many target layers' hidden states the DSPARK target captures
        (len(`dflash_target_layer_ids`), model_runner_components/spec_aux_hidden_state.py:
        260-283, packed side by side by layers/aux_hidden_states.py:97-102). Read from a
        local draft's config.json (graphfit.inputs.sglang_dspark); None: unknown. Only
        compact mode needs it: its verify epilogue keeps the strided hidden
        [max_bs * (gamma + 1), layers * hidden] (speculative/dspark_components/
        dspark_verify.py:971-1002; graphfit.planner.engines.sglang_dspark_epilogue).
    dflash_lilicorr_top_k: a LiLiCorr DFLASH draft's `dflash_config.lilicorr_candidate_topk`
        (lilicorr_utils.py:46-95; None: not a LiLiCorr draft): its folded sampler's candidate
        width (lilicorr_utils.py:239-290; graphfit.planner.engines.sglang_dflash).
    dflash_lilicorr_head: the same draft's head geometry, [lilicorr_hidden_size (0: as wide as
        the draft, lilicorr_utils.py:42-44), lilicorr_num_heads, lilicorr_factor_dim]
        (lilicorr_utils.py:85-94; None: not read). It sizes the head's weight-sized buffers,
        the token table and the precomputed inference buffers (models/lilicorr.py:245-297,
        448-456; graphfit.planner.engines.sglang_lilicorr_weights), planned only with
        dflash_lilicorr_top_k.
    dflash_eager_sampler: `SGLANG_DFLASH_EAGER_DRAFT_SAMPLER` (environ.py:1569, off): DFLASH
        keeps its draft head eager, no sampler folded into the draft graph
        (dflash_worker_v2.py:890-891), so no `sampler_*` buffers.
    vit: the vision-encoder CUDA graphs `SGLANG_VIT_ENABLE_CUDA_GRAPH=1` turns on
        (environ.py:1603; multimodal/vit_cuda_graph_runner.py): the tower read from the
        model's config.json (graphfit.inputs.sglang_vit) and the workload (image grids, most
        images per encoder call), as [name, value] pairs (VitGeometry's fields, then `images`
        and `max_images`; graphfit.planner.engines.sglang_vit_keyed.vit_pairs). Planned as
        the keyed component `vit`. None: not planned.
    sm100: SGLang's `is_sm100_supported()` (utils/common.py:309-313: capability 10.x, CUDA
        >= 12.8), which megamoe's start-up check reads with sm90 (arg_groups/mega_moe_hook.py:
        38-48). None: unknown; set from a GPU name by the CLI (B200, GB200).
    quant_method: `--quantization` as given (SGLang's server_args.quantization), and
        quant_algo: the checkpoint config.json's `quantization_config.quant_algo` (SGLang's
        `ModelConfig.hf_quant_config`, configs/model_config.py:722-727), read from a local
        model. Together they say whether the MoE experts are NVFP4, which makes megamoe bound
        the tokens per rank (arg_groups/mega_moe_hook.py:67-75). None: not given.
    megamoe_tokens_per_rank, mori_dispatch_tokens_per_rank, pplx_dispatch_tokens_per_rank,
    deepep_v2_dispatch_tokens_per_rank: SGLang's per-rank token budgets, the environment
        variables SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK (environ.py:1470,
        default 8192), SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (:930, 4096),
        SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK (:1453, 128) and
        SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK (:1441, 128), read by
        graphfit.inputs.environment from a pasted line's VAR=value prefix or the process
        environment; SGLang's start-up checks bound the decode / prefill tokens by them
        (graphfit.planner.engines.sglang_megamoe, sglang_deepep_v2,
        sglang_moe_a2a.check_dispatch). Any sign (issue 23 s63k): each is read only on its
        own backend; one of 0 or below that passes the start-up check is not modelled
        (graphfit.planner.engines.sglang_budget_floor).
    flashinfer_dispatch_tokens_per_rank: SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK
        (environ.py:1224), the FlashInfer A2A workspace per rank; None (unset): max(chunk per
        rank, 4096) (arg_groups/overrides.py:1886-1894;
        graphfit.planner.engines.sglang_flashinfer_a2a). Any sign, as the other budgets.
    moe_fp4_checkpoint: whether the checkpoint's MoE experts are FP4 as SGLang's ModelConfig
        says (`is_fp4_experts or nvfp4_moe_meta is not None`, configs/model_config.py:722-797:
        `quantization_config.routed_experts_quant_method == "mxfp4"`, or quant_algo
        MIXED_PRECISION with moe_quant_algo NVFP4 and a group_size), read from a local model's
        config.json (graphfit.inputs.model_config.quant_settings). None: unknown (a
        DeepSeek-V4 checkpoint without routed_experts_quant_method, which SGLang reads from its
        weights, :744-761). flashinfer_megamoe accepts such a checkpoint (moe_hook.py:264-282).
    megamoe_combine_dtype, megamoe_fc2_reduce, nvfp4_w4a16:
        SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE (EnvStr, default "bf16", environ.py:1240),
        SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE and SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16
        (EnvBool, off, :1235, 1246), checked by flashinfer_megamoe's start-up
        (moe_hook.py:214-235, 318-324; graphfit.planner.engines.sglang_flashinfer_megamoe).
    post_capture_kv_sizing: SGLANG_ENABLE_POST_CAPTURE_KV_SIZING as SGLang reads it (EnvBool,
        environ.py:640; a value it cannot parse is off, :67-86); None: not in the environment,
        then on for a Muse Spark model only (muse_spark_hook.py:19-25). Whether SGLang then
        sizes KV after capture, and so its default reserve: graphfit.planner.engines.
        sglang_post_capture.
    post_capture_declined: --enable-kv-cache-sharding, --enable-memory-saver or
        --prefill-only-disable-kv-cache given, or SGLANG_MOONCAKE_CUSTOM_MEM_POOL set, each of
        which turns post-capture KV sizing off (overrides.py:1799-1800, 1811-1816); graphfit
        models nothing else of them.
    checkpoint_quant_method: the checkpoint's quantization method as SGLang's ModelConfig
        parses its config.json `quantization_config` (configs/model_config.py:1727-1741,
        1838-1897: a ModelOpt quant_algo becomes modelopt_fp4 / modelopt_fp8 /
        modelopt_mixed / w4afp8 / mxfp8), read from a local model
        (graphfit.inputs.model_config.quant_settings). `--quantization` must not clash with
        it, and on SM100 some classes copy it into the flag with its case as written
        (get_quantization_config, utils/common.py:3849-3854; graphfit.planner.engines.
        sglang_quantization). None: no quantization_config read.
    checkpoint_quant_config: the quantization config SGLang's `_verify_quantization` reads
        (configs/model_config.py:2060-2071: a ModelSlim quant_model_description.json, else
        config.json's quantization_config, else its compression_config, else a local
        hf_quant_config.json), as canonical JSON text (a mapping given is stored so); its
        bits / group size / zero point / quant_algo decide the awq -> awq_marlin,
        gptq -> gptq_marlin, moe_wna16 and generic modelopt overrides
        (graphfit.planner.engines.sglang_quant_overrides). None: not read; then only
        checkpoint_quant_method is known.
    gpu_capability: the serving GPU's CUDA compute capability as major * 10 + minor (80 for
        an A100, 90 for an H100), from a GPU name (graphfit.inputs.gpus); the Marlin and
        AWQ overrides need SM80 / SM75 (marlin_utils.py:78-79, awq/awq.py:108-116). None:
        unknown.
    decode_attention_backend: the target model runner's decode attention backend,
        `--decode-attention-backend` else `--attention-backend` (arg_groups/
        model_override_base.py:138-152); None: not on the line. Its
        `get_cuda_graph_seq_len_fill_value()` pads the target runner's seq_lens
        (model_executor/runner/decode_cuda_graph_runner.py:433-434;
        graphfit.planner.engines.sglang_seq_len_fill).
    draft_attention_backend: `--speculative-draft-attention-backend` (speculative/
        draft_utils.py:45, 55-61), the single-layer EAGLE draft-decode runner's backend
        (else the decode one); None: not on the line.
    mooncake_protocol, disaggregation_transfer_backend, dynamic_chunking, max_prefill_tokens,
    hybrid_swa: what else post-capture KV sizing reads (graphfit.planner.engines.
        sglang_post_capture): MOONCAKE_PROTOCOL (EnvStr "rdma", environ.py:887),
        `--disaggregation-transfer-backend` (default mooncake, fields/disagg.py:65-71),
        `--enable-dynamic-chunking` and `--max-prefill-tokens` (16384, fields/schedule.py:
        67-82; `max_prefill_buffer_tokens`, overrides.py:1865-1883) and whether the model is
        hybrid-SWA (`is_hybrid_swa_model`, configs/model_config.py:2651-2697; None: no local
        config.json read), which decides it under --enable-unified-memory (:1826-1836).
    checkpoint_fp8_experts: whether the checkpoint's safetensors hold FP8 expert weights, as
        SGLang's `has_fp8_weights_in_checkpoint` reads the headers (utils/common.py:
        3857-3921; graphfit.inputs.sglang_safetensors): a DeepseekV3ForCausalLM checkpoint
        without `quant_method` then runs as fp8 on SM100 (arg_groups/overrides.py:791-807).
        None: not read (a hub id, another class).
    kimi_mxfp4_pack: whether a Kimi K3 checkpoint's text_config quantization_config has an
        MXFP4 config group (`_is_mxfp4_pack_quantized`, arg_groups/model_override_base.py:
        366-377), which makes its auto MoE runner flashinfer_mxfp4 on SM100 / 103 / 107
        (model_overrides/kimi_k3.py:172-190). None: not read.
    dsa_index_kpool: the draft model's config.json `index_kpool` (SGLang's
        `get_dsa_index_kpool`, configs/model_config.py:530-531; 1 when absent). A DSA
        draft-extend backend holds it (dsa_backend.py:533) and, above 1, the single-layer
        EAGLE draft-extend runner's seq_lens fill becomes at least the draft width + it
        (eagle_draft_extend_cuda_graph_runner.py:62-71; graphfit.planner.engines.
        sglang_seq_len_fill).
    moe_dp_size: `--moe-dp-size` (1), the MoE's data-parallel groups; read only for the
        start-up checks on it and the expert-parallel size (arg_groups/parallel_hook.py:
        170-193; graphfit.planner.engines.sglang_ep_rules).
    elastic_ep_backend, node_rank, ep_join_rank_offset, max_ep_size, elastic_ep_initial_size,
        eplb_algorithm: `--elastic-ep-backend` (None; mooncake / nixl / none, "none" being a
        backend SGLang treats as set), `--node-rank` (0), `--elastic-ep-join-rank-offset`
        (0), `--max-ep-size`, `--elastic-ep-initial-size` (None) and `--eplb-algorithm`
        ("auto"): read only for elastic EP's start-up checks (parallel_hook.py:519-581;
        graphfit.planner.engines.sglang_elastic_ep).
    enable_waterfill: `--enable-waterfill` (False): the a2a backend becomes deepep unless it
        is deepep or megamoe, after the hooks that read the given one (overrides.py:
        1595-1607, moe_hook.py:292; graphfit.planner.engines.sglang_waterfill).
    dwdp_size: `--dwdp-size` (1): DWDP above 1, its asserts restated and the line then refused
        as not modelled (parallel_hook.py:433-508; graphfit.planner.engines.sglang_dwdp).
    enable_aiter_allreduce_fusion, enable_deterministic_inference, rl_on_policy_target:
        `--enable-aiter-allreduce-fusion` (False), which context parallelism and
        `--moe-dp-size` > 1 refuse (parallel_hook.py:166-168, 185-187) unless deterministic
        inference (the flag, or any `--rl-on-policy-target`) cleared it first
        (attention_hook.py:585-607); read only for that (graphfit.planner.engines.
        sglang_ep_rules.check_aiter).
    attention_backend_flag: `--attention-backend` as given (None: not on the line). SGLang's
        no_buffer mamba check reads this field before any default fills it, and not the
        phase flags (arg_groups/mamba_hook.py:161-163, run from model_hook.py:225 / 737
        ahead of `handle_attention_backend_compatibility`, pipeline.py:225, 242;
        graphfit.planner.engines.sglang_mamba_pool.cache_of).
    enable_eplb, ep_num_redundant_experts, init_expert_location: `--enable-eplb`,
        `--ep-num-redundant-experts` (0) and `--init-expert-location` ("trivial"). Any of
        them on (EPLB, a redundant expert, a non-trivial location) is Nemotron-H's "expert
        remap" (model_overrides/nemotron_h.py:57-63), which refuses some runners (:152-180)
        and picks flashinfer_trtllm_routed from auto on SM100 without an a2a backend
        (:87-98; graphfit.planner.engines.sglang_model_quant.expert_remap_runner).
    jit_deepgemm: SGLANG_ENABLE_JIT_DEEPGEMM (EnvBool True, environ.py:1348); with an SM90+
        GPU and deep_gemm installed it is `ENABLE_JIT_DEEPGEMM` (deep_gemm_wrapper/
        configurer.py:32-55), which makes HYV4 MXFP8's auto MoE runner deep_gemm
        (model_overrides/deepseek_v2.py:80-97).
    hf_config_quant: config.json's `quantization_config` as SGLang's hf_config holds it
        after the in-place ModelOpt parse (configs/model_config.py:1727-1741), the dict the
        model overrides read -- not a ModelSlim / hf_quant_config.json config, which never
        reaches hf_config (:1814-1836). "absent": a local config.json without one; None: not
        read (checkpoint_quant_config stands in). Read for Nemotron-H, HYV4 and MiniMax-M3
        (graphfit.planner.engines.sglang_class_picks).
    swa_full_tokens_ratio, swa_prefix_tails, disaggregation_decode_extra_slots,
    disaggregation_decode_enable_radix_cache: the server arguments of those names
        (graphfit.inputs.sglang_dsv4), as given (None: not on the line; the extra slots are
        filled by resolution on a DeepSeek-V4 decode server, pd_disaggregation_hook.py:
        128-142). A DeepSeek-V4 model's KV pools read them (graphfit.planner.engines.
        sglang_dsv4_plan).
    dsv4_pool_shape: a DeepSeek-V4 config.json's pool shape (graphfit.inputs.sglang_dsv4.
        shape_of): [[qk_nope_head_dim, qk_rope_head_dim, index_head_dim, sliding window,
        1 for a deepseek_v41 model_type else 0], compress_ratios, kv_source_layer_ids].
        None: not read (another model, a hub id).
    dsv4_state_dtype: SGLANG_DSV4_COMPRESS_STATE_DTYPE as written (None: unset, float32,
        environ.py:1832); checked for a DeepSeek-V4 model only, as SGLang does
        (pool_configurator.py:136-145). dsv4_env_unmodelled: why the environment leaves the
        DeepSeek-V4 pools unrestated (`sglang_dsv4_pool.not_modelled`), None: it does not.
    dp_replicas: data-parallel replicas (`--dp-size` after `handle_deprecated_dp_attention`,
        arg_groups/parallel_hook.py:39-62: 1 where --enable-dp-attention took it as the
        attention-DP width). Each replica plans the same graphs; read only for the decode
        extra-slot default, which divides the line's requests by replicas x attention DP
        (pd_disaggregation_hook.py:133-138, runtime_context.py:202-207).
    enable_hisparse: `--enable-hisparse` (issue 23 s45k), read for SGLang's refusals of it
        (the decode radix cache, pd_disaggregation_hook.py:100-104; DeepSeek-V4.1,
        deepseek_v4_hook.py:333-353); a DeepSeek-V4 model's pools are then said, not sized
        (`dsv4_env_unmodelled`).
    dsv4_attn_backend: `--dsv4-attn-backend` as given (auto, flashmla, flashmla_mega, trtllm;
        None: not given, auto), read for SGLang's start-up asserts on a DeepSeek-V4 model
        (deepseek_v4_hook.py:92-130; issue 23 s45k).
    enable_encoder_swa_bounded_replay: `--enable-encoder-swa-bounded-replay`, read for
        SGLang's refusal of it on a DeepSeek-V4 model other than V4.1
        (deepseek_v4_hook.py:276-280; issue 23 s45k), V4.1's replay refusals (s47k, s50k)
        and its SWA request window (pool_configurator.py:1200-1247; s50k).
    inkling_draft_conv_state: an Inkling MTP draft checkpoint's short-conv state (the
        `--speculative-draft-model-path` directory's text config, INKLING_FIELDS' order;
        configs/inkling.py:217-256), which each multi-layer EAGLE draft head's own conv cache
        is priced from (graphfit.planner.engines.sglang_mamba_mtp_draft; issue 23 s47m);
        None: not read (no local Inkling draft config).
    nnodes: `--nnodes`, read only for the DCP communication backend SGLang picks and its
        runner's fi_a2a start check, which both look at the TP ranks per node
        (`is_fi_a2a_supported`, utils/common.py:1056-1064; graphfit.planner.engines.
        sglang_dcp; issue 23 s47d).
    kv_cache_dtype: `--kv-cache-dtype` as given (one of SGLang's argparse choices,
        `KV_CACHE_DTYPES`; None: not given, auto). Read for DeepSeek-V4: the V4.1 default
        `--dsv4-attn-backend` on SM100 turns on it (deepseek_v4_hook.py:44-60) and trtllm
        asserts it (:108-111) once auto is fp8_e4m3 (overrides.py:892-913;
        graphfit.planner.engines.sglang_dsv4_default; issue 23 s48k).
    draft_quant_config: a quantized local draft checkpoint's quantization config as SGLang's
        draft ModelConfig reads it (the keys its method overrides read, canonical JSON
        text; graphfit.inputs.sglang_draft_quant), from which the draft's final method is
        resolved on the GPU (graphfit.planner.engines.sglang_draft_quant; issue 23 s50r);
        None: an unquantized or unread draft.
    enable_mixed_chunk, enable_lora, enable_session_radix_cache: `--enable-mixed-chunk`,
        `--enable-lora` (True only as given: `--lora-paths` turns it on later, in the
        validation hook, lora_hook.py:39-41) and `--enable-session-radix-cache`, read only
        for SGLang's refusal of DeepSeek-V4.1's encoder SWA replay with them
        (deepseek_v4_hook.py:323-325; graphfit.planner.engines.sglang_dsv4_plan.check_replay;
        issue 23 s50k). Their graphs and pools are not modelled otherwise.
    minimax_sparse_kv: a MiniMax-M3 target's sparse KV pool shape (graphfit.planner.engines.
        sglang_minimax_kv.MiniMaxSparseKv.fields: num_hidden_layers, KV heads, head_dim,
        sparse_index_dim, quantization minimax_m3_nvfp4 (0/1), SGLANG_DISABLE_M3_FP8_ATTN_GEMM
        (0/1), --hisparse-config's host_to_device_ratio (0: unreadable), then one code per
        `sparse_attention_freq` entry: 0 dense, 1 sparse, 2 sparse with index K only), read
        from the local target config.json (graphfit.inputs.sglang_minimax_kv); the plan prices
        one token of the pool from it (pool_configurator.py:408-489; issue 23 s50p). None: not
        read. An EAGLE-family line ends it with 4 and the draft's KV layer count (0: not
        read), whose share SGLang adds to the target's price (pool_configurator.py:258-313;
        issue 23 s63m).
    dspark_draft_layers: the DSPARK draft checkpoint's `num_hidden_layers` (its text config,
        parse_dflash_draft_config, dflash_utils.py:588-597, 545-551), which SGLang's
        DeepSeek-V4 configurator counts as the draft's SWA ring layers under encoder replay
        (`dflash_draft_num_layers`, spec_aux_hidden_state.py:219, 280;
        pool_configurator.py:1200-1239; graphfit.planner.engines.sglang_dsv4_pool; issue 23
        s51k); None: the draft's config was not read.
    prefill_cp_strategy: `--cp-strategy` of a pasted `--enable-prefill-cp` line that graphfit
        plans (graphfit.inputs.sglang_prefill_cp); with attn_cp_size == tp_size SGLang may
        capture CP's own breakable prefill graphs (graphfit.planner.engines.
        sglang_prefill_cp_bcg; issue 23 s54g). None: prefill CP off (or not read).
    dspark_early_verify_metadata: SGLANG_OPT_DSV41_TARGET_METADATA_EARLY (EnvBool, off,
        environ.py:1897): on, a DSPARK target verify runner keeps its four staged inputs out
        of the process-wide pool (graphfit.planner.engines.sglang_dspark_early; issue 23 s54d).
    draft_moe_class: the MoE class SGLang builds for a local draft checkpoint, where
        graphfit restates that it makes FusedMoE layers (graphfit.planner.engines.
        sglang_draft_dispatch.MOE_DRAFTS; issue 23 s54e); None: not one of those, or not read.
    mnnvl_fabric: SGLang's `is_mnnvl_fabric_device()` (utils/common.py:1038-1053), which makes
        the DCP fi_a2a backend possible on SM100 whatever the TP ranks per node
        (`is_fi_a2a_supported`, :1056-1064; graphfit.planner.engines.sglang_dcp). True: set by
        the CLI from a GB200 / GB300 name (SGLang's name check, :1047-1049) or given in a
        config file;
        False: given (no fabric); None: unknown (NVML's fabric state decides, :1050-1053).
    prefill_cp_hook_backend: the prefill attention backend a prefill-CP line's flags name
        (`--prefill-attention-backend`, else `--attention-backend`): the one SGLang's
        CP-graph support check sees before the memory hook, ahead of the default backend
        (cuda_graph_hook.py:203-211 at pipeline.py:191; the default at :242,
        attention_hook.py:120), so the hook's prefill-graph reserve counts CP's graphs only
        with a named backend (issue 23 s55g).
        None: no flag names one, or prefill CP off.
    nixl_dispatch_tokens_per_rank, mooncake_dispatch_tokens_per_rank: the NixlEP / Mooncake
        dispatchers' per-rank token budgets, SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK
        (EnvInt, environ.py:1452, 128) and SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK
        (get_int_env_var, token_dispatcher/mooncake.py:157-159, 128), read by
        graphfit.inputs.environment; each low-latency dispatcher asserts it <= 1024 at model
        build (graphfit.planner.engines.sglang_dispatch_budget; issue 23 s55e). Any sign
        (s60k): 0 and below build too; -1 fails the first dispatch, the rest is the
        package's (graphfit.planner.engines.sglang_first_dispatch).
    nvfp4_moe_layers: which FusedMoE layers SGLang's model build gives ModelOpt's NVFP4 MoE
        method under the checkpoint's own quantization config (modelopt_fp4 layers its
        exclusions leave, modelopt_mixed layers whose quantized_layers entry is NVFP4 /
        W4A16_NVFP4, modelopt_quant.py:1089-1092, the fp8 + NVFP4 hybrid's layers,
        HybridFp8NvFp4Config, :1731-1768): "first" (the first MoE layer built), "later"
        (only layers after one that builds another method), "none". Read from a local
        config.json where graphfit walks the class's MoE layers
        (graphfit.inputs.sglang_nvfp4_moe_layers); None: unknown. The NVFP4 method's runner
        checks then apply (sglang_nvfp4_moe; issue 23 s60q).
    prefill_cp_family: "DSA" / "MLA", the branch of SGLang's DeepSeek-family prefill-CP
        override a planned `--enable-prefill-cp` line takes (graphfit.inputs.
        sglang_prefill_cp_family; issue 23 s60p): SGLang's model hook then turns the prefill
        graphs off unless CP's own breakable graphs are captured (model_hook.py:304-321,
        421-430; cuda_graph_hook.py:104-134). None: not such a line.
    prefill_cp_given: (attn_dp_size, dp_replicas, attn_cp_size, ep_size, moe_a2a_backend) as
        such a line gives them: the memory hook (pipeline.py:218) reads these before the
        family override (:225) declares the resolved widths, so SGLang's default
        mem_fraction_static is computed on them (issue 23 s60p). None: not such a line.
    cp_tp_group_sharing: SGLang's resolved `enable_cp_tp_group_sharing`: a prefill-CP line on
        Glm5Next / Qwen4-Exp with an attention CP width above 1 that the sharing hook accepts
        (arg_groups/cp_tp_group_sharing_hook.py:21-24, 122), set by graphfit.inputs.
        sglang_prefill_cp_family (issue 23 s63p). The CP group is then the TP group and the
        linear attention's state is split over the whole TP group (`linear_attn_tp_size`,
        runtime_context.py:477-486; graphfit.planner.engines.sglang_mamba_memory.state_tp).
    speculative_moe_runner_backend: `--speculative-moe-runner-backend` (arg_groups/fields/
        spec.py:173-180), lower-cased: the draft's MoE runner, which the draft's DeepEPMoE
        asserts read inside the worker's runner context (layers/moe/utils.py:493-497,
        941-954; graphfit.planner.engines.sglang_draft_deepep.draft_runner); a lora_* one is
        refused on a speculative line (arg_groups/lora_hook.py:183-196; issue 23 s63d). None:
        not given, SGLang defaults it from the target's runner (overrides.py:1631-1655).
    enable_layernorm_sp, enable_megamoe_for_layernorm_sp: `--enable-layernorm-sp` and
        `--enable-megamoe-for-layernorm-sp` (store-true), read for SGLang's start-up checks of
        LayerNorm sequence parallelism (`handle_layernorm_sp`, arg_groups/
        layernorm_sp_hook.py:15-190; graphfit.planner.engines.sglang_layernorm_sp): a line
        they pass is not modelled (issue 23 s64k).
    moe_nvfp4_dispatch: SGLANG_MOE_NVFP4_DISPATCH as the line's environment sets it (an
        EnvBool; a value it cannot parse reads False, environ.py:67-89, 1185); None: unset,
        which FlashInfer A2A turns on for NVFP4 (arg_groups/moe_hook.py:497-507). Read by
        Muse Spark's LayerNorm SP check (layernorm_sp_hook.py:101-106; issue 23 s64k).
    lora_backend, lora_paths_given, max_lora_rank, lora_target_modules_given: `--lora-backend`
        (lower-cased; None: not given, SGLang's default csgmv), whether `--lora-paths` /
        `--lora-target-modules` hold anything, and `--max-lora-rank` (None: not given), read
        for the LoRA MoE runners' start-up checks (arg_groups/lora_hook.py:33-237;
        graphfit.planner.engines.sglang_lora_runner; issue 23 s65d).
    max_loras_per_batch, enable_lora_overlap_loading, max_loaded_loras, lora_paths_count,
        lora_target_all_mixed, lora_drain_wait_threshold, enable_pdmux: `--max-loras-per-batch`
        (8), `--enable-lora-overlap-loading`, `--max-loaded-loras` (None: not given), how many
        adapters `--lora-paths` lists, whether `--lora-target-modules` names `all` beside
        another module, `--lora-drain-wait-threshold` (0.0) and `--enable-pdmux`, each as
        given (any sign: SGLang's own asserts refuse); lora_experimental_opti,
        overlap_plan_stream: SGLANG_EXPERIMENTAL_LORA_OPTI / SGLANG_ENABLE_OVERLAP_PLAN_STREAM
        (EnvBools, off, environ.py:1257, 1553). Read for the rest of `check_lora_server_args`
        (lora_hook.py:20-180, 240-300; sglang_lora_runner; issue 23 s66l).
    lora_paths_invalid: SGLang's refusal of a `lora_paths` value of a shape its parse does
        not take (lora_hook.py:76-136: an item neither a string nor a mapping, a mapping item
        without `lora_name` / `lora_path`, a value neither a list, a mapping nor None), in
        its words; only a config file or a Python caller can give one (the CLI makes strings).
        None: nothing refused. Judged where SGLang parses it, with LoRA on, after the
        speculative check (sglang_lora_runner; issue 23 s67l).
    lora_disabled: `enable_lora` given False (a config file's or a live ServerArgs'; the CLI
        flag is store-true): SGLang then ignores `--lora-paths` and keeps LoRA off
        (lora_hook.py:39-47; issue 23 s67l).
    draft_build_failure: the exception SGLang's draft worker meets on the local draft's
        layer entry (Step-3.5's `moe_layers_enum`, Exaone-MoE's `is_moe_layer`,
        InternS2-Mobius's `mtp_num_experts`), as one line (graphfit.inputs.
        sglang_draft_layer_entries); raised at the draft's build, after the target's
        (sglang_draft_deepep.check; issue 23 s67d). None: it builds, or is not read.
    enable_torch_compile, pp_spec: `--enable-torch-compile` and SGLANG_ENABLE_PP_SPEC (an
        EnvBool, off, environ.py:1557), read for `check_server_args`'s torch-compile padding
        assert and its pipeline-parallel speculative checks (arg_groups/validation_hook.py:
        119-170, 188-197; graphfit.planner.engines.sglang_server_checks; issue 23 s67b).
    server_flag_refusals: (slot, refusal) pairs (None: none): `check_server_args`'s first
        refusal of the
        serving flags graphfit reads only for it (workers, buckets, priority scheduling,
        metrics, gRPC, `--min-free-slots-delay`), by slot (graphfit.inputs.
        sglang_server_serving.SLOTS), raised at SGLang's place (graphfit.planner.engines.
        sglang_server_checks; issue 23 s68b).
    dsa_checkpoint: config.json names a DSA checkpoint (`index_topk` set, or a DSA config
        class's default), the half of `is_deepseek_dsa` past the architecture (configs/
        model_config.py:191-212), read for HiSparse's model-class assert (graphfit.inputs.
        sglang_hisparse_class; issue 23 s68b). None: not read.
    dense_model: the target's config names no per-token expert count, so the scheduler
        never seeds the MoE flags (managers/scheduler.py:991-1008) and every graph runner,
        the draft's included, sees MoeA2ABackend.NONE (layers/moe/utils.py:517-521,
        541-548) whatever `moe_a2a_backend` resolved to; argument resolution still applies
        the backend's rules (graphfit.planner.engines.sglang_moe_a2a.runtime_backend; read
        by graphfit.inputs.sglang_a2a; issue 23 s68m).
    disable_attn_tp_gather: `--disable-attn-tp-gather`: `require_attn_tp_gather()` is then
        False whatever the backend (utils/common.py:4142-4143), so an all-to-all backend
        without attention DP no longer aligns the captured batches to the attention-TP width
        nor fills the gathered buffer (graphfit.planner.engines.sglang_moe_a2a; issue 23 s68l).
    gpu_rocm: the GPU is an AMD one, SGLang's `get_platform().is_hip` (True from an AMD
        Instinct name, graphfit.inputs.gpus.gpu_rocm, or given in a config file; a figure in
        GiB is read as CUDA). Read by LoRA's V2 modes check, which refuses ROCm
        (lora_hook.py:20-30; graphfit.planner.engines.sglang_lora_runner; issue 23 s68l).
    moe_dense_tp_size: SGLang's resolved `--moe-dense-tp-size` (None: unset), which
        `require_mlp_tp_gather` reads under attention DP with the DP LM head and an
        all-to-all backend (utils/common.py:4090-4128): 1 where a DeepSeek-family prefill-CP
        line's override forces it with deepep (model_overrides/deepseek_v2.py:106-145,
        191-210; graphfit.inputs.sglang_prefill_cp_family; issue 23 s68p); else the line's
        `--moe-dense-tp-size` (issue 23 s69c: its values, the gathers, elastic EP; graphfit.
        planner.engines.sglang_mlp_gather).
    draft_mtp_unquantized: the quantization method whose config a Qwen3.5 / Qwen4-Exp MTP
        draft's module drops (`modelopt_fp4`, `modelopt_mixed` or `quark`; models/
        qwen3_5_mtp.py:50-91), read from the local draft checkpoint (graphfit.inputs.
        sglang_mtp_quant); where the draft settles on that method its MoE layer is built
        unquantized (sglang_draft_deepep; issue 23 s68d). None: not dropped, or not read.
    target_build_failure: the exception SGLang's target model build meets on its config
        (LongCat-Flash with a null `rope_scaling`, graphfit.inputs.sglang_longcat_rope), as
        one line, raised at the model build (issue 23 s68d). None: it builds, or not read.
    model_chunk_off: a model hook turns chunked prefill off for the local model (True) or
        its condition fails (False), read from config.json for the hooks' models only
        (HRM-Text, EmbeddingGemma / EmbeddingGemma2, six multimodal classes; arg_groups/
        model_hook.py:768-781, 848-887, 1024-1032; graphfit.inputs.sglang_chunk_off_model):
        `check_server_args` then reads -1 (graphfit.planner.engines.sglang_server_chunk;
        issue 23 s69a). None: not read.
    dsa_backends: `--dsa-prefill-backend` and `--dsa-decode-backend` as given (None: unset),
        read on a HiSparse line for SGLang's DSA backend checks (overrides.py:677-712,
        hisparse_hook.py:154-165; graphfit.planner.engines.sglang_hisparse_dsa; issue 23
        s69b). Each is None or one of the flags' choices (DSA_BACKENDS); None: neither given.
    nvfp4_ckpt_fp8_nextn_moe: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE as the line's environment sets
        it (an EnvBool, off; a value it cannot parse reads off, environ.py:67-89, 1187): on,
        a DeepSeek-family NextN draft loaded as modelopt_fp4 under the deep_gemm draft runner
        builds its MoE with an FP8 block config instead of none (models/deepseek_nextn.py:
        66-79, deepseek_common/utils.py:126-134; graphfit.planner.engines.
        sglang_draft_nextn_fp4; issue 23 s69d).
    dsa_learnable_sink: config.json's `learnable_sink` for a local DSA target whose DSA
        backends are read (graphfit.inputs.sglang_hisparse_class): with sinks SGLang's
        resolution requires flashmla_sparse for every named backend and keeps a bfloat16
        cache (overrides.py:524-538, 642-656; graphfit.planner.engines.sglang_dsa_backends;
        issue 23 s69m). None: not read.
    gelu_moe_target: the target is a Gemma 4 model whose text config sets
        `enable_moe_block`, so its decoder layers build Gemma4MoE with GELU experts
        (models/gemma4_causal.py:640-653, 236, 285-295): under a DeepGEMM runner its build
        meets DeepGemmRunnerCore's SiLU assert (graphfit.planner.engines.
        sglang_draft_gelu_runner.target_problem; issue 23 s69l).
    draft_mtp_experts_algo: a ModelOpt MIXED_PRECISION Qwen3.5 / Qwen4-Exp MTP draft's
        `quantized_layers` algorithm for its experts, `mtp.layers.0.mlp.experts`, as
        `_resolve_quant_algo` finds it (modelopt_quant.py:978-1008), "unlisted" where no entry
        names them (graphfit.inputs.sglang_mtp_mixed_experts): FP8 or unlisted experts run
        triton whatever humming / flashinfer_cutedsl was asked for
        (graphfit.planner.engines.sglang_draft_runner_swap; issue 23 s70d). None: not read.
    mori_ep_v2: SGLANG_MORI_EP_V2 as the line's environment sets it: None unset, False a
        value SGLang's EnvBool reads false, True any other value (true, or one it cannot
        parse, which reads its default, true; environ.py:67-89, 933). Whether the runners
        then see MoRI EPv2 depends on the target's a2a hook (graphfit.planner.engines.
        sglang_mori_ep; issue 23 s70j).
    mori_recv_bound: SGLANG_MORI_RECV_BOUND as the line's environment sets it (an EnvBool,
        off; a value it cannot parse reads off, environ.py:939): on, a mori runner keeps the
        MLP gather's DP bookkeeping (utils/common.py:4113-4123; sglang_mori_ep, s70j).
    context_length_read: max_model_len is SGLang's context length for the line (given as
        `--context-length`, or read from a local config.json by get_context_length), not
        graphfit's own default. Kimi-K3's MegaMoE rows with chunked prefill off are bounded
        by it (graphfit.planner.engines.sglang_kimi_megamoe; issue 23 s70l).
    draft_nextn_unquantized: why a DeepSeek-V3 / GLM-5-Next NextN draft's layer is built with
        no quantization config (graphfit.inputs.sglang_nextn_excludes): "ignore" where
        GLM-5-Next's config.json `ignore` lists `model.layers.{n}.*` (glm5_next_nextn.py:
        49-68: any method), "quark" where the Quark `exclude` list matches the NextN layer
        (deepseek_nextn.py:265-275: a Quark draft only). None: kept or not read (issue 23 s70p).
    mori_use_aiter: SGLANG_USE_AITER as the line's environment sets it (an EnvBool, off,
        environ.py:949). With it on an unset SGLANG_MORI_EP_V2 can stay on EPv2
        (arg_groups/moe_hook.py:819-820; sglang_mori_ep, issue 23 s70s).
    mori_sdma: MORI_ENABLE_SDMA read by get_bool_env_var (true / 1; utils/common.py:1424-1440):
        on, an unset SGLANG_MORI_EP_V2 falls back to EPv1 (moe_hook.py:821-822; s70s).
    """

    engine: ClassVar[str] = "sglang"
    label: ClassVar[str] = "SGLang"

    gpu_memory_gb: float | None = None
    tp_size: int = 1
    attn_dp_size: int = 1
    attn_cp_size: int = 1
    two_batch_overlap: bool = False
    cuda_graph_backend_prefill: str | None = None
    cuda_graph_max_bs_prefill: int | None = None
    cuda_graph_bs_prefill: tuple[int, ...] | None = None
    chunked_prefill_size: int | None = None
    full_prefill_max_req: int | None = None
    disaggregation_mode: str = "null"
    pp_size: int = 1
    max_total_tokens: int | None = None
    multi_layer_eagle: bool = False
    mtp_draft_backend: str | None = None
    single_cg_draft: bool = True
    frozen_kv_mtp: bool = False
    dflash_domino: bool = False
    dflash_selector_top_k: int | None = None
    speculative_adaptive: bool = False
    mem_fraction_static: float | None = None
    sm90: bool | None = None
    vision_layers: int | None = None
    vision_hidden_size: int | None = None
    max_mamba_cache_size: int | None = None
    disable_radix_cache: bool = False
    mamba_radix_cache_strategy: str = "auto"
    disable_overlap_schedule: bool = False
    page_size: int = 1
    moe_a2a_backend: str = "none"
    dspark_samples_anchor: bool = True
    mamba_state_shape: tuple[int, ...] | None = None
    mamba_ssm_dtype: str | None = None
    mamba_full_memory_ratio: float | None = None
    weights_gb: float | None = None
    preload_avail_gb: float | None = None
    mamba_memory_slots: int | None = None
    linear_attn_backend: str = "triton"
    mamba_track_interval: int = 256
    mamba_chunk_size: int | None = None
    mamba_layer_map: tuple[int, ...] | None = None
    mm_feature_transport: str | None = None
    mamba_conv_dtype: str | None = None
    pp_layer_partition: str | None = None
    vlm_cache_size_mb: int | None = None
    mm_feature_cache_mb: int | None = None
    enable_pd_role_switch: bool = False
    enable_unified_memory: bool = False
    enable_dp_lm_head: bool = False
    dp_spec_prefill_coordination: bool = False
    deepep_mode: str = "auto"
    moe_runner_backend: str = "auto"
    speculative_moe_a2a_backend: str | None = None
    dspark_proposal: str = "sampling"
    dspark_mid_fold: bool = False
    dspark_post_forward_graph: bool = False
    ragged_verify_mode: str = "static"
    dspark_target_layers: int | None = None
    dflash_lilicorr_top_k: int | None = None
    dflash_lilicorr_head: tuple[int, int, int] | None = None
    dflash_eager_sampler: bool = False
    vit: tuple[tuple[str, object], ...] | None = None
    sm100: bool | None = None
    quant_method: str | None = None
    quant_algo: str | None = None
    megamoe_tokens_per_rank: int = 8192
    mori_dispatch_tokens_per_rank: int = 4096
    pplx_dispatch_tokens_per_rank: int = 128
    deepep_v2_dispatch_tokens_per_rank: int = 128
    flashinfer_dispatch_tokens_per_rank: int | None = None
    moe_fp4_checkpoint: bool | None = False
    megamoe_combine_dtype: str = "bf16"
    megamoe_fc2_reduce: bool = False
    nvfp4_w4a16: bool = False
    post_capture_kv_sizing: bool | None = None
    post_capture_declined: bool = False
    checkpoint_quant_method: str | None = None
    checkpoint_quant_config: str | None = None
    gpu_capability: int | None = None
    decode_attention_backend: str | None = None
    draft_attention_backend: str | None = None
    mooncake_protocol: str = "rdma"
    disaggregation_transfer_backend: str = "mooncake"
    dynamic_chunking: bool = False
    max_prefill_tokens: int = 16384
    hybrid_swa: bool | None = None
    checkpoint_fp8_experts: bool | None = None
    kimi_mxfp4_pack: bool | None = None
    dsa_index_kpool: int = 1
    mamba_head_counts: tuple[int, int] | None = None
    enable_eplb: bool = False
    ep_num_redundant_experts: int = 0
    init_expert_location: str = "trivial"
    jit_deepgemm: bool = True
    hf_config_quant: str | None = None
    inkling_conv_state: tuple[int, ...] | None = None
    enable_scattered_sconv: bool = False
    prefill_max_requests: int | None = None
    ep_size: int = 1
    ep_join_mode: str | None = None
    ep_dispatch_algorithm: str | None = None
    moe_block_experts: tuple[int, ...] | None = None
    prefill_attention_backend: str | None = None
    disable_lazy_compaction: bool = False
    unified_switches: tuple[str, ...] | None = None
    moe_dp_size: int = 1
    elastic_ep_backend: str | None = None
    node_rank: int = 0
    ep_join_rank_offset: int = 0
    max_ep_size: int | None = None
    elastic_ep_initial_size: int | None = None
    eplb_algorithm: str = "auto"
    draft_vocab_size: int | None = None
    draft_dtype: str | None = None
    draft_extend_hidden_size: int | None = None
    swa_full_tokens_ratio: float | None = None
    swa_prefix_tails: int | None = None
    disaggregation_decode_extra_slots: int | None = None
    disaggregation_decode_enable_radix_cache: bool = False
    dsv4_pool_shape: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None
    dsv4_state_dtype: str | None = None
    dsv4_env_unmodelled: str | None = None
    dcp_size: int = 1
    dcp_comm_backend: str | None = None
    unified_linear: tuple[str | None, str, str] | None = None
    asymmetric_kv: bool | None = None
    hook_cudagraph_mode: str | None = None
    hook_prefill_backend: str | None = None
    enable_waterfill: bool = False
    dwdp_size: int = 1
    enable_aiter_allreduce_fusion: bool = False
    enable_deterministic_inference: bool = False
    rl_on_policy_target: str | None = None
    attention_backend_flag: str | None = None
    dp_replicas: int = 1
    enable_hisparse: bool = False
    dsv4_attn_backend: str | None = None
    enable_encoder_swa_bounded_replay: bool = False
    inkling_draft_conv_state: tuple[int, ...] | None = None
    nnodes: int = 1
    draft_quantization: str | None = None
    kv_cache_dtype: str | None = None
    draft_quant_config: str | None = None
    enable_mixed_chunk: bool = False
    enable_lora: bool = False
    enable_session_radix_cache: bool = False
    minimax_sparse_kv: tuple[int, ...] | None = None
    dspark_draft_layers: int | None = None
    prefill_cp_strategy: str | None = None
    dspark_early_verify_metadata: bool = False
    draft_moe_class: str | None = None
    mnnvl_fabric: bool | None = None
    prefill_cp_hook_backend: str | None = None
    nixl_dispatch_tokens_per_rank: int = 128
    mooncake_dispatch_tokens_per_rank: int = 128
    nvfp4_moe_layers: str | None = None
    prefill_cp_family: str | None = None
    prefill_cp_given: tuple[int, int, int, int, str] | None = None
    cp_tp_group_sharing: bool = False
    speculative_moe_runner_backend: str | None = None
    enable_layernorm_sp: bool = False
    enable_megamoe_for_layernorm_sp: bool = False
    moe_nvfp4_dispatch: bool | None = None
    lora_backend: str | None = None
    lora_paths_given: bool = False
    max_lora_rank: int | None = None
    lora_target_modules_given: bool = False
    max_loras_per_batch: int = 8
    enable_lora_overlap_loading: bool = False
    max_loaded_loras: int | None = None
    lora_paths_count: int = 0
    lora_target_all_mixed: bool = False
    lora_drain_wait_threshold: float = 0.0
    enable_pdmux: bool = False
    lora_experimental_opti: bool = False
    overlap_plan_stream: bool = False
    lora_paths_invalid: str | None = None
    lora_disabled: bool = False
    draft_build_failure: str | None = None
    enable_torch_compile: bool = False
    pp_spec: bool = False
    server_flag_refusals: tuple[tuple[str, str], ...] | None = None
    dsa_checkpoint: bool | None = None
    dense_model: bool = False
    disable_attn_tp_gather: bool = False
    gpu_rocm: bool = False
    moe_dense_tp_size: int | None = None
    draft_mtp_unquantized: str | None = None
    target_build_failure: str | None = None
    model_chunk_off: bool | None = None
    dsa_backends: tuple[str | None, str | None] | None = None
    nvfp4_ckpt_fp8_nextn_moe: bool = False
    dsa_learnable_sink: bool | None = None
    gelu_moe_target: bool = False
    draft_mtp_experts_algo: str | None = None
    mori_ep_v2: bool | None = None
    mori_recv_bound: bool = False
    context_length_read: bool = False
    draft_nextn_unquantized: str | None = None
    mori_use_aiter: bool = False
    mori_sdma: bool = False

    def __post_init__(self) -> None:
        gb = self.gpu_memory_gb
        if gb is not None:
            if isinstance(gb, bool) or not isinstance(gb, (int, float)) or not gb > 0:
                raise ConfigError(f"gpu_memory_gb: must be a number > 0 (GiB), got {gb!r}")
            object.__setattr__(self, "gpu_memory_gb", float(gb))
        for name in ("tp_size", "attn_dp_size", "attn_cp_size", "dp_replicas"):
            positive_int(name, getattr(self, name))
        true_false("two_batch_overlap", self.two_batch_overlap)
        true_false("enable_hisparse", self.enable_hisparse)
        true_false("enable_encoder_swa_bounded_replay", self.enable_encoder_swa_bounded_replay)
        for name in ("enable_mixed_chunk", "enable_lora", "enable_session_radix_cache"):
            true_false(name, getattr(self, name))  # issue 23 s50k
        if self.dspark_draft_layers is not None:  # issue 23 s51k
            positive_int("dspark_draft_layers", self.dspark_draft_layers)
        if self.prefill_cp_strategy not in (None, "zigzag", "interleave"):  # issue 23 s54g
            raise ConfigError(f"prefill_cp_strategy: expected zigzag or interleave, got "
                              f"{excerpt(self.prefill_cp_strategy)}")
        true_false("dspark_early_verify_metadata", self.dspark_early_verify_metadata)
        if self.draft_moe_class is not None and self.draft_moe_class not in DRAFT_MOE_CLASSES:
            raise ConfigError(f"draft_moe_class: expected one of "
                              f"{', '.join(sorted(DRAFT_MOE_CLASSES))}, got "
                              f"{excerpt(self.draft_moe_class)}")  # issue 23 s54e
        failed = self.draft_build_failure  # issue 23 s67d
        if failed is not None and not (isinstance(failed, str) and 0 < len(failed) <= 200):
            raise ConfigError(f"draft_build_failure: expected one line of at most 200 "
                              f"characters, got {excerpt(failed)}")
        if self.draft_mtp_unquantized not in (None, "modelopt_fp4", "modelopt_mixed",
                                              "quark"):  # issue 23 s68d
            raise ConfigError(f"draft_mtp_unquantized: expected modelopt_fp4, modelopt_mixed "
                              f"or quark, got {excerpt(self.draft_mtp_unquantized)}")
        failed = self.target_build_failure  # issue 23 s68d
        if failed is not None and not (isinstance(failed, str) and 0 < len(failed) <= 200):
            raise ConfigError(f"target_build_failure: expected one line of at most 200 "
                              f"characters, got {excerpt(failed)}")
        if self.model_chunk_off is not None:  # issue 23 s69a
            true_false("model_chunk_off", self.model_chunk_off)
        _dsa_backends(self)  # issue 23 s69b
        if self.mnnvl_fabric is not None:  # issue 23 s55k
            true_false("mnnvl_fabric", self.mnnvl_fabric)
        if self.prefill_cp_family not in (None, "DSA", "MLA"):  # issue 23 s60p
            raise ConfigError(f"prefill_cp_family: expected DSA or MLA, got "
                              f"{excerpt(self.prefill_cp_family)}")
        _prefill_cp_given(self)
        true_false("cp_tp_group_sharing", self.cp_tp_group_sharing)  # issue 23 s63p
        runner = self.speculative_moe_runner_backend
        if runner is not None:  # issue 23 s63d
            if not isinstance(runner, str) or not runner.strip():
                raise ConfigError(f"speculative_moe_runner_backend: must be a backend name, "
                                  f"got {excerpt(runner)}")
            object.__setattr__(self, "speculative_moe_runner_backend", runner.strip().lower())
        for name in ("enable_layernorm_sp", "enable_megamoe_for_layernorm_sp"):
            true_false(name, getattr(self, name))  # issue 23 s64k
        if self.moe_nvfp4_dispatch is not None:
            true_false("moe_nvfp4_dispatch", self.moe_nvfp4_dispatch)
        _lora_fields(self)  # issue 23 s65d
        _lora_limits(self)  # issue 23 s66l
        _lora_paths_invalid(self)  # issue 23 s67l
        true_false("lora_disabled", self.lora_disabled)  # issue 23 s67l
        for name in ("enable_torch_compile", "pp_spec"):
            true_false(name, getattr(self, name))  # issue 23 s67b
        _server_flag_refusals(self)  # issue 23 s68b
        if self.dsa_checkpoint is not None:
            true_false("dsa_checkpoint", self.dsa_checkpoint)
        true_false("dense_model", self.dense_model)  # issue 23 s68m
        true_false("disable_attn_tp_gather", self.disable_attn_tp_gather)  # issue 23 s68l
        true_false("gpu_rocm", self.gpu_rocm)  # issue 23 s68l
        dense = self.moe_dense_tp_size  # issue 23 s68p
        if dense is not None and (isinstance(dense, bool) or not isinstance(dense, int)
                                  or dense < 1):
            raise ConfigError(f"moe_dense_tp_size: must be None or an int >= 1, got "
                              f"{excerpt(dense)}")
        hook = self.prefill_cp_hook_backend  # issue 23 s55g
        if hook is not None and not (isinstance(hook, str) and 0 < len(hook) <= 40):
            raise ConfigError(f"prefill_cp_hook_backend: expected an attention backend name, "
                              f"got {excerpt(hook)}")
        quant = self.draft_quantization
        if quant is not None and not (isinstance(quant, str) and 0 < len(quant) <= 40):
            raise ConfigError(f"draft_quantization: expected a quantization method name, got "
                              f"{excerpt(self.draft_quantization)}")
        if self.draft_quant_config is not None:
            try:
                text = quant_config_text(self.draft_quant_config)
            except ConfigError as exc:  # named as this field, not the target's
                raise ConfigError(str(exc).replace("checkpoint_quant_config:",
                                                   "draft_quant_config:", 1)) from None
            object.__setattr__(self, "draft_quant_config", text)
        if self.kv_cache_dtype not in (None, *KV_CACHE_DTYPES):
            raise ConfigError(f"kv_cache_dtype: expected one of {', '.join(KV_CACHE_DTYPES)}, "
                              f"got {excerpt(self.kv_cache_dtype)}")
        if self.dsv4_attn_backend not in (None, "auto", "flashmla", "flashmla_mega", "trtllm"):
            raise ConfigError(f"dsv4_attn_backend: expected auto, flashmla, flashmla_mega or "
                              f"trtllm, got {excerpt(self.dsv4_attn_backend)}")
        true_false("multi_layer_eagle", self.multi_layer_eagle)
        true_false("single_cg_draft", self.single_cg_draft)
        if self.mtp_draft_backend is not None:
            object.__setattr__(self, "mtp_draft_backend",
                               check_draft_extend_backend(self.mtp_draft_backend))
        true_false("frozen_kv_mtp", self.frozen_kv_mtp)
        true_false("dflash_domino", self.dflash_domino)
        true_false("enable_pd_role_switch", self.enable_pd_role_switch)
        true_false("enable_unified_memory", self.enable_unified_memory)
        true_false("enable_dp_lm_head", self.enable_dp_lm_head)
        true_false("dp_spec_prefill_coordination", self.dp_spec_prefill_coordination)
        _optional_int("dflash_selector_top_k", self.dflash_selector_top_k, 1)
        true_false("speculative_adaptive", self.speculative_adaptive)
        true_false("dspark_samples_anchor", self.dspark_samples_anchor)
        if self.sm90 is not None:
            true_false("sm90", self.sm90)
        for name in ("vision_layers", "vision_hidden_size"):
            _optional_int(name, getattr(self, name), 1)
        set_ = object.__setattr__
        if not isinstance(self.moe_a2a_backend, str):
            raise ConfigError(f"moe_a2a_backend: must be a string, got "
                              f"{excerpt(self.moe_a2a_backend)}")
        set_(self, "moe_a2a_backend", check_backend(self.moe_a2a_backend))
        set_(self, "deepep_mode", check_deepep_mode(self.deepep_mode))
        set_(self, "moe_runner_backend", check_runner(self.moe_runner_backend))
        if self.moe_runner_backend == "megamoe":
            # an alias: the backend becomes megamoe, the runner auto, whatever backend was
            # given (handle_moe_runner_backend_alias, arg_groups/mega_moe_hook.py:259-276)
            set_(self, "moe_a2a_backend", "megamoe")
            set_(self, "moe_runner_backend", "auto")
        if self.sm100 is not None:
            true_false("sm100", self.sm100)
        for name in ("quant_method", "quant_algo", "checkpoint_quant_method"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(f"{name}: must be a non-empty string, got {excerpt(value)}")
        set_(self, "checkpoint_quant_config", quant_config_text(self.checkpoint_quant_config))
        _optional_int("gpu_capability", self.gpu_capability, 10)
        for name in ("checkpoint_fp8_experts", "kimi_mxfp4_pack"):
            if getattr(self, name) is not None:
                true_false(name, getattr(self, name))
        for name in ("decode_attention_backend", "draft_attention_backend",
                     "prefill_attention_backend"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, backend_name(name, getattr(self, name)))
        if self.attention_backend_flag is not None:
            object.__setattr__(self, "attention_backend_flag", backend_name(
                "attention_backend_flag", self.attention_backend_flag))
        positive_int("dsa_index_kpool", self.dsa_index_kpool)
        _draft_shape_inputs(self)
        for name in ("megamoe_tokens_per_rank", "mori_dispatch_tokens_per_rank",
                     "pplx_dispatch_tokens_per_rank", "deepep_v2_dispatch_tokens_per_rank",
                     "nixl_dispatch_tokens_per_rank", "mooncake_dispatch_tokens_per_rank"):
            # any sign, as SGLang reads them (issue 23 s60k: NixlEP / Mooncake; s63k the rest)
            if getattr(self, name) is None:
                raise ConfigError(f"{name}: must be an integer in {-MAX_INT}..{MAX_INT}, "
                                  f"got None")
            _optional_int(name, getattr(self, name), -MAX_INT)
        _optional_int("flashinfer_dispatch_tokens_per_rank",
                      self.flashinfer_dispatch_tokens_per_rank, -MAX_INT)
        if self.moe_fp4_checkpoint is not None:
            true_false("moe_fp4_checkpoint", self.moe_fp4_checkpoint)
        if self.nvfp4_moe_layers not in (None, "first", "later", "none"):
            raise ConfigError(f"nvfp4_moe_layers: must be first, later or none, got "
                              f"{excerpt(self.nvfp4_moe_layers)}")
        true_false("megamoe_fc2_reduce", self.megamoe_fc2_reduce)
        true_false("nvfp4_w4a16", self.nvfp4_w4a16)
        if self.post_capture_kv_sizing is not None:
            true_false("post_capture_kv_sizing", self.post_capture_kv_sizing)
        true_false("post_capture_declined", self.post_capture_declined)
        _post_capture_inputs(self)
        if not isinstance(self.megamoe_combine_dtype, str):
            raise ConfigError(f"megamoe_combine_dtype: must be a string, got "
                              f"{excerpt(self.megamoe_combine_dtype)}")
        if self.speculative_moe_a2a_backend is not None:
            set_(self, "speculative_moe_a2a_backend",
                 check_draft_choice(self.speculative_moe_a2a_backend))
        _choice(self, "cuda_graph_backend_prefill", PREFILL_BACKENDS, optional=True)
        for name in ("cuda_graph_max_bs_prefill", "full_prefill_max_req"):
            _optional_int(name, getattr(self, name), 1)
        # any sign, as SGLang reads it: <= 0 turns chunking off (its checks read `> 0`,
        # validation_hook.py:243; PD multiplexing wants exactly -1, :253; issue 23 s68b)
        _optional_int("chunked_prefill_size", self.chunked_prefill_size, -MAX_INT)
        positive_int("pp_size", self.pp_size)
        # at least one request: the pool holds max_total_tokens // 2
        # (kv_cache_configurator.py:3129)
        _optional_int("max_total_tokens", self.max_total_tokens, 2)
        set_(self, "cuda_graph_bs_prefill",
             sizes("cuda_graph_bs_prefill", self.cuda_graph_bs_prefill))
        _choice(self, "disaggregation_mode", DISAGGREGATION_MODES)
        _optional_int("max_mamba_cache_size", self.max_mamba_cache_size, 1)
        true_false("disable_radix_cache", self.disable_radix_cache)
        true_false("disable_overlap_schedule", self.disable_overlap_schedule)
        positive_int("page_size", self.page_size)
        _choice(self, "mamba_radix_cache_strategy", MAMBA_STRATEGIES)
        _mamba_memory_inputs(self)
        _unified_inputs(self)
        _hook_graphs(self)
        _optional_int("mamba_memory_slots", self.mamba_memory_slots, 1)
        _choice(self, "linear_attn_backend", LINEAR_ATTN_BACKENDS)
        positive_int("mamba_track_interval", self.mamba_track_interval)
        _optional_int("mamba_chunk_size", self.mamba_chunk_size, 1)
        fraction = self.mem_fraction_static
        if fraction is not None:
            if (isinstance(fraction, bool) or not isinstance(fraction, (int, float))
                    or not 0 < fraction < 1):
                raise ConfigError(f"mem_fraction_static: must be a number in (0, 1), got "
                                  f"{excerpt(fraction)}")
            set_(self, "mem_fraction_static", float(fraction))
        if self.vit is not None:
            from graphfit.planner.engines.sglang_vit_keyed import vit_option, vit_pairs

            set_(self, "vit", vit_pairs(*vit_option(self.vit)))
        _block_draft_modes(self)
        _expert_remap_inputs(self)
        _dsv4_pool_inputs(self)
        true_false("nvfp4_ckpt_fp8_nextn_moe", self.nvfp4_ckpt_fp8_nextn_moe)  # issue 23 s69d
        if self.dsa_learnable_sink is not None:  # issue 23 s69m
            true_false("dsa_learnable_sink", self.dsa_learnable_sink)
        true_false("gelu_moe_target", self.gelu_moe_target)  # issue 23 s69l
        algo = self.draft_mtp_experts_algo  # issue 23 s70d
        if algo is not None and (not isinstance(algo, str) or not 0 < len(algo) <= 40):
            raise ConfigError(f"draft_mtp_experts_algo: expected an algorithm name or "
                              f"unlisted, got {excerpt(algo)}")
        if self.mori_ep_v2 is not None:  # issue 23 s70j
            true_false("mori_ep_v2", self.mori_ep_v2)
        true_false("mori_recv_bound", self.mori_recv_bound)  # issue 23 s70j
        true_false("context_length_read", self.context_length_read)  # issue 23 s70l
        if self.draft_nextn_unquantized not in (None, "ignore", "quark"):  # issue 23 s70p
            raise ConfigError(f"draft_nextn_unquantized: expected ignore or quark, got "
                              f"{excerpt(self.draft_nextn_unquantized)}")
        true_false("mori_use_aiter", self.mori_use_aiter)  # issue 23 s70s
        true_false("mori_sdma", self.mori_sdma)  # issue 23 s70s


def _expert_remap_inputs(options: SglangOptions) -> None:
    """Validate the expert-remap flags and SGLANG_ENABLE_JIT_DEEPGEMM (sglang_model_quant
    reads them for Nemotron-H's and HYV4's MoE runner picks)."""
    true_false("enable_eplb", options.enable_eplb)
    true_false("jit_deepgemm", options.jit_deepgemm)
    if options.hf_config_quant not in (None, "absent"):
        try:
            text = quant_config_text(options.hf_config_quant)
        except ConfigError as exc:
            raise ConfigError(str(exc).replace("checkpoint_quant_config", "hf_config_quant",
                                               1)) from None
        object.__setattr__(options, "hf_config_quant", text)
    if options.ep_num_redundant_experts is None:
        raise ConfigError("ep_num_redundant_experts: must be an integer >= 0, got None")
    _optional_int("ep_num_redundant_experts", options.ep_num_redundant_experts, 0)
    location = options.init_expert_location
    if not isinstance(location, str) or not location.strip() or len(location) > 4096:
        raise ConfigError(f"init_expert_location: must be --init-expert-location's value (a "
                          f"string), got {excerpt(location)}")
    _eplb_inputs(options)


def _block_draft_modes(options: SglangOptions) -> None:
    """Validate the DSPARK environment modes and the LiLiCorr draft's candidate width."""
    from graphfit.planner.engines.sglang_dspark_modes import PROPOSALS

    _choice(options, "dspark_proposal", PROPOSALS)
    true_false("dspark_mid_fold", options.dspark_mid_fold)
    true_false("dspark_post_forward_graph", options.dspark_post_forward_graph)
    mode = options.ragged_verify_mode
    if not isinstance(mode, str) or len(mode) > 64:
        raise ConfigError(f"ragged_verify_mode: must be SGLANG_RAGGED_VERIFY_MODE's value (a "
                          f"string), got {excerpt(mode)}")
    _optional_int("dspark_target_layers", options.dspark_target_layers, 1)
    _optional_int("dflash_lilicorr_top_k", options.dflash_lilicorr_top_k, 1)
    head = options.dflash_lilicorr_head
    if head is not None:  # [hidden (0: the draft's), heads, factor_dim]
        if isinstance(head, (str, bytes)) or not isinstance(head, (tuple, list)) \
                or len(head) != 3 or any(isinstance(v, bool) or not isinstance(v, int)
                                         or not 0 <= v <= MAX_INT for v in head) \
                or not head[1] >= 1 or not head[2] >= 1:
            raise ConfigError(f"dflash_lilicorr_head: expected [hidden_size >= 0, num_heads "
                              f">= 1, factor_dim >= 1], got {excerpt(head)}")
        object.__setattr__(options, "dflash_lilicorr_head", tuple(head))
    true_false("dflash_eager_sampler", options.dflash_eager_sampler)


def _mamba_memory_inputs(options: SglangOptions) -> None:
    """Validate the inputs of the state cache sized from memory (sglang_mamba_memory)."""
    from graphfit.planner.engines.sglang_mamba_memory import (
        SHAPE_FIELDS,
        SSM_DTYPE_BYTES,
        MambaStateShape,
    )

    set_ = object.__setattr__
    shape = options.mamba_state_shape
    if shape is not None:
        if isinstance(shape, (str, bytes)) or not isinstance(shape, (tuple, list)):
            raise ConfigError(f"mamba_state_shape: expected {len(SHAPE_FIELDS)} integers, "
                              f"got {excerpt(shape)}")
        for value in shape:  # 0 where MambaStateShape allows it (it checks which)
            _optional_int("mamba_state_shape", value, 0)
        try:
            MambaStateShape.of(tuple(shape))
        except ConfigError as exc:  # the field named first, as every option error is
            raise ConfigError(f"mamba_state_shape: {exc}") from None
        set_(options, "mamba_state_shape", tuple(shape))
    inkling = options.inkling_conv_state
    if inkling is not None:
        from graphfit.planner.engines.sglang_mamba_inkling import INKLING_FIELDS, InklingConvState

        if isinstance(inkling, (str, bytes)) or not isinstance(inkling, (tuple, list)):
            raise ConfigError(f"inkling_conv_state: expected {len(INKLING_FIELDS)} integers, "
                              f"got {excerpt(inkling)}")
        InklingConvState.of(tuple(inkling))
        set_(options, "inkling_conv_state", tuple(inkling))
    draft = options.inkling_draft_conv_state
    if draft is not None:
        from graphfit.planner.engines.sglang_mamba_inkling import INKLING_FIELDS, InklingConvState

        if isinstance(draft, (str, bytes)) or not isinstance(draft, (tuple, list)):
            raise ConfigError(f"inkling_draft_conv_state: expected {len(INKLING_FIELDS)} "
                              f"integers, got {excerpt(draft)}")
        try:
            InklingConvState.of(tuple(draft))
        except ConfigError as exc:
            why = str(exc).removeprefix("inkling_conv_state: ")  # the field named once
            raise ConfigError(f"inkling_draft_conv_state: {why}") from None
        set_(options, "inkling_draft_conv_state", tuple(draft))
    sparse_kv = options.minimax_sparse_kv
    if sparse_kv is not None:
        from graphfit.planner.engines.sglang_minimax_kv import HEADER, MiniMaxSparseKv

        if isinstance(sparse_kv, (str, bytes)) or not isinstance(sparse_kv, (tuple, list)) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in sparse_kv):
            raise ConfigError(f"minimax_sparse_kv: expected at least {HEADER} integers, got "
                              f"{excerpt(sparse_kv)}")
        try:
            MiniMaxSparseKv.of(tuple(sparse_kv))
        except ConfigError as exc:  # the option named first, as every option's error is
            why = str(exc).removeprefix("minimax_sparse_kv.")
            raise ConfigError(f"minimax_sparse_kv: {why}") from None
        set_(options, "minimax_sparse_kv", tuple(sparse_kv))
    if not isinstance(options.enable_scattered_sconv, bool):
        raise ConfigError(f"enable_scattered_sconv: expected true or false, got "
                          f"{excerpt(options.enable_scattered_sconv)}")
    counts = options.mamba_head_counts
    if counts is not None:
        if isinstance(counts, (str, bytes)) or not isinstance(counts, (tuple, list)) \
                or len(counts) != 2:
            raise ConfigError(f"mamba_head_counts: expected 2 integers (num_attention_heads, "
                              f"num_query_groups), got {excerpt(counts)}")
        for value in counts:  # None is no head count
            _optional_int("mamba_head_counts", 0 if value is None else value, 1)
        set_(options, "mamba_head_counts", tuple(counts))
    # below 1 the scheduler admits no prefill request (schedule_policy.py:1398)
    _optional_int("prefill_max_requests", options.prefill_max_requests, 1)
    layer_map = options.mamba_layer_map
    if layer_map is not None:
        if isinstance(layer_map, (str, bytes)) or not isinstance(layer_map, (tuple, list)) \
                or any(isinstance(v, bool) or v not in (0, 1) or not isinstance(v, int)
                       for v in layer_map) or 1 not in layer_map:
            raise ConfigError(f"mamba_layer_map: expected a 0 or 1 per model layer with at "
                              f"least one 1, got {excerpt(layer_map)}")
        set_(options, "mamba_layer_map", tuple(layer_map))
    _choice(options, "mm_feature_transport", ("cpu", "cuda_ipc", "cuda_vmm"), optional=True)
    _choice(options, "mamba_ssm_dtype", tuple(SSM_DTYPE_BYTES), optional=True)
    _choice(options, "mamba_conv_dtype", tuple(SSM_DTYPE_BYTES), optional=True)
    if options.pp_layer_partition is not None and not isinstance(options.pp_layer_partition,
                                                                 str):
        raise ConfigError(f"pp_layer_partition: expected the variable's text (comma-separated "
                          f"layer counts), got {excerpt(options.pp_layer_partition)}")
    _optional_int("vlm_cache_size_mb", options.vlm_cache_size_mb, 0)
    _optional_int("mm_feature_cache_mb", options.mm_feature_cache_mb, 0)
    for name in ("mamba_full_memory_ratio", "weights_gb", "preload_avail_gb"):
        value = getattr(options, name)
        if value is None:
            continue
        zero_ok = name == "weights_gb"
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        low_ok = number and (float(value) >= 0 if zero_ok else float(value) > 0)
        if not low_ok or not float(value) < float("inf"):
            raise ConfigError(f"{name}: must be a finite number {'>= 0' if zero_ok else '> 0'}"
                              f", got {excerpt(value)}")
        set_(options, name, float(value))


def _choice(options: SglangOptions, name: str, choices: Collection[str], *,
            optional: bool = False) -> None:
    """Validate a named option against its choices (any case, spaces trimmed) and store it in
    lower case; None passes when the option is optional."""
    value = getattr(options, name)
    if value is None and optional:
        return
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise ConfigError(f"{name}: {excerpt(value)} is not one of {', '.join(choices)}")
    object.__setattr__(options, name, value.strip().lower())


# --disaggregation-transfer-backend's choices (arg_groups/choices.py:122-129)
TRANSFER_BACKENDS = ("mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp")


def _post_capture_inputs(options: SglangOptions) -> None:
    """The s32k inputs of post-capture KV sizing (graphfit.planner.engines.
    sglang_post_capture): MOONCAKE_PROTOCOL, the transfer backend, PP dynamic chunking, the
    model's hybrid-SWA layout."""
    if not isinstance(options.mooncake_protocol, str):
        raise ConfigError(f"mooncake_protocol: must be a string, got "
                          f"{excerpt(options.mooncake_protocol)}")
    if options.disaggregation_transfer_backend not in TRANSFER_BACKENDS:
        raise ConfigError(f"disaggregation_transfer_backend: must be one of "
                          f"{', '.join(TRANSFER_BACKENDS)}, got "
                          f"{excerpt(options.disaggregation_transfer_backend)}")
    true_false("dynamic_chunking", options.dynamic_chunking)
    if options.max_prefill_tokens is None:
        raise ConfigError(f"max_prefill_tokens: must be an integer in 1..{MAX_INT}, got None")
    _optional_int("max_prefill_tokens", options.max_prefill_tokens, 1)
    if options.hybrid_swa is not None:
        true_false("hybrid_swa", options.hybrid_swa)


SERVER_FLAG_SLOTS = ("pipeline", "workers", "metrics", "ports")  # sglang_server_serving.SLOTS


def _server_flag_refusals(options: SglangOptions) -> None:
    """(slot, one line of at most 200 characters) pairs, one per slot, in SLOTS order; None:
    no refusal."""
    pairs = options.server_flag_refusals
    if pairs is None:
        return
    if isinstance(pairs, list):
        pairs = tuple(tuple(p) if isinstance(p, list) else p for p in pairs)
    ok = isinstance(pairs, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and p[0] in SERVER_FLAG_SLOTS
        and isinstance(p[1], str) and 0 < len(p[1]) <= 200 and "\n" not in p[1]
        for p in pairs)
    if not ok or [p[0] for p in pairs] != [s for s in SERVER_FLAG_SLOTS
                                           if s in {p[0] for p in pairs}]:
        raise ConfigError(f"server_flag_refusals: expected (slot, refusal) pairs, one per "
                          f"slot of {', '.join(SERVER_FLAG_SLOTS)}, got {excerpt(pairs)}")
    object.__setattr__(options, "server_flag_refusals", pairs)


def _optional_int(name: str, value: object, minimum: int) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or not minimum <= value <= MAX_INT):
        raise ConfigError(f"{name}: must be an integer in {minimum}..{MAX_INT}, got "
                          f"{excerpt(value)}")


def _hook_graphs(options: SglangOptions) -> None:
    """Validate the graphs SGLang's memory hook sees under a graph-less attention backend."""
    mode = options.hook_cudagraph_mode
    if mode is not None:
        names = [m.value for m in CUDAGraphMode]
        if not isinstance(mode, str) or mode.strip().upper() not in names:
            raise ConfigError(f"hook_cudagraph_mode: {excerpt(mode)} is not one of "
                              f"{', '.join(names)}")
        object.__setattr__(options, "hook_cudagraph_mode", mode.strip().upper())
    _choice(options, "hook_prefill_backend", PREFILL_BACKENDS, optional=True)


def _unified_inputs(options: SglangOptions) -> None:
    """Validate --enable-unified-memory's switch inputs (sglang_unified_switches) and the
    DCP inputs (sglang_dcp)."""
    true_false("disable_lazy_compaction", options.disable_lazy_compaction)
    positive_int("dcp_size", options.dcp_size)
    positive_int("nnodes", options.nnodes)
    _choice(options, "dcp_comm_backend", ("a2a", "ag_rs", "fi_a2a"), optional=True)
    switches = options.unified_switches
    if switches is not None:
        if isinstance(switches, (str, bytes)) or not isinstance(switches, (tuple, list)) or any(
                not isinstance(name, str) or name not in SWITCHES for name in switches):
            raise ConfigError(f"unified_switches: expected names among {sorted(SWITCHES)}, "
                              f"got {excerpt(switches)}")
        object.__setattr__(options, "unified_switches", tuple(sorted(set(switches))))
    if options.asymmetric_kv is not None:
        true_false("asymmetric_kv", options.asymmetric_kv)
    linear = options.unified_linear
    if linear is None:
        return
    if (isinstance(linear, (str, bytes)) or not isinstance(linear, (tuple, list))
            or len(linear) != 3 or not (linear[0] is None or linear[0] in LINEAR_ATTN_BACKENDS)
            or linear[1] not in LINEAR_ATTN_BACKENDS or linear[2] not in MAMBA_BACKENDS):
        raise ConfigError(f"unified_linear: expected (decode backend or null, prefill "
                          f"backend, mamba backend), got {excerpt(linear)}")
    object.__setattr__(options, "unified_linear", tuple(linear))


__all__ = ["SglangOptions"]


def _eplb_inputs(options: SglangOptions) -> None:
    """Validate EPLB's start-up inputs (graphfit.planner.engines.sglang_eplb_checks)."""
    positive_int("ep_size", options.ep_size)
    positive_int("moe_dp_size", options.moe_dp_size)
    _elastic_inputs(options)
    if not isinstance(options.enable_waterfill, bool):
        raise ConfigError(f"enable_waterfill: must be true or false, got "
                          f"{excerpt(options.enable_waterfill)}")
    _optional_int("dwdp_size", options.dwdp_size, -MAX_INT)
    if options.dwdp_size is None:
        raise ConfigError("dwdp_size: must be an integer, got None")
    for name in ("enable_aiter_allreduce_fusion", "enable_deterministic_inference"):
        if not isinstance(getattr(options, name), bool):
            raise ConfigError(f"{name}: must be true or false, got "
                              f"{excerpt(getattr(options, name))}")
    _choice(options, "rl_on_policy_target", ("fsdp",), optional=True)  # choices.py:192
    _choice(options, "ep_join_mode", ("scale", "recover"), optional=True)
    _choice(options, "ep_dispatch_algorithm", ("dynamic", "fake", "lp", "static"),
            optional=True)
    counts = options.moe_block_experts
    if counts is not None:
        if isinstance(counts, (str, bytes)) or not isinstance(counts, (tuple, list)) or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in counts):
            raise ConfigError(f"moe_block_experts: must be a list of routed-expert counts "
                              f"(integers >= 1), got {excerpt(counts)}")
        object.__setattr__(options, "moe_block_experts", tuple(counts))


def _elastic_inputs(options: SglangOptions) -> None:
    """Validate elastic EP's start-up inputs (graphfit.planner.engines.sglang_elastic_ep)."""
    _choice(options, "elastic_ep_backend", ("mooncake", "nixl", "none"), optional=True)
    _optional_int("node_rank", options.node_rank, 0)
    if options.node_rank is None:
        raise ConfigError(f"node_rank: must be an integer in 0..{MAX_INT}, got None")
    _optional_int("ep_join_rank_offset", options.ep_join_rank_offset, -MAX_INT)
    if options.ep_join_rank_offset is None:
        raise ConfigError("ep_join_rank_offset: must be an integer, got None")
    _optional_int("max_ep_size", options.max_ep_size, -MAX_INT)
    _optional_int("elastic_ep_initial_size", options.elastic_ep_initial_size, -MAX_INT)
    algorithm = options.eplb_algorithm
    if not isinstance(algorithm, str) or not algorithm.strip() or len(algorithm) > 64:
        raise ConfigError(f"eplb_algorithm: must be a name, got {excerpt(algorithm)}")


DRAFT_DTYPES = ("float16", "bfloat16", "float32")  # _STR_DTYPE_TO_TORCH_DTYPE's values


def _draft_shape_inputs(options: SglangOptions) -> None:
    """Validate the draft's own vocabulary, dtype and aux width (graphfit.inputs.
    sglang_draft_shape)."""
    _optional_int("draft_vocab_size", options.draft_vocab_size, 1)
    _optional_int("draft_extend_hidden_size", options.draft_extend_hidden_size, 1)
    if options.draft_dtype is not None:
        _choice(options, "draft_dtype", DRAFT_DTYPES)


def _dsv4_pool_inputs(options: SglangOptions) -> None:
    """Validate DeepSeek-V4's KV pool inputs (graphfit.planner.engines.sglang_dsv4_plan)."""
    ratio = options.swa_full_tokens_ratio
    if ratio is not None:
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) \
                or not 0 < ratio <= 1.0:  # kv_cache_hook.py:427-428
            raise ConfigError(f"swa_full_tokens_ratio: must be a number in (0, 1.0], got "
                              f"{excerpt(ratio)}")
        object.__setattr__(options, "swa_full_tokens_ratio", float(ratio))
    _optional_int("swa_prefix_tails", options.swa_prefix_tails, 0)
    _optional_int("disaggregation_decode_extra_slots",
                  options.disaggregation_decode_extra_slots, -MAX_INT)  # any int (disagg.py)
    true_false("disaggregation_decode_enable_radix_cache",
               options.disaggregation_decode_enable_radix_cache)
    for name in ("dsv4_state_dtype", "dsv4_env_unmodelled"):
        value = getattr(options, name)
        if value is not None and (not isinstance(value, str) or len(value) > 200):
            raise ConfigError(f"{name}: must be a string (at most 200 characters), got "
                              f"{excerpt(value)}")
    shape = options.dsv4_pool_shape
    if shape is None:
        return
    from graphfit.planner.engines.sglang_dsv4_pool import Dsv4Shape

    def ints(part: object) -> tuple[int, ...]:
        if isinstance(part, (str, bytes)) or not isinstance(part, (tuple, list)) or any(
                isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_INT
                for v in part):
            raise ConfigError(f"dsv4_pool_shape: expected [[nope, rope, index, window, v41], "
                              f"[ratios], [kv source layers]] of integers, got "
                              f"{excerpt(shape)}")
        return tuple(part)

    if isinstance(shape, (str, bytes)) or not isinstance(shape, (tuple, list)) \
            or len(shape) != 3:
        raise ConfigError(f"dsv4_pool_shape: expected [[nope, rope, index, window, v41], "
                          f"[ratios], [kv source layers]], got {excerpt(shape)}")
    head, ratios, sources = (ints(part) for part in shape)
    if len(head) != 5 or head[4] not in (0, 1):
        raise ConfigError(f"dsv4_pool_shape: expected [nope, rope, index, window, v41 0 or 1] "
                          f"first, got {excerpt(list(head))}")
    try:
        Dsv4Shape(head[0], head[1], head[2], ratios, sources, head[3], 1)
    except ConfigError as exc:  # the field named first, as every option error is
        raise ConfigError(f"dsv4_pool_shape: {exc}") from None
    object.__setattr__(options, "dsv4_pool_shape", (head, ratios, sources))


def _lora_fields(options: SglangOptions) -> None:
    """The LoRA flags' types (issue 23 s65d)."""
    backend = options.lora_backend
    if backend is not None:
        if not isinstance(backend, str) or not 0 < len(backend.strip()) <= 40:
            raise ConfigError(f"lora_backend: must be a LoRA backend name, got {excerpt(backend)}")
        object.__setattr__(options, "lora_backend", backend.strip().lower())
    true_false("lora_paths_given", options.lora_paths_given)
    true_false("lora_target_modules_given", options.lora_target_modules_given)
    rank = options.max_lora_rank
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int)
                             or not 0 <= rank <= MAX_INT):
        raise ConfigError(f"max_lora_rank: must be an integer >= 0, got {excerpt(rank)}")


def _lora_limits(options: SglangOptions) -> None:
    """The rest of the LoRA flags' types (issue 23 s66l): integers of any sign and a finite
    number, since SGLang's own asserts decide what they may hold."""
    for name in ("max_loras_per_batch", "max_loaded_loras", "lora_paths_count"):
        value = getattr(options, name)
        low = 0 if name == "lora_paths_count" else -MAX_INT
        if (value is None and name == "max_loaded_loras") or (
                not isinstance(value, bool) and isinstance(value, int) and low <= value <= MAX_INT):
            continue
        raise ConfigError(f"{name}: must be an integer{' >= 0' if low == 0 else ''}, "
                          f"got {excerpt(value)}")
    drain = options.lora_drain_wait_threshold
    if isinstance(drain, bool) or not isinstance(drain, (int, float)) or not math.isfinite(drain):
        raise ConfigError(f"lora_drain_wait_threshold: must be a finite number, got "
                          f"{excerpt(drain)}")
    object.__setattr__(options, "lora_drain_wait_threshold", float(drain))
    for name in ("enable_lora_overlap_loading", "lora_target_all_mixed", "enable_pdmux",
                 "lora_experimental_opti", "overlap_plan_stream"):
        true_false(name, getattr(options, name))


def _lora_paths_invalid(options: SglangOptions) -> None:
    """SglangOptions.lora_paths_invalid: None or SGLang's refusal, one short line (it becomes
    graphfit's error line)."""
    said = options.lora_paths_invalid
    if said is not None and not (isinstance(said, str) and 0 < len(said) <= 160
                                 and "\n" not in said):
        raise ConfigError(f"lora_paths_invalid: expected None or one line of at most 160 "
                          f"characters, got {excerpt(said)}")


def _prefill_cp_given(options: SglangOptions) -> None:
    """SglangOptions.prefill_cp_given: four positive widths and an all-to-all backend name
    (a list, as a plan document writes it, is read as the tuple)."""
    given = options.prefill_cp_given
    if given is None:
        return
    if not (isinstance(given, (tuple, list)) and len(given) == 5
            and isinstance(given[4], str) and 0 < len(given[4]) <= 40
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                    for v in given[:4])):
        raise ConfigError(f"prefill_cp_given: expected (attn_dp_size, dp_replicas, "
                          f"attn_cp_size, ep_size, moe_a2a_backend), got {excerpt(given)}")
    object.__setattr__(options, "prefill_cp_given", tuple(given))


def _dsa_backends(options: SglangOptions) -> None:
    """SglangOptions.dsa_backends: None or a (prefill, decode) pair, each None or one of the
    `--dsa-*-backend` flags' choices (a list, as a plan document writes it, is read as the
    tuple)."""
    from graphfit.planner.engines.sglang_hisparse_dsa import DSA_BACKENDS

    given = options.dsa_backends
    if given is None:
        return
    if not (isinstance(given, (tuple, list)) and len(given) == 2
            and all(v is None or v in DSA_BACKENDS for v in given)):
        raise ConfigError(f"dsa_backends: expected (prefill, decode), each None or one of "
                          f"{', '.join(sorted(DSA_BACKENDS))}; got {excerpt(given)}")
    object.__setattr__(options, "dsa_backends", tuple(given))
