"""A DeepSeek-V4 / V4.1 plan's KV pools and request pool as SGLang 0.5.23 sizes them: the
restated `DSV4PoolConfigurator` (graphfit.planner.engines.sglang_dsv4_pool) fed from the plan's
resolved config, so the request pool the graph runners are bounded by is SGLang's
`resolve_max_num_reqs` over the full KV pool (kv_cache_configurator.py:3119-3133, 3182-3189).

Resolution (SGLang's order, arg_groups/pipeline.py): the PD hook first defaults a decode
server's `--disaggregation-decode-extra-slots` from the LINE's `--max-running-requests` per DP
rank -- replicas (`--dp-size`) x attention DP, `num_dp_ranks_of`, runtime_context.py:202-207
(pd_disaggregation_hook.py:128-142, before any default exists); a negative count is taken as
given (`check_slots` refuses one that leaves no request slot), then DeepSeek-V4's model hook
sets `--max-running-requests` 256 when the line gives none (deepseek_v4_hook.py:138-144, from
model_hook.py:258-265), before the speculative hook, whose 48 then never applies
(speculative_hook's default fills only an unset value). The memory hook ran before both
(pipeline.py:218 vs :225), so the default decode max_bs is not clamped to 256: SGLang's
cuda_graph_config.decode.bs keeps it and the runners cut it at the pool.

The pools are sized from the byte budget `_profile_available_bytes` hands the configurator
(kv_cache_configurator.py:2990-3060): graphfit takes the weights' size (`--weights-gb`) and
the free memory before loading (`--preload-avail-gb`, else the GPU's whole memory, as for the
mamba state cache) with the resolved `mem_fraction_static`. Where an input is missing or the
line takes a path graphfit does not restate (`why_not`), the plan says so and the request
pool stays `--max-running-requests` per attention-DP group, as before. `--max-total-tokens`
below what the budget buys re-derives the pools from that count (`capped`).

The decode server's radix cache (`--disaggregation-decode-enable-radix-cache`) is read for
DeepSeek-V4 (it keeps prefix tails in the SWA pool, pool_configurator.py:1309-1326) with
SGLang's refusals (pd_disaggregation_hook.py:99-109, speculative_hook.py:163-173); for another
model it stays refused as not modelled (the hybrid mamba pools read the radix cache,
graphfit.planner.engines.sglang_mamba_pool.radix_off).
"""

from __future__ import annotations

from dataclasses import replace

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_dsv4_default import (
    V4_LAYOUT,
    default_backend,
    trtllm_dtype_refusal,
)
from graphfit.planner.engines.sglang_dsv4_pool import (
    AUTO_LAYOUT,
    DEFAULT_MAX_RUNNING_REQUESTS,
    INDEX_PAGE,
    PAGE_SIZE,
    STATE_DTYPE_BYTES,
    Dsv4Pool,
    Dsv4Pools,
    Dsv4Shape,
    budget_bytes,
    decode_extra_slots,
    resolved_inputs,
)
from graphfit.planner.engines.sglang_dsv4_stages import stage_ranges, stage_shape
from graphfit.planner.engines.sglang_kv_requests import kv_request_pool

DEEPSEEK_V4 = "DeepseekV4ForCausalLM"
# DSV41_INDEX_PAGE_SIZE where DeepGEMM has the paged sparse MQA logits (assumed on SM100)
SM100_INDEX_PAGE = 128
RADIX = "disaggregation_decode_enable_radix_cache"
# --speculative-algorithm values the decode radix cache accepts (speculative_hook.py:163-173;
# NEXTN is EAGLE by then)
RADIX_ALGORITHMS = (SpecMethod.NONE, SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP,
                    SpecMethod.DSPARK)


def applies(config: EngineSettings) -> bool:
    return config.architecture == DEEPSEEK_V4


