"""SGLang 0.5.23's mamba state cache sized from GPU memory: how many state slots a hybrid
mamba / linear-attention model gets when neither `--max-mamba-cache-size` nor
`--disable-radix-cache` with `--max-running-requests` fixes it.

SGLang measures, per rank, the free GPU memory before the weights load
(`pre_model_load_memory`, distributed/bootstrap.py:207-212, logged as "Load weight begin.
avail mem=", model_executor/model_runner.py:1274) and after (`get_available_gpu_memory` in
`_profile_available_bytes`, mem_cache/kv_cache_configurator.py:2990-3038; the difference is
the "mem usage" of "Load weight end", model_runner.py:1365-1378). Then, in GiB,

    rest = available - pre_model_load_memory x (1 - mem_fraction_static)       (:3007, :3037)
    budget = rest x r / (1 + r),  r = --mamba-full-memory-ratio (0.9,
             arg_groups/fields/schedule.py:220-227)                              (:3362-3366)
    max_mamba_cache_size = int((budget x 2^30 - per_req) // per_req)            (:3387-3394)

with per_req the bytes one request's conv and SSM states take on this rank across every
linear-attention layer (`mamba_cache_per_req`, configs/mamba_utils.py:116-126): the conv state
(conv_dim / tp, conv_kernel - 1) in SGLANG_MAMBA_CONV_DTYPE (bfloat16 unless the line's
environment names float32 / float16, environ.py:1628, mamba_utils.py:63-68) and the SSM state
(num_heads / tp, head_dim, state_size) in the `--mamba-ssm-dtype` (which sets
SGLANG_MAMBA_SSM_DTYPE, arg_groups/serving_hook.py:439-440), else the config's
`mamba_ssm_dtype`, else float32 (mamba_utils.py:47-103). The shape is
`Mamba2StateShape.create` (mamba_utils.py:194-241): n_groups widened to tp when tp does not
divide it (:29-38), conv_dim = intermediate + 2 x n_groups x state_size, tp the
linear-attention TP width (the attention-TP width, runtime_context.py:477-486). A size <= 0 is
SGLang's RuntimeError (:3386-3399), graphfit's ConfigError.

graphfit cannot measure memory: the weights' size is an explicit input (`weights_gb`, the
"mem usage" SGLang logs) and the free memory before loading is `preload_avail_gb`, or the
GPU's whole memory (`gpu_memory_gb`) when not given -- an assumption the plan shows (the
CUDA context and NCCL buffers take some of it before SGLang measures).

Speculative decoding: each request also keeps one intermediate SSM state per draft token,
solved for jointly with the slots (`MambaMemory.cache_size`, :3344-3360); NGRAM too (any
algorithm, :3256). Pipeline parallelism: each rank is charged the widest stage's share of the
state layers (`stage_bytes`, :3233-3254, with SGLang's even split, or the stages' layer counts
from SGLANG_PP_LAYER_PARTITION, graphfit.planner.engines.sglang_pp_partition). When the flags
fix the cache, the fixed states (and the intermediate ones) are still charged to the memory
after the weights, and a line that leaves none for the KV cache is refused
(`_check_fixed_cache`, :3040-3060, 3302-3342). The state dtype may come from
SGLANG_MAMBA_SSM_DTYPE (graphfit.inputs.environment). A multimodal model first reserves its
embedding cache and GPU feature-transport pool (`mm_reserve_gb`, :202-219, :3035-3037),
SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB when the line's environment sets them
(graphfit.inputs.sglang_mamba_env).

Attention context parallelism (`--attn-cp-size`): the solve does not read it, only the
state's TP width does -- the attention-TP width tp / (attn_dp x attn_cp) for every model
graphfit reads a shape of (their configs take `get_parallel().attn_tp_size`, or
`linear_attn_tp_size()`, which is the whole TP group only under CP-TP group sharing,
runtime_context.py:477-486, decided for Glm5Next / Qwen4Exp only,
arg_groups/cp_tp_group_sharing_hook.py:21-24, 122: `state_tp`, issue 23 s63p). Nemotron-H
refuses CP (`check_inputs`, parallel_hook.py:66-77).

Refused by graphfit's line reader: the ReplaySSM speculative verify
(`--enable-linear-replayssm-spec`, :3262-3296: a replay ring instead of the intermediate
states). Speculation on a disaggregated prefill server keeps no intermediate states, so its
cache is the plain solve (`_pd_prefill`, :172-181, 3294-3298). Not restated (the cap is then
left out, as before, and the plan says so): that server with --enable-unified-memory
(:172-181; --enable-pd-role-switch with speculation SGLang refuses,
pd_disaggregation_hook.py:164-196, so does graphfit), the fused draft state block
(`fused_entry_bytes`, :3252-3258, off unless a fused draft layout is chosen) and
post-capture KV sizing where graphfit leaves it undecided (unified memory without a
config.json, graphfit.planner.engines.sglang_post_capture). Where SGLang sizes KV after
capture, the state, allocated before capture, keeps at least the pre-capture activation
reserve as slack (:3020-3030; `post_capture_slack_gb`, issue 23 s32k).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

GIB = 1 << 30
DEFAULT_CONV_DTYPE = "bfloat16"  # SGLANG_MAMBA_CONV_DTYPE (environ.py:1628, mamba_utils.py:68)
SSM_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}  # mamba_utils.py:60-64
DEFAULT_SSM_DTYPE = "float32"  # mamba_utils.py:69
VLM_CACHE_MB = 100  # SGLANG_VLM_CACHE_SIZE_MB (environ.py:1598)
MM_FEATURE_CACHE_MB = 1024  # SGLANG_MM_FEATURE_CACHE_MB (environ.py:1622)
DEFAULT_FULL_MEMORY_RATIO = 0.9  # arg_groups/fields/schedule.py:220-227 (fallback)
NEMOTRON_H_ARCHS = frozenset({"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM"})
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"
INKLING_MTP = "InklingForConditionalGenerationMTP"
# a NemotronHConfig text config (nano_nemotron_vl.py:79-86), Nano Omni V3's too (:180-186)
# and the full Omni V3's (:189-198)
NEMOTRON_VL = frozenset({"NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
                         "NemotronH_Omni_Reasoning_V3"})
ZAYA = "ZayaForCausalLM"
# the states split over the whole TP group (`get_parallel().tp_size`): Zaya's (configs/
# zaya.py:268-271) and the pure state-space models' (configs/mamba.py:30-32, mamba2.py:43-46)
WHOLE_TP_ARCHS = frozenset({ZAYA, "MambaForCausalLM", "FalconMambaForCausalLM",
                            "Mamba2ForCausalLM"})
MINICPM_ARCHS = frozenset({"MiniCPMForCausalLM", "MiniCPMSALAForCausalLM"})
# hybrid architectures SGLang counts multimodal by name (configs/model_config.py:2406) whose
# config.json may carry no vision tower, so graphfit's `multimodal` is not set for them
MULTIMODAL_BY_ARCHITECTURE = frozenset({"Glm5NextForConditionalGeneration"})
SHAPE_FIELDS = ("layers", "intermediate_size", "n_groups", "num_heads", "head_dim",
                "state_size", "conv_kernel")
# the optional eighth field: the elements of a per-layer conv state every rank holds whole
# (Zaya's previous-hidden-state conv, (hidden_size, 1), configs/zaya.py:284-288)
FULL_CONV_FIELD = "conv_full"


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"mamba state {name}: must be a positive integer, got {value!r}")
    return value


@dataclass(frozen=True)
class MambaStateShape:
    """The model's linear-attention state as `Mamba2StateShape.create` reads it
    (configs/mamba_utils.py:194-241); `layers`: the linear-attention layer count
    (`mamba2_cache_params.layers`). For Qwen3-Next-style GDN models
    (configs/qwen3_next.py:287-310): intermediate = linear_value_head_dim x
    linear_num_value_heads, n_groups = linear_num_key_heads, num_heads =
    linear_num_value_heads, head_dim = linear_value_head_dim, state_size =
    linear_key_head_dim, conv_kernel = linear_conv_kernel_dim. Kimi-Linear's KDA state
    (`KimiLinearStateShape`) has the same arithmetic (graphfit.inputs.mamba_state.
    kimi_linear_shape). state_size 0: a conv-only state (LFM2's short conv, configs/lfm2.py:
    80-91), for which SGLang passes num_heads = the TP width, so no SSM state and no heads
    to divide (num_heads is then ignored). intermediate_size 0, n_groups 0 and conv_kernel
    1: an SSM-only state (the Bailing lightning layers' `Mamba2StateShape.create(
    intermediate_size=0, n_groups=0, conv_kernel=1)`, configs/bailing_hybrid.py:226-234:
    a conv state of (0, 0)). conv_full: the elements of one more per-layer conv state that
    every rank holds whole (Zaya's (hidden_size, 1) beside its head-split (C / tp, P)
    state, configs/zaya.py:273-297, whose SSM state (1, 1, 0) is empty: state_size 0).
    n_groups 0 with head_dim 1 and num_heads = intermediate_size: the full-rank Mamba-1
    state (`Mamba2StateShape.create_full_rank`, mamba_utils.py:245-290, configs/mamba.py:
    27-38): the conv over the intermediate size only and an SSM state of (I / tp, 1,
    state_size), whose intermediate size tp must divide (asserted, :270-273)."""

    layers: int
    intermediate_size: int
    n_groups: int
    num_heads: int
    head_dim: int
    state_size: int
    conv_kernel: int
    conv_full: int = 0

    def ssm_only(self) -> bool:
        """The SSM-only form (class docstring): no conv state at all."""
        return (self.intermediate_size, self.n_groups, self.conv_kernel) == (0, 0, 1)

    def full_rank(self) -> bool:
        """The full-rank Mamba-1 form (class docstring)."""
        return (self.n_groups == 0 and self.head_dim == 1 and self.state_size > 0
                and self.num_heads == self.intermediate_size)

    def __post_init__(self) -> None:
        for name in SHAPE_FIELDS:
            if name == "state_size" and self.state_size == 0:
                continue  # the conv-only state (class docstring)
            if name == "n_groups" and self.full_rank():
                continue  # the full-rank state (class docstring)
            if name in ("intermediate_size", "n_groups", "conv_kernel") and self.ssm_only():
                continue  # the SSM-only state (class docstring)
            _positive_int(name, getattr(self, name))
        if self.ssm_only() and self.state_size == 0:
            raise ConfigError("mamba state: an SSM-only state needs a state_size")
        if self.conv_kernel < 2 and not self.ssm_only():
            raise ConfigError(f"mamba state conv_kernel: must be >= 2, got {self.conv_kernel}")
        if self.conv_full:
            _positive_int(FULL_CONV_FIELD, self.conv_full)

    @classmethod
    def of(cls, values: tuple[int, ...]) -> MambaStateShape:
        """From SglangOptions.mamba_state_shape (the fields in SHAPE_FIELDS' order, then
        conv_full when the state has one)."""
        if len(values) not in (len(SHAPE_FIELDS), len(SHAPE_FIELDS) + 1):
            raise ConfigError(f"mamba_state_shape: expected {len(SHAPE_FIELDS)} integers "
                              f"({', '.join(SHAPE_FIELDS)}) and an optional "
                              f"{FULL_CONV_FIELD}, got {len(values)}")
        return cls(*values)

    def bytes_per_request(self, tp: int, ssm_dtype: str,
                          conv_dtype: str = DEFAULT_CONV_DTYPE) -> int:
        """`mamba_cache_per_req` on one rank of linear-attention TP width `tp`
        (mamba_utils.py:116-126, 194-241), the conv state in `conv_dtype`
        (SGLANG_MAMBA_CONV_DTYPE, mamba_utils.py:68)."""
        _positive_int("tp", tp)
        for name, dtype in (("mamba_ssm_dtype", ssm_dtype), ("mamba_conv_dtype", conv_dtype)):
            if dtype not in SSM_DTYPE_BYTES:
                raise ConfigError(f"{name}: {dtype!r} is not one of "
                                  f"{', '.join(SSM_DTYPE_BYTES)}")
        if self.full_rank() and self.intermediate_size % tp:
            raise ConfigError(f"Mamba-1 intermediate_size ({self.intermediate_size}) must be "
                              f"divisible by tp_world_size ({tp}) (SGLang mamba_utils.py:270)")
        groups = self.n_groups
        if groups % tp:
            groups += tp - groups  # extra_groups_for_head_shards (mamba_utils.py:29-38)
        conv_dim = self.intermediate_size + 2 * groups * self.state_size
        heads = self.num_heads if self.state_size else tp  # LFM2 passes tp (lfm2.py:88)
        for what, total in (("conv dim", conv_dim), ("heads", heads)):
            if total % tp:  # SGLang's divide() (distributed/utils.py:75-79)
                raise ConfigError(f"mamba state {what} {total} is not divisible by the "
                                  f"linear-attention TP width {tp} (SGLang mamba_utils.py:"
                                  f"225, 230 asserts it)")
        conv = conv_dim // tp * (self.conv_kernel - 1) + self.conv_full
        ssm = heads // tp * self.head_dim * self.state_size
        return (conv * SSM_DTYPE_BYTES[conv_dtype] + ssm * SSM_DTYPE_BYTES[ssm_dtype]) \
            * self.layers


@dataclass(frozen=True)
class MambaMemory:
    """What `_profile_available_bytes` + `_handle_max_mamba_cache`'s memory branch read
    (module docstring), all per rank: GiB before and after the weights, the static fraction,
    --mamba-full-memory-ratio and the state bytes per request."""

    preload_avail_gb: float
    weights_gb: float
    mem_fraction_static: float
    full_memory_ratio: float
    bytes_per_request: int
    draft_tokens: int | None = None  # speculative decoding's D (the joint solve)
    reserve_gb: float = 0.0  # a multimodal model's post-sizing reservation (mm_reserve_gb)
    slots_per_request: int = 1  # `_calculate_mamba_ratio`, read by the joint solve only
    # under post-capture KV sizing, the least activation slack the state keeps, in GiB
    # (kv_cache_configurator.py:3020-3030; graphfit.planner.engines.sglang_post_capture)
    min_slack_gb: float = 0.0

    def __post_init__(self) -> None:
        for name in ("preload_avail_gb", "weights_gb", "mem_fraction_static",
                     "full_memory_ratio", "reserve_gb", "min_slack_gb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not value >= 0 or value == float("inf"):
                raise ConfigError(f"{name}: must be a finite number >= 0, got {value!r}")
        _positive_int("bytes per request", self.bytes_per_request)
        _positive_int("slots per request", self.slots_per_request)
        if self.draft_tokens is not None:
            _positive_int("draft tokens", self.draft_tokens)

    def rest_gb(self) -> float:
        """`rest_memory` handed to `_handle_max_mamba_cache` (kv_cache_configurator.py:
        3007, 3037), in SGLang's order of float operations."""
        available = self.preload_avail_gb - self.weights_gb
        slack = self.preload_avail_gb * (1 - self.mem_fraction_static)
        if self.min_slack_gb:  # post-capture sizing (:3020-3030)
            slack = max(slack, self.min_slack_gb)
        return available - slack - self.reserve_gb

    def cache_size(self) -> int:
        """max_mamba_cache_size (kv_cache_configurator.py:3362-3394); ConfigError where
        SGLang raises (:3386-3399). With speculative decoding each request also holds D
        intermediate SSM states (one per draft token) for at most K // ratio requests + the
        padding slot, all inside the same budget: SGLang solves for K jointly,
        int((budget - per x (1 + D)) // (per x (1 + D / ratio))) (:3344-3360)."""
        ratio = self.full_memory_ratio
        budget = self.rest_gb() * ratio / (1 + ratio)
        per_slot = self.bytes_per_request
        budget_bytes = budget * GIB
        drafts = self.draft_tokens
        if drafts is None:
            size = int((budget_bytes - per_slot) // per_slot)
        else:  # extra_per_slot is 0 (no ReplaySSM ring, no extra bytes: :3286-3293)
            size = int((budget_bytes - per_slot * (1 + drafts) - 0)
                       // (per_slot * (1 + drafts / self.slots_per_request) + 0))
        if size <= 0:
            raise ConfigError(
                f"no GPU memory left for the mamba state cache: {self.rest_gb():.2f} GiB "
                f"after weights and SGLang's reserve, {per_slot / (1 << 20):.2f} MiB a "
                f"request (SGLang kv_cache_configurator.py:3386 refuses this)")
        return size




def mm_reserve_gb(config: EngineSettings) -> float:
    """`mm_runtime_reservation_gb` (kv_cache_configurator.py:202-219): a multimodal model's
    embedding cache, SGLANG_VLM_CACHE_SIZE_MB (100, environ.py:1598; :210), and with a GPU
    feature transport its pool, SGLANG_MM_FEATURE_CACHE_MB (1024, environ.py:1622; :211-212),
    in GiB, each from the line's environment (graphfit.inputs.sglang_mamba_env) or at its
    default. "Multimodal" is SGLang's `is_multimodal`, by architecture name
    (`multimodal_model_archs`, configs/model_config.py:2391-2522): graphfit's `multimodal`
    (a vision tower in the config), or a hybrid architecture SGLang lists whose file may
    come without one (Glm5Next, MULTIMODAL_BY_ARCHITECTURE)."""
    if not (config.multimodal or config.architecture in MULTIMODAL_BY_ARCHITECTURE):
        return 0.0
    reserved_mb = VLM_CACHE_MB if config.vlm_cache_size_mb is None \
        else config.vlm_cache_size_mb
    if config.mm_feature_transport in ("cuda_ipc", "cuda_vmm"):
        reserved_mb += MM_FEATURE_CACHE_MB if config.mm_feature_cache_mb is None \
            else config.mm_feature_cache_mb
    return reserved_mb / 1024


def pp_stage(layers: int, rank: int, pp_size: int,
             partition: tuple[int, ...] | None = None) -> tuple[int, int]:
    """`get_pp_indices` (distributed/utils.py:110-150): the stage's layers from
    SGLANG_PP_LAYER_PARTITION when given (`partition`, checked by
    graphfit.planner.engines.sglang_pp_partition; :123-135), else split evenly, the last
    `layers % pp_size` stages one more each (:136-148)."""
    if partition is not None:
        start = sum(partition[:rank])
        return start, start + partition[rank]
    base, remainder = divmod(layers, pp_size)
    if rank >= pp_size - remainder:
        start = rank * (base + 1) - (pp_size - remainder)
        return start, start + base + 1
    return rank * base, rank * base + base


def stage_bytes(per_request: int, layer_map: tuple[int, ...] | None, pp_size: int,
                partition: tuple[int, ...] | None = None) -> int:
    """`stage_per_req` (kv_cache_configurator.py:3233-3254): under pipeline parallelism each
    rank is charged the largest stage's share of the state layers, int(per x max stage
    layers / all layers), so every rank sizes the same cache; `partition`: the stages' layer
    counts from SGLANG_PP_LAYER_PARTITION (get_pp_indices, :3241-3245)."""
    if pp_size <= 1 or layer_map is None:
        return per_request
    ids = [i for i, holds in enumerate(layer_map) if holds]
    widest = max(sum(1 for i in ids if start <= i < end)
                 for start, end in (pp_stage(len(layer_map), rank, pp_size, partition)
                                    for rank in range(pp_size)))
    stage = int(per_request * (widest / max(len(ids), 1)))
    if stage <= 0:  # SGLang asserts stage_per_req > 0 (:3348)
        raise ConfigError(f"mamba state: no pipeline stage of {pp_size} holds a mamba layer "
                          f"(SGLang kv_cache_configurator.py:3348 asserts)")
    return stage


def _speculative(config: EngineSettings) -> bool:
    """SGLang's `has_spec_dec` (kv_cache_configurator.py:3256): any speculative algorithm,
    NGRAM included (no draft model, but the verify pass keeps the intermediate states)."""
    from graphfit.planner.core.enums import SpecMethod

    return config.spec_method is not SpecMethod.NONE


def _pd_prefill(config: EngineSettings) -> bool:
    """`_pd_prefill_skips_mamba_spec_state` (kv_cache_configurator.py:172-181): a
    disaggregated prefill server never verifies, so it keeps no intermediate states (the
    solve is the plain one, :3294-3298), unless a role switch or the unified memory pool
    (CUDA: the NPU exception does not apply)."""
    return (config.disaggregation_mode == "prefill" and not config.enable_pd_role_switch
            and not config.enable_unified_memory)


def _spec_states(config: EngineSettings) -> bool:
    """SGLang's `reserves_spec_state` (:3294-3298; ReplaySSM is refused by the reader)."""
    return _speculative(config) and not _pd_prefill(config)


def _not_restated(config: EngineSettings, fraction: float | None = None) -> str | None:
    """Why graphfit does not size this config's state cache from memory, or None."""
    if _speculative(config) and config.disaggregation_mode == "prefill" \
            and not _pd_prefill(config):
        # the prefill server keeps the states, and unified memory changes its pools in ways
        # not modelled (:3207-3211; a role switch with speculation is refused, check_inputs)
        return ("speculative decoding on a disaggregated prefill server with "
                "--enable-unified-memory (:172-181)")
    from graphfit.planner.engines.sglang_reserve import post_capture

    if post_capture(config) is None:
        # whether the state keeps the pre-capture activation slack (:3020-3030) is not known
        return ("post-capture KV sizing not restated here (graphfit.planner.engines."
                "sglang_post_capture, :3020-3030)")
    if config.architecture == QWEN4_EXP and not config.multimodal:
        # SGLang counts it multimodal, with a default vision tower when the file has none
        # (configs/qwen4_exp.py:151-155; read from a local config.json, graphfit.inputs.
        # model_config.DEFAULT_VISION_TOWERS), which lowers the default fraction
        # (memory_hook.py:417-462): a config not known multimodal is left unrestated
        return "Qwen4-Exp without a vision_config (a default vision tower, qwen4_exp.py:151-155)"
    if config.architecture == INKLING_MTP and not config.multimodal:
        # served as the target, SGLang counts it multimodal (only the non-MTP architecture is
        # text-only by default, configs/model_config.py:690-702) with its default vision
        # tower (InklingVisionConfig(), read from a local config.json: graphfit.inputs.
        # model_config.DEFAULT_VISION_TOWERS); without the file it is not known multimodal
        return ("Inkling's MTP architecture served as the target (multimodal by default: "
                "model_config.py:690-702)")
    if config.pp_size > 1 and config.mamba_layer_map is None:
        return "pipeline parallelism without the model's layer map (:3233-3249)"
    missing = [what for what, value in (
        ("--gpu-memory-gb", config.gpu_memory_gb), ("--weights-gb", config.weights_gb),
        ("the model directory's linear-attention config",
         config.mamba_state_shape or config.inkling_conv_state),
        ("mem_fraction_static", fraction or config.mem_fraction_static)) if value is None]
    if missing:
        return f"needs {', '.join(missing)}"
    return None


def state_tp(config: EngineSettings) -> int:
    """The linear-attention TP width a state is split over: the attention-TP width
    tp / (attn_dp x attn_cp) (runtime_context.py:73, 477-486); the whole TP group under CP-TP
    group sharing (`linear_attn_tp_size`, runtime_context.py:477-486, read by
    configs/glm5_next.py:257-263 and qwen3_next.py:298-302; SglangOptions.
    cp_tp_group_sharing, issue 23 s63p); Zaya's the whole TP group
    (`get_parallel().tp_size`, configs/zaya.py:268-271; attention DP / CP it refuses,
    check_inputs), and the pure Mamba-1 / Mamba-2 models' (WHOLE_TP_ARCHS)."""
    if config.architecture in WHOLE_TP_ARCHS or config.cp_tp_group_sharing:
        return max(1, config.tp_size)
    return max(1, config.tp_size // config.attn_dp_size // config.attn_cp_size)


def memory_of(config: EngineSettings, fraction: float | None = None,
              drafts: int | None = None) -> MambaMemory | None:
    """The memory inputs of a config whose state cache SGLang sizes from memory, or None
    when graphfit does not restate it (`memory_line` says why); `fraction` / `drafts`: its
    mem_fraction_static / speculative draft tokens when not yet in the config
    (resolution)."""
    if _not_restated(config, fraction) is not None:
        return None
    from graphfit.planner.engines.sglang_mamba_pool import cache_of

    tp = state_tp(config)
    gpu = config.gpu_memory_gb or 0.0
    drafts = (drafts or config.speculative_num_draft_tokens) if _spec_states(config) else None
    if _spec_states(config) and drafts is None:  # pragma: no cover - resolution fills it
        raise ConfigError("speculative_num_draft_tokens: not resolved (the joint solve of the "
                          "mamba state cache reads it, kv_cache_configurator.py:3344)")
    return MambaMemory(
        draft_tokens=drafts, reserve_gb=mm_reserve_gb(config),
        min_slack_gb=post_capture_slack_gb(config, drafts),
        slots_per_request=cache_of(config).slots_per_request() if drafts else 1,
        preload_avail_gb=config.preload_avail_gb or gpu,
        weights_gb=config.weights_gb or 0.0,
        mem_fraction_static=fraction or config.mem_fraction_static or 0.0,
        full_memory_ratio=(default_full_memory_ratio(config)
                           if config.mamba_full_memory_ratio is None
                           else config.mamba_full_memory_ratio),
        bytes_per_request=stage_bytes(state_bytes(config, tp), config.mamba_layer_map,
                                      config.pp_size, layer_partition(config)))


def default_full_memory_ratio(config: EngineSettings) -> float:
    """--mamba-full-memory-ratio when none is given: the Inkling override's 0.1
    (arg_groups/model_overrides/inkling.py:43-44), else 0.9."""
    from graphfit.planner.engines.sglang_mamba_inkling import (
        INKLING_ARCHS,
        INKLING_FULL_MEMORY_RATIO,
    )

    return (INKLING_FULL_MEMORY_RATIO if config.architecture in INKLING_ARCHS
            else DEFAULT_FULL_MEMORY_RATIO)


def state_bytes(config: EngineSettings, tp: int) -> int:
    """One request's state bytes on a rank of linear-attention TP width `tp`: Inkling's conv
    states (graphfit.planner.engines.sglang_mamba_inkling) or `MambaStateShape`'s."""
    if config.inkling_conv_state is not None:
        from graphfit.planner.engines.sglang_mamba_inkling import InklingConvState

        return InklingConvState.of(config.inkling_conv_state).bytes_per_request(
            tp, config.enable_scattered_sconv)
    shape = MambaStateShape.of(config.mamba_state_shape or ())
    return shape.bytes_per_request(tp, config.mamba_ssm_dtype or DEFAULT_SSM_DTYPE,
                                   config.mamba_conv_dtype or DEFAULT_CONV_DTYPE)


def post_capture_slack_gb(config: EngineSettings, drafts: int | None) -> float:
    """The activation slack the state keeps when SGLang sizes KV after capture (`_profile_
    available_bytes`, kv_cache_configurator.py:3020-3030): `pre_capture_activation_reserve_mb`
    (runtime_context.py:1797-1819, graphfit.planner.engines.sglang_post_capture) over the
    resolved settings, in GiB; 0 when SGLang does not size KV after capture, and for a capped
    FULL-prefill PD prefill server (`capped_full_prefill_role`, :3011-3020: its
    --prefill-max-requests within the given full_prefill_max_req, the cache fixed by
    --max-mamba-cache-size), whose slack is the fraction's alone."""
    from graphfit.planner.engines.sglang_post_capture import (
        capped_full_prefill_role,
        pre_capture_activation_reserve_mb,
    )
    from graphfit.planner.engines.sglang_prefill import (
        given_chunk,
        resolve_prefill,
    )
    from graphfit.planner.engines.sglang_reserve import hook_prefill_inputs, post_capture

    if post_capture(config) is not True:
        return 0.0
    if capped_full_prefill_role(
            config.disaggregation_mode,
            resolve_prefill(replace(hook_prefill_inputs(config),
                                    attn_dp_size=config.attn_dp_size)).phase_backend,
            config.max_mamba_cache_size, config.prefill_max_requests,
            config.full_prefill_max_req):
        return 0.0
    sizes = config.cudagraph_capture_sizes
    decode_max = config.max_cudagraph_capture_size or (max(sizes) if sizes else None)
    chunked = given_chunk(config.chunked_prefill_size, config.gpu_memory_gb)
    gpu = config.gpu_memory_gb
    return pre_capture_activation_reserve_mb(
        config.disaggregation_mode, config.max_num_seqs or decode_max or 1, drafts, chunked,
        config.max_prefill_tokens, config.tp_size, config.pp_size,
        None if gpu is None else gpu * 1024) / 1024


def resolve_memory_slots(config: EngineSettings, fraction: float | None,
                         changes: Mapping[str, object] | None = None) -> dict[str, object]:
    """`SglangModel.resolve`'s change: the state cache size SGLang computes from memory
    (`fraction`: the config's mem_fraction_static as resolved), where SGLang takes that
    branch (neither --max-mamba-cache-size nor --disable-radix-cache with
    --max-running-requests, kv_cache_configurator.py:3302-3335) and graphfit restates it.
    `changes`: the resolution so far. Its draft tokens apply; its request count only under
    speculation, which SGLang's speculative hook fills before the configurator runs (for a
    plain line graphfit's stand-in for the KV-sized pool is not SGLang's figure)."""
    from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba, radix_off

    check_inputs(config)
    done = changes or {}
    requests: int | None = config.max_num_seqs
    drafts = config.speculative_num_draft_tokens
    if _speculative(config):
        requests = cast("int | None", done.get("max_num_seqs", requests))
        drafts = cast("int | None", done.get("speculative_num_draft_tokens", drafts))
    if (not is_hybrid_mamba(config.architecture, config.mamba_state_shape)
            or config.mamba_memory_slots is not None):
        return {}
    if config.max_mamba_cache_size is not None or (radix_off(config)
                                                   and requests is not None):
        _check_fixed_cache(config, fraction, drafts, requests)
        return {}
    memory = memory_of(config, fraction, drafts)
    return {} if memory is None else {"mamba_memory_slots": memory.cache_size()}


def check_inputs(config: EngineSettings) -> None:
    """Cross-field checks of the inputs this module reads: SGLang refuses a cuda_vmm feature
    transport under pipeline parallelism (arg_groups/serving_hook.py:891-897, any model), and
    a layer map must count the state shape's layers (both read from one config.json)."""
    if config.mm_feature_transport == "cuda_vmm" and config.pp_size != 1:
        raise ConfigError("mm_feature_transport: cuda_vmm does not support pipeline "
                          "parallelism (SGLang serving_hook.py:891-897)")
    if (config.architecture in NEMOTRON_H_ARCHS or config.architecture in NEMOTRON_VL) \
            and config.attn_cp_size > 1:
        # by model_type nemotron_h / nemotron_h_puzzle in SGLang; graphfit knows the two
        # architectures whose configs carry them, and Nemotron-H Nano VL V2 / Nano Omni V3,
        # whose text config (the NemotronHConfig under llm_config) it reads
        # (parallel_hook.py:105-111)
        raise ConfigError("attn_cp_size: Nemotron-H does not support attention context "
                          "parallelism (SGLang parallel_hook.py:66-77)")
    if config.architecture in MINICPM_ARCHS and config.attn_dp_size > 1:
        raise ConfigError("attn_dp_size: MiniCPM does not support DP attention (SGLang "
                          "arg_groups/model_overrides/minicpm.py:14-18)")
    if config.architecture == ZAYA and config.mamba_state_shape \
            and config.attn_dp_size * config.attn_cp_size > 1:
        # its attention asserts the attention-TP group is the whole TP group at load
        # (models/zaya.py:910-915), after the arguments resolve
        raise ConfigError("attn_dp_size / attn_cp_size: Zaya's attention needs the attention-"
                          "TP width to be the whole TP group (SGLang models/zaya.py:912)")
    if config.architecture == ZAYA and config.mamba_state_shape:
        _check_zaya_heads(config.mamba_head_counts, max(1, config.tp_size))
    shape = config.mamba_state_shape or config.inkling_conv_state
    layer_map = config.mamba_layer_map
    if shape and layer_map is not None and sum(layer_map) != shape[0]:
        raise ConfigError(f"mamba_layer_map: {sum(layer_map)} mamba layers, the state shape "
                          f"says {shape[0]}")
    if config.enable_pd_role_switch and config.disaggregation_mode != "null":
        # the role-switch features SGLang refuses that graphfit reads (pd_disaggregation_
        # hook.py:164-196; any model); the pool under a role switch is not restated
        clash = [what for what, on in (
            ("speculative decoding", _speculative(config)),
            ("pipeline parallelism", config.pp_size > 1),
            ("a MoE all-to-all backend", config.moe_a2a_backend != "none")) if on]
        if clash:
            raise ConfigError(f"--enable-pd-role-switch: SGLang refuses it with "
                              f"{', '.join(clash)} (pd_disaggregation_hook.py:164-196)")
    if shape:  # SGLANG_PP_LAYER_PARTITION's refusals (at model load for any model; checked
        layer_partition(config)  # here for the hybrid models whose memory is solved)


def _check_zaya_heads(counts: tuple[int, int] | None, tp: int) -> None:
    """Zaya's head-count assertions at load, in SGLang's order: its attention's (both counts
    divisible by the TP width, models/zaya.py:917-925), then its CCA's (the query heads a
    multiple of the key heads, :460-462). The attention's own runs before, with the
    attention-DP one (check_inputs)."""
    if counts is None:
        return
    heads, groups = counts
    if heads % tp:
        raise ConfigError(f"tp_size: num_attention_heads ({heads}) must be divisible by tp_size "
                          f"({tp}) for ZAYA1 head-parallel attention (SGLang models/zaya.py:"
                          f"917-920)")
    if groups % tp:
        raise ConfigError(f"tp_size: num_query_groups ({groups}) must be divisible by tp_size "
                          f"({tp}) (SGLang models/zaya.py:921-925)")
    if heads % groups:
        raise ConfigError("num_q_heads must be a multiple of num_k_heads (ZAYA1's CCA, SGLang "
                          "models/zaya.py:460-462)")


def layer_partition(config: EngineSettings) -> tuple[int, ...] | None:
    """SGLANG_PP_LAYER_PARTITION as `get_pp_indices` reads it for this config: None when
    unset or under a single stage (ignored there, distributed/utils.py:119-122); ConfigError
    where SGLang raises (graphfit.planner.engines.sglang_pp_partition)."""
    from graphfit.planner.engines.sglang_pp_partition import parse_partition

    layers = None if config.mamba_layer_map is None else len(config.mamba_layer_map)
    return parse_partition(config.pp_layer_partition, config.pp_size, layers)


def _check_fixed_cache(config: EngineSettings, fraction: float | None, drafts: int | None,
                       requests: int | None) -> None:
    """When the flags fix the state cache (kv_cache_configurator.py:3302-3335), SGLang still
    charges it -- and under speculation the intermediate states of the requests it serves --
    to the memory left after the weights, and refuses a line that leaves none for the KV
    cache ("Loaded weights leave no GPU memory", :3040-3060). Checked where graphfit knows
    the memory (memory_of); a fixed size below one slot per DP group is refused by the
    request cap instead (sglang_mamba_pool, SGLang's RuntimeError at :3386 comes first)."""
    memory = memory_of(config, fraction, drafts)
    if memory is None:
        return
    dp, per = config.attn_dp_size, memory.bytes_per_request
    per_group = max(1, (requests or 0) // dp)
    if config.max_mamba_cache_size is not None:
        slots = config.max_mamba_cache_size // dp  # :3302-3308
        if slots <= 0:
            return
        served = min(per_group, slots // memory.slots_per_request)  # :3313-3318
    else:
        slots = served = per_group  # --disable-radix-cache with a request count, :3325-3335
    rest = memory.rest_gb()
    if memory.draft_tokens is not None:  # the intermediate states (:3313-3324, :3338-3344)
        rest = rest - (per * (served + 1) * memory.draft_tokens / GIB)
    left = rest - (slots + 1) * (per + 0) / GIB  # :3405-3409, the padding slot included
    if left <= 0:
        raise ConfigError(
            f"loaded weights leave no GPU memory for the KV cache: {left:.2f} GiB after "
            f"{slots} fixed mamba state slots of {per / (1 << 20):.2f} MiB (SGLang "
            f"kv_cache_configurator.py:3043); raise --mem-fraction-static")


def memory_line(config: EngineSettings) -> str | None:
    """What `graphfit plan` shows for a (resolved) hybrid mamba model's state cache: its size
    from memory and what that assumed, or why it is not restated (the request pool then not
    capped by it). None when --max-mamba-cache-size fixes it."""
    if config.max_mamba_cache_size is not None:
        return None
    memory = memory_of(config) if config.mamba_memory_slots is not None else None
    if memory is None:
        why = _not_restated(config)
        if why is None:  # every input known: --disable-radix-cache with a request count
            return None
        from graphfit.planner.engines.sglang_mamba_pool import radix_off

        radix = ("--max-running-requests per DP group with the radix cache off when "
                 "given, else " if radix_off(config) else "")
        return (f"{radix}sized by SGLang from GPU memory (kv_cache_configurator.py:3362-"
                f"3394); not restated ({why}), so the request pool is not capped by it")
    given = ("given" if config.preload_avail_gb is not None else
             "assumed: the whole GPU; SGLang measures it, 'Load weight begin. avail mem', "
             "--preload-avail-gb")
    return (f"{config.mamba_memory_slots} state slots from memory: {memory.rest_gb():.2f} GiB "
            f"after weights and reserve x {memory.full_memory_ratio:g}/"
            f"(1 + {memory.full_memory_ratio:g}), {memory.bytes_per_request / (1 << 20):.2f} "
            f"MiB a request{_joint(memory)} (kv_cache_configurator.py:3362-3394); free "
            f"before loading {memory.preload_avail_gb:g} GiB ({given})")


def _joint(memory: MambaMemory) -> str:
    """The speculative part of the plan line: the intermediate states solved for jointly."""
    if memory.draft_tokens is None:
        return ""
    return (f", solved jointly with {memory.draft_tokens} intermediate SSM states per "
            f"request for 1 in {memory.slots_per_request} slots (:3344-3360)")


__all__ = ["DEFAULT_FULL_MEMORY_RATIO", "DEFAULT_SSM_DTYPE", "SHAPE_FIELDS", "MambaMemory",
           "MambaStateShape", "memory_line", "memory_of", "resolve_memory_slots"]