def check(config: EngineSettings) -> None:
    """A DeepSeek-V4 line's SGLANG_DSV4_COMPRESS_STATE_DTYPE outside SGLang's four names
    (pool_configurator.py:136-145, whatever graphfit knows of the memory); the decode radix
    cache's refusals in SGLang's order: the PD hook's (pd_disaggregation_hook.py:99-109, with
    `--enable-hisparse` (s45k) or the fake transfer backend, any model), DeepSeek-V4.1's
    (`check_v41`), the speculative hook's (speculative_hook.py:163-173 with an algorithm other
    than EAGLE / EAGLE3 / NEXTN / DSPARK), then graphfit's for a model other than
    DeepSeek-V4."""
    dtype = config.dsv4_state_dtype
    if applies(config) and dtype is not None \
            and dtype.strip().lower() not in STATE_DTYPE_BYTES:
        raise ConfigError(f"Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE="
                          f"{dtype.strip().lower()!r}. Expected one of: float32, fp32, "
                          f"bfloat16, bf16. (SGLang pool_configurator.py:136-145)")
    radix = config.disaggregation_decode_enable_radix_cache \
        and config.disaggregation_mode == "decode"
    # the PD hook's refusals run before the model hook's V4.1 ones (pipeline.py:147 vs 225)
    if radix and config.enable_hisparse:
        raise ConfigError("--disaggregation-decode-enable-radix-cache is incompatible with "
                          "--enable-hisparse (SGLang pd_disaggregation_hook.py:100-104)")
    if radix and config.disaggregation_transfer_backend == "fake":
        raise ConfigError("--disaggregation-decode-enable-radix-cache is incompatible with "
                          "--disaggregation-transfer-backend fake (SGLang "
                          "pd_disaggregation_hook.py:105-109)")
    check_backend(config)  # the model hook: DeepSeek-V4's defaults (model_hook.py:265)
    check_v41(config)  # then V4.1's features (model_hook.py:470-479), before the speculative
    # hook's
    if not radix:
        return
    if config.spec_method not in RADIX_ALGORITHMS or config.frozen_kv_mtp:
        name = "FROZEN_KV_MTP" if config.frozen_kv_mtp else {
            SpecMethod.DRAFT_MODEL: "STANDALONE"}.get(config.spec_method,
                                                      config.spec_method.name)
        raise ConfigError(f"--disaggregation-decode-enable-radix-cache is incompatible with "
                          f"speculative decoding (--speculative-algorithm {name}) (SGLang "
                          f"speculative_hook.py:163-173)")
    if not applies(config):
        raise ConfigError("--disaggregation-decode-enable-radix-cache: True is not modelled "
                          "(the decode server's experimental radix cache, "
                          "pd_disaggregation_hook.py:99; graphfit reads it for DeepSeek-V4 only)")


def _sm100(config: EngineSettings) -> bool | None:
    """SGLang's `is_sm100_supported()` (capability 10.x, utils/common.py:309-313) for the
    named GPU; None: no GPU named."""
    if config.sm100 is not None:
        return bool(config.sm100)
    if config.gpu_capability is None:
        return None
    return config.gpu_capability // 10 == 10


def check_backend(config: EngineSettings) -> None:
    """`--dsv4-attn-backend`'s start-up asserts on a DeepSeek-V4 model
    (`apply_deepseek_v4_defaults`, deepseek_v4_hook.py:92-130, in that order): flashmla_mega
    needs a V4.1 model on SM100 (:92-99); trtllm an SM100 GPU (:101-106), no HiSparse
    (:112-114), no attention / decode CP (:115-120) and no PD role (:123-126). An SM100-only
    assert is checked where the GPU is named; trtllm's later asserts hold on any GPU (off SM100
    the first one refuses the line anyway). trtllm's KV dtype (:108-111, the resolved
    --kv-cache-dtype: sglang_dsv4_default; s48k) follows the SM100 assert; chunked prefill
    off (`--chunked-prefill-size` <= 0, :127-131) is the last (issue 23 s68b)."""
    from graphfit.planner.engines.sglang_prefill import chunking_off

    name = config.dsv4_attn_backend
    if not applies(config) or name not in ("flashmla_mega", "trtllm"):
        return
    sm100, shape = _sm100(config), config.dsv4_pool_shape
    where = "(SGLang deepseek_v4_hook.py"
    if name == "flashmla_mega":
        if sm100 is False or (shape is not None and not shape[0][4]):
            raise ConfigError(f"--dsv4-attn-backend flashmla_mega requires DeepSeek-V4.1 on "
                              f"SM100/SM103. {where}:92-99)")
        return
    if sm100 is False:
        raise ConfigError(f"--dsv4-attn-backend trtllm requires an SM100/SM103 (Blackwell) "
                          f"GPU. {where}:101-106)")
    dtype = trtllm_dtype_refusal(config)  # the KV dtype as resolved (s48k)
    if dtype is not None:
        raise ConfigError(f"{dtype} {where}:108-111)")
    for why, lines, on in (
            ("does not support enable_hisparse", "112-114", config.enable_hisparse),
            ("does not support context parallelism (prefill CP, attention CP, or decode CP)",
             "115-120", config.attn_cp_size > 1 or config.dcp_size > 1),
            ("does not support PD disaggregation yet", "123-126",
             config.disaggregation_mode != "null"),
            ("requires chunked prefill (--chunked-prefill-size > 0)", "127-131",
             chunking_off(config.chunked_prefill_size))):
        if on:
            raise ConfigError(f"--dsv4-attn-backend trtllm {why}. {where}:{lines})")


def check_v41(config: EngineSettings) -> None:
    """DeepSeek-V4.1 (a local config.json of model_type deepseek_v41): SGLang's feature
    refusals in its order (`validate_deepseek_v41_features`, deepseek_v4_hook.py:333-353):
    speculation other than DSPARK (EAGLE topk 1: the others are refused before, :148-158),
    HiSparse, TRT-LLM with encoder replay (both s45k), two-batch overlap, pipeline
    parallelism; on a DeepSeek-V4 model (not V4.1), `--enable-encoder-swa-bounded-replay`
    (:276-280, s45k). Before the list, V4.1's trtllm prefill-graph rule and encoder replay's
    own refusals (`check_replay`), after it encoder replay's chunk budget
    (`check_replay_budget`; both s47k). (The unified KV layout is HIP's.)"""
    shape = config.dsv4_pool_shape
    if not applies(config) or shape is None:
        return
    if not shape[0][4]:  # a DeepSeek-V4 model (:276-280; s45k)
        if config.enable_encoder_swa_bounded_replay:
            raise ConfigError("--enable-encoder-swa-bounded-replay requires DeepSeek-V4.1 "
                              "(SGLang deepseek_v4_hook.py:276-280)")
        return
    check_replay(config)  # :282-330 come before the feature list (s47k)
    for feature, on in (
            ("speculative decoding other than DSpark",
             config.spec_method not in (SpecMethod.NONE, SpecMethod.DSPARK)
             or config.frozen_kv_mtp),
            ("HiSparse", config.enable_hisparse),
            ("TRT-LLM with encoder SWA bounded replay",  # :341-344 (s45k)
             config.dsv4_attn_backend == "trtllm" and config.enable_encoder_swa_bounded_replay),
            ("two-batch overlap", config.two_batch_overlap),
            ("pipeline parallelism", config.pp_size > 1)):
        if on:
            raise ConfigError(f"DeepSeek-V4.1 does not support {feature} yet; disable it to "
                              f"serve this model. (SGLang deepseek_v4_hook.py:333-353)")
    check_replay_budget(config)  # model_hook.py:1038-1043, after the feature list


# the prefill CUDA graph backends V4.1's TRT-LLM and encoder replay accept
# (deepseek_v4_hook.py:282-290, 300-304; cuda_graph_config.py:40-48)
REPLAY_PREFILL = (None, "disabled", "breakable")


def check_replay(config: EngineSettings) -> None:
    """A DeepSeek-V4.1 line's prefill-graph and encoder-replay refusals (issue 23, s47k), in
    `validate_deepseek_v41_features`' order (deepseek_v4_hook.py:282-330): V4.1's TRT-LLM
    needs the prefill graphs disabled or breakable (:282-290); encoder replay refuses
    prefill graphs other than breakable (:300-304), context parallelism (:311), unified
    memory (:315), PD decode (:317), and then (issue 23 s50k) mixed prefill/decode (:323),
    LoRA (:324) and radix sessions (:325), each read as given: no hook before the model's
    turns them on (`--lora-paths` turns LoRA on only in the later validation hook,
    lora_hook.py:39-41, validation_hook.py:222). The prefill backend is the one the line
    gives (a disable flag gives disabled): SGLang's default passes at this point. Not
    restated: the ROCm clauses (graphfit plans CUDA)."""
    prefill = config.cuda_graph_backend_prefill
    if config.dsv4_attn_backend == "trtllm" and prefill not in REPLAY_PREFILL:
        raise ConfigError("DeepSeek-V4.1 TRT-LLM requires --cuda-graph-backend-prefill "
                          "disabled or breakable (SGLang deepseek_v4_hook.py:282-290)")
    if not config.enable_encoder_swa_bounded_replay:
        return
    for feature, on, line in (
            ("prefill CUDA graphs other than breakable", prefill not in REPLAY_PREFILL,
             "300-304"),
            ("context parallelism", config.attn_cp_size > 1, "311"),
            ("unified memory", config.enable_unified_memory, "315"),
            ("PD decode", config.disaggregation_mode == "decode", "317"),
            ("mixed prefill/decode", config.enable_mixed_chunk, "323"),
            ("LoRA", config.enable_lora, "324"),
            ("radix sessions", config.enable_session_radix_cache, "325")):
        if on:
            raise ConfigError(f"--enable-encoder-swa-bounded-replay does not support "
                              f"{feature} yet (SGLang deepseek_v4_hook.py:{line})")


def check_replay_budget(config: EngineSettings) -> None:
    """Encoder replay's chunk budget (`validate_deepseek_v41_encoder_replay_budget`,
    deepseek_v4_hook.py:250-267, run at model_hook.py:1038-1043 after the attention-DP split
    of the chunk, parallel_hook.py:326-332): at least 128 replay tokens plus one page
    (DeepSeek-V4's 256) of chunked prefill per attention-DP rank. The chunk is the line's or
    SGLang's default for the GPU's memory; with neither known, not checked. (graphfit takes
    --max-running-requests >= 1 only, the rule's other half.)"""
    from graphfit.planner.engines.sglang_prefill import default_chunked_prefill_size

    if not config.enable_encoder_swa_bounded_replay:
        return
    chunk = config.chunked_prefill_size
    if chunk is None and config.gpu_memory_gb is None:
        return
    chunk = default_chunked_prefill_size(config.gpu_memory_gb) if chunk is None else chunk
    per_rank = chunk // config.attn_dp_size if config.attn_dp_size > 1 else chunk
    least = 128 + PAGE_SIZE
    if per_rank < least:
        raise ConfigError(f"encoder SWA replay requires --max-running-requests > 0 and at "
                          f"least {least} chunked prefill tokens per attention DP rank (128 "
                          f"replay tokens plus one page); got {per_rank} (SGLang "
                          f"deepseek_v4_hook.py:250-267)")


def resolve(config: EngineSettings) -> dict[str, object]:
    """A DeepSeek-V4 line's request count and decode extra slots (module docstring)."""
    if not applies(config):
        return {}
    changes: dict[str, object] = {}
    if config.disaggregation_mode == "decode" \
            and config.disaggregation_decode_extra_slots is None:
        changes["disaggregation_decode_extra_slots"] = decode_extra_slots(
            None, config.max_num_seqs, config.dp_replicas * config.attn_dp_size)
    if config.max_num_seqs is None:
        changes["max_num_seqs"] = DEFAULT_MAX_RUNNING_REQUESTS
    return changes


# encoder replay beside a draft (V4.1 runs DSPARK only, deepseek_v4_hook.py:333-353): the
# draft's SWA ring in the window (pool_configurator.py:1200-1239) is sized from the draft
# checkpoint's layer count (SglangOptions.dspark_draft_layers, issue 23 s51k); said only
# when that count was not read (a draft config that is not local)
REPLAY_DRAFT = ("the encoder-replay SWA request window beside a DSPARK draft whose "
                "num_hidden_layers was not read")


def layout_unmodelled(config: EngineSettings) -> str | None:
    """Why graphfit does not restate this config's pool layout at all, or None.

    On SM100 (capability 10.x) the layout is `kv_layout`'s (issue 23, s47k): the V4 layout
    or the V4.1 layouts, with an indexer page of 128 assumed, a V4.1 model's default backend
    included (sglang_dsv4_default, s48k). A
    later Blackwell (a capability above 10.x) keeps s44k's reasons for the V4.1 layouts and
    the ratio-1 / 2 indexer pages. Elsewhere the environment's reasons stand
    (sglang_dsv4_pool.not_modelled). Encoder replay is sized without a draft, said beside a
    DSPARK draft whose layer count is known (issue 23 s51k), said otherwise (`REPLAY_DRAFT`)."""
    reason = config.dsv4_env_unmodelled
    sm100 = (config.gpu_capability or 0) >= 100 or bool(config.sm100)
    if reason is not None and reason not in (AUTO_LAYOUT, V4_LAYOUT):
        return reason
    if (config.enable_encoder_swa_bounded_replay and config.spec_method is not SpecMethod.NONE
            and replay_draft_layers(config) is None):
        return REPLAY_DRAFT
    if _sm100(config) is None and config.dsv4_attn_backend == "flashmla_mega":
        return ("--dsv4-attn-backend flashmla_mega's pools (the V4.1 layouts, SM100 only, "
                "deepseek_v4_hook.py:92-99: name the GPU)")
    if _sm100(config):  # SM100's layouts: `kv_layout` (issue 23, s47k, s48k)
        return None
    if not sm100:
        return None
    # a later Blackwell (SM120): the V4.1 layouts assert, the backend default differs
    head, ratios, _ = config.dsv4_pool_shape or ((0, 0, 0, 0, 0), (), ())
    if head[4] or reason == AUTO_LAYOUT:
        return "the V4.1 layouts off SM100 (deepseek_v4_memory_pool.py:228-234)"
    if any(ratio in (1, 2) for ratio in ratios):
        return ("the low-ratio indexer pages off SM100 (the installed DeepGEMM's, "
                "deep_gemm_wrapper/configurer.py:57-78)")
    return None


def kv_layout(config: EngineSettings) -> tuple[str, int]:
    """The main cache's layout and the low-ratio indexer page SGLang sizes with (issue 23,
    s47k). `select_dsv4_kv_layout` (deepseek_v4_memory_pool.py:198-234): SGLANG_DSV4_KV_LAYOUT
    (v4 by default, environ.py:1754) is v41 under `--dsv4-attn-backend flashmla_mega` --
    the default of a deepseek_v41 model on SM100 (`_default_dsv4_attention_backend`,
    deepseek_v4_hook.py:44-60, 85-90) -- and `auto` gives V4.1 on SM100 (capability 10.x,
    :215-219); V4.1's compressed caches follow (`compressed_layout`). The indexer page is
    128 where DeepGEMM has the paged sparse MQA logits, which needs SM100 and the installed
    DeepGEMM's two functions (`dsv41_index_page_size`, deepseek_v4_memory_pool.py:532-542;
    deep_gemm_wrapper/configurer.py:57-78): graphfit assumes it there and says so.

    A V4.1 model on SM100 without `--dsv4-attn-backend` (or with auto) takes SGLang's
    default (`sglang_dsv4_default.default_backend`: the KV dtype, attention TP, an explicit
    SGLANG_DSV4_KV_LAYOUT; issue 23, s48k)."""
    if not _sm100(config):
        return "v4", INDEX_PAGE
    if config.dsv4_env_unmodelled == AUTO_LAYOUT:  # V4.1 under flashmla and flashmla_mega
        return "v41", SM100_INDEX_PAGE
    v41_model = config.dsv4_pool_shape is not None and bool(config.dsv4_pool_shape[0][4])
    given = config.dsv4_attn_backend if config.dsv4_attn_backend != "auto" else None
    backend = given or (default_backend(config) if v41_model else "flashmla")
    return ("v41" if backend == "flashmla_mega" else "v4"), SM100_INDEX_PAGE


def why_not(config: EngineSettings) -> str | None:
    """Why graphfit does not size this (resolved) DeepSeek-V4 config's pools, or None."""
    from graphfit.planner.engines.sglang_reserve import post_capture

    layout = layout_unmodelled(config)
    if layout is not None:
        return layout
    if config.enable_unified_memory:  # refused before this by SGLang's page-major check
        return "--enable-unified-memory's pools"  # (kv_cache_hook.py:770-826) and graphfit's
    missing = [what for what, value in (
        ("--gpu-memory-gb", config.gpu_memory_gb), ("--weights-gb", config.weights_gb),
        ("the model directory's DeepSeek-V4 config.json", config.dsv4_pool_shape),
        ("mem_fraction_static", config.mem_fraction_static)) if value is None]
    if missing:
        why = f"needs {', '.join(missing)}"
        if config.weights_gb is None:  # the one figure SGLang measures (s47k)
            why += (" -- the weights' GiB per rank: SGLang sizes from the free memory it "
                    "measures after loading them (kv_cache_configurator.py:2990-3060), the "
                    "`mem usage` of its `Load weight end` log line (model_runner.py:"
                    "1365-1378)")
        return why
    if post_capture(config) is not False:  # never True: DeepSeek-V4 runs an MLA backend
        # (overrides.py:1809-1810); None where graphfit cannot answer
        return "post-capture KV sizing's budget (kv_cache_configurator.py:3020-3030)"
    return None


def pool_of(config: EngineSettings, stage: tuple[int, int] | None = None) -> Dsv4Pool:
    """The restated configurator for a (resolved) config whose shape is known; `stage`: the
    pipeline stage's `[start, end)` layers (sglang_dsv4_stages), None for all of them."""
    from graphfit.planner.engines.sglang_prefill import default_chunked_prefill_size

    assert config.dsv4_pool_shape is not None
    head, ratios, sources = config.dsv4_pool_shape
    shape = Dsv4Shape(head[0], head[1], head[2], ratios, sources, head[3],
                      config.max_model_len)
    if stage is not None:
        shape = stage_shape(shape, *stage)
    layout = kv_layout(config)
    spec = config.spec_method is not SpecMethod.NONE
    line = resolved_inputs(
        page_size=PAGE_SIZE, max_running_requests=config.max_num_seqs,
        draft_tokens=config.speculative_num_draft_tokens if spec else None,
        spec_steps=(config.num_speculative_tokens or None) if spec else None,
        attn_dp_size=config.attn_dp_size, dp_size=config.attn_dp_size,
        disaggregation_mode=config.disaggregation_mode,
        disaggregation_decode_extra_slots=config.disaggregation_decode_extra_slots,
        swa_full_tokens_ratio=config.swa_full_tokens_ratio,
        swa_prefix_tails=config.swa_prefix_tails,
        disable_radix_cache=config.disable_radix_cache,
        decode_radix_cache=config.disaggregation_decode_enable_radix_cache,
        chunked_prefill_size=(config.chunked_prefill_size
                              or default_chunked_prefill_size(config.gpu_memory_gb)),
        state_dtype=(config.dsv4_state_dtype or "float32").strip().lower(),
        model_type="deepseek_v41" if head[4] else "deepseek_v4",
        kv_layout=layout[0], index_page=layout[1],
        encoder_replay=config.enable_encoder_swa_bounded_replay,
        draft_ring_layers=(replay_draft_layers(config) or 0)
        if config.enable_encoder_swa_bounded_replay and spec else 0)
    return Dsv4Pool(shape, line)


def replay_draft_layers(config: EngineSettings) -> int | None:
    """The DSPARK draft's layers SGLang's configurator counts under encoder replay:
    `dspark_num_stages or dflash_draft_num_layers` (pool_configurator.py:1201-1208), i.e.
    the draft checkpoint's num_hidden_layers (spec_aux_hidden_state.py:219, 280), since
    `dspark_num_stages` is set only for a DeepSeek-V4 draft (:276-277), which graphfit's
    draft reader refuses as not modelled. None: not read, or not DSPARK (issue 23 s51k)."""
    if config.spec_method is not SpecMethod.DSPARK:
        return None
    return config.dspark_draft_layers


def pools(config: EngineSettings) -> Dsv4Pools | None:
    """SGLang's pool sizes for a resolved DeepSeek-V4 config (the first pipeline stage's;
    `stage_pools` has every stage's), None where `why_not` says; ConfigError where SGLang
    refuses the line."""
    every = stage_pools(config)
    return None if every is None else every[0]


def stages_of(config: EngineSettings) -> tuple[tuple[int, int], ...] | None:
    """The pipeline stages' layers (sglang_dsv4_stages.stage_ranges), None under one stage."""
    if config.pp_size <= 1 or config.dsv4_pool_shape is None:
        return None
    return stage_ranges(len(config.dsv4_pool_shape[1]), config.pp_size,
                        config.pp_layer_partition)


def stage_pools(config: EngineSettings) -> tuple[Dsv4Pools, ...] | None:
    """Each pipeline stage's pools (one entry under one stage): each stage sized from the
    budget over its own layers, the `--max-total-tokens` cap and the stages' minimum as
    `_apply_token_constraints` takes them (kv_cache_configurator.py:3096-3115), and every
    stage above that count re-derived from it (`config_from_budget`, :3211-3226)."""
    if not applies(config):
        return None
    if config.dsv4_pool_shape is not None and layout_unmodelled(config) is None:
        # SGLang's refusals that need no memory figure (the ring, a bad partition)
        per_stage = [pool_of(config, stage) for stage in stages_of(config) or [None]]
    if why_not(config) is not None:
        return None
    assert config.weights_gb is not None and config.gpu_memory_gb is not None
    assert config.mem_fraction_static is not None
    budget = budget_bytes(config.weights_gb, config.mem_fraction_static,
                          config.preload_avail_gb or config.gpu_memory_gb)
    sized = [pool.pools(budget) for pool in per_stage]
    agreed = agreed_tokens(sized, config.max_total_tokens)
    out = tuple(one if agreed >= one.full_tokens else capped(pool, one, agreed)
                for pool, one in zip(per_stage, sized, strict=True))
    for pool, one in zip(per_stage, out, strict=True):
        check_slots(pool, one)
    return out


def agreed_tokens(sized: list[Dsv4Pools], cap: int | None) -> int:
    """`_apply_token_constraints` (kv_cache_configurator.py:3090-3117): each stage's full
    count under the `--max-total-tokens` cap, then the minimum over the PP ranks."""
    agreed = min(one.full_tokens for one in sized)
    return agreed if cap is None else min(agreed, cap)


def check_slots(pool: Dsv4Pool, sized: Dsv4Pools) -> None:
    """A negative `--disaggregation-decode-extra-slots`: SGLang takes it (fields/disagg.py:
    113-116) and sizes the pools with it (`_get_num_req_slots`, pool_configurator.py:
    1504-1507; the SWA cap, :958-961), but its decode request pool then allocates request
    pool + extra + 1 rows, row 0 padding (`DecodeReqToTokenPool`, disaggregation/decode.py:
    198-211): with no free row it admits no request, below zero rows torch refuses the
    allocation. graphfit refuses both lines (SGLang's configurator does not)."""
    line = pool.line
    if line.disaggregation_mode != "decode" or line.decode_extra_slots >= 0:
        return
    rows = sized.request_pool + line.decode_extra_slots + 1  # `_alloc_size`, decode.py:200
    if rows < 0:
        raise ConfigError(f"--disaggregation-decode-extra-slots {line.decode_extra_slots}: "
                          f"SGLang's decode request pool would allocate {rows} rows "
                          f"(torch refuses a negative dimension; disaggregation/decode.py:"
                          f"200-209)")
    if rows <= 1:
        raise ConfigError(f"--disaggregation-decode-extra-slots {line.decode_extra_slots}: "
                          f"the decode request pool of {sized.request_pool} keeps no free "
                          f"slot, so SGLang admits no request (disaggregation/decode.py:"
                          f"200-211)")


def capped(pool: Dsv4Pool, sized: Dsv4Pools, cap: int) -> Dsv4Pools:
    """`--max-total-tokens` below the full pool the budget buys: SGLang caps the token
    capacity (`_apply_token_constraints`, kv_cache_configurator.py:3090-3117) and re-derives
    the pools from that count (`config_from_budget`, :3211-3226, `calculate_pool_sizes_from_
    max_tokens` -> `_compute_dsv4_sizes`, pool_configurator.py:1463-1500, 1703-1712): the full
    pool page aligned, the SWA pool from it (ratio mode, validated) or the cap, the compressed
    pools and the c4 state from those; then the request pool and the c128 state as before."""
    line, page = pool.line, pool.line.page_size
    full = cap // page * page
    swa = pool.swa_tokens(full, f": --max-total-tokens {cap}")
    if full <= 0:
        raise ConfigError(f"max_total_tokens: {cap} is below one page ({page} tokens); the "
                          f"DeepSeek-V4 pools would hold no request (not modelled)")
    requests = kv_request_pool(full, pool.shape.context_len, line.max_running_requests,
                               line.attn_dp_size)
    return replace(sized, full_tokens=full, swa_tokens=swa, c4_tokens=full // 4,
                   c128_tokens=full // 128, c4_state=swa // page * pool.rings.get(4, 0),
                   c128_state=line.slots(requests) * pool.rings.get(128, 0),
                   request_pool=requests)


def shown(config: EngineSettings) -> tuple[str, str] | None:
    """The plan's line on a DeepSeek-V4 model's KV pools: the sizes and what they assumed, or
    why they are not restated; None for another model."""
    if not applies(config):
        return None
    why = why_not(config)
    if why is not None:
        return ("dsv4_kv_pools", f"sized by SGLang from GPU memory (pool_configurator.py:"
                                 f"1638-1701); not restated ({why}), so the request pool is "
                                 f"--max-running-requests per DP group")
    every = stage_pools(config)
    assert every is not None
    sized = every[0]
    preload = ("given" if config.preload_avail_gb is not None else
               "assumed: the whole GPU, --preload-avail-gb")
    gpu = "" if config.gpu_capability is not None else ", a GPU before SM100 assumed"
    layout, index_page = kv_layout(config)
    if _sm100(config):
        gpu += f"; SM100: the {layout.upper()} KV layout"
        if any(ratio in (1, 2) for ratio in config.dsv4_pool_shape[1]):  # type: ignore[index]
            gpu += (f", the low-ratio indexer page assumed {index_page} (the installed "
                    f"DeepGEMM's paged sparse MQA logits, deep_gemm_wrapper/configurer.py:"
                    f"64-78)")
    return ("dsv4_kv_pools",
            f"full {sized.full_tokens} tokens, SWA {sized.swa_tokens}, c4 {sized.c4_tokens}, "
            f"c128 {sized.c128_tokens}, c4 state {sized.c4_state}, c128 state "
            f"{sized.c128_state}; request pool {sized.request_pool} per DP group "
            f"(pool_configurator.py:1638-1701, kv_cache_configurator.py:3119-3133)"
            f"{stages_said(config, every)}; free "
            f"before loading {config.preload_avail_gb or config.gpu_memory_gb:g} GiB "
            f"({preload}){gpu}")


def stages_said(config: EngineSettings, every: tuple[Dsv4Pools, ...]) -> str:
    """The plan line's words on the pipeline stages (empty under one stage): the layers and
    compress-state pools of each stage after the first (the token pools and the request pool
    are the agreed ones, kv_cache_configurator.py:3107-3115) and the budget's assumption."""
    ranges = stages_of(config)
    if ranges is None:
        return ""
    later = ", ".join(f"[{start}, {end}) c4 state {one.c4_state}, c128 state {one.c128_state}"
                      for (start, end), one in zip(ranges[1:], every[1:], strict=True))
    return (f"; pipeline stage 1 of {len(ranges)} (layers [{ranges[0][0]}, {ranges[0][1]})), "
            f"later stages: {later}; every stage's token count is the smallest stage's; each "
            f"stage assumed to hold --weights-gb (give the heaviest stage's: SGLang measures "
            f"each, kv_cache_configurator.py:2990-3060)")


__all__ = ["DEEPSEEK_V4", "DEFAULT_MAX_RUNNING_REQUESTS", "applies", "check", "pools", "resolve",
           "shown", "why_not"]
