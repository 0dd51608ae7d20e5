"""`EngineConfig`: the one config every ladder, padding table and capacity is derived from.

It implements `graphfit.planner.core.settings.EngineSettings`, the view engine models read;
building one asks the engine's model (through the registry) to settle engine-specific fields.

The config is engine-neutral (request pool, token budget, model length, the speculative step,
capture sizes in the engine's unit, the model's facts) plus one `options` object that the
engine's package owns, validates and documents (`VllmOptions`, `SglangOptions`,
`TrtllmOptions`; `NoOptions` for an engine that reads nothing else). The options' fields used
to be flat fields of this class: they are still accepted as keywords and read as attributes
(`EngineConfig(runner="v1").runner`), the compatibility form (`LEGACY_KEYWORDS`).
"""

from __future__ import annotations

import contextvars
import inspect
import sys
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from enum import Enum
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

from graphfit.planner.core.dtypes import DTYPE_SIZES
from graphfit.planner.core.enums import (
    CUDAGraphMode,
    Engine,
    EngineName,
    LadderPolicy,
    SpecMethod,
)
from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.options import EngineOptions, coerce_enum, sizes
from graphfit.planner.core.options import positive_int as _positive_int
from graphfit.planner.engines.base import (
    EngineModel,
    options_type,
    requests_within_token_budget,
)
from graphfit.planner.engines.registry import engine_model, engines, policy_engine
from graphfit.planner.engines.sglang_options import SglangOptions
from graphfit.planner.engines.trtllm_options import TrtllmOptions
from graphfit.planner.engines.vllm.enums import (
    AttentionSupport,
    CeilingFamily,
    PerformanceMode,
    Runner,
)
from graphfit.planner.engines.vllm.options import VllmOptions

_coerce_enum = coerce_enum
_sizes = sizes

# The options classes whose fields were flat EngineConfig fields before issue 20: each field
# name is still a keyword of EngineConfig (and an attribute), owned by exactly one class.
_COMPAT_OPTIONS: tuple[type[EngineOptions], ...] = (VllmOptions, SglangOptions, TrtllmOptions)
LEGACY_KEYWORDS: Mapping[str, type[EngineOptions]] = {
    name: owner for owner in _COMPAT_OPTIONS for name in owner.names()}
# what a config of another engine reads for each of them (EngineOptions.absent)
_ABSENT: Mapping[str, object] = {
    name: owner.absent_value(name) for name, owner in LEGACY_KEYWORDS.items()}


class CompatibilityFormWarning(DeprecationWarning):
    """An engine's option given as a flat `EngineConfig` keyword (`EngineConfig(runner="v1")`,
    `dataclasses.replace(config, tp_size=2)`): it still works and builds the same config, but
    the option belongs in `options=` (the engine's options object or a mapping of its fields).
    Readers of flat sources (`from_dict`, `from_vllm`, `from_sglang`) and `config.replace`
    take flat names without it."""


# set while graphfit's own readers build a config from flat names (no warning then)
_FLAT_SOURCE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "graphfit_flat_source", default=False)


@contextmanager
def _flat_source() -> Iterator[None]:
    token = _FLAT_SOURCE.set(True)
    try:
        yield
    finally:
        _FLAT_SOURCE.reset(token)


def _warn_flat(names: Mapping[str, object]) -> None:
    """One CompatibilityFormWarning, attributed to the caller's line (past dataclasses.replace
    and this module), naming the options class to use."""
    frame: FrameType | None = sys._getframe(2)  # this <- _init <- the caller
    level = 3
    while frame is not None and frame.f_globals.get("__name__") in ("dataclasses", __name__):
        frame, level = frame.f_back, level + 1
    owners = sorted({LEGACY_KEYWORDS[name].__name__ for name in names})
    shown = ", ".join(f"{name}=" for name in names)
    warnings.warn(f"EngineConfig({shown}): flat engine keywords are the compatibility form; "
                  f"pass options={' or '.join(owners)}(...) (or a mapping of its fields)",
                  CompatibilityFormWarning, stacklevel=level)


def _optional_int(name: str, value: object, minimum: int) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int) or value < minimum
            or value > MAX_INT):
        raise ConfigError(f"{name}: must be an integer in {minimum}..{MAX_INT}, got "
                          f"{excerpt(value)}")
    return value


def _engine(value: object) -> Engine | EngineName:
    """A built-in engine as its `Engine` member; any other registered engine (a plugin's, a
    described one) by its name; anything else a ConfigError listing the known engines."""
    if isinstance(value, Engine):
        return value
    if isinstance(value, str):
        name = value.strip().lower()
        for member in Engine:
            if name == member.value:
                return member
        if name in engines():
            return EngineName(name)
    raise ConfigError(f"engine: {excerpt(value)} is not one of {', '.join(engines())} "
                      "(a described engine: give its --engine-file)")


def _shown(value: object) -> str:
    return str(value.value) if isinstance(value, Enum) else excerpt(value)


def _foreign(name: str, value: object, engine: str) -> None:
    """A flat keyword of another engine's options: validated by its owner (same message as
    when it was a field), and accepted only at the value a config of this engine reports."""
    owner = LEGACY_KEYWORDS[name]
    coerced = getattr(owner(**{name: value}), name)
    if coerced in (owner.default(name), owner.absent_value(name)):
        return
    raise ConfigError(f"{name}: not an input of the {engine} model ({name}: {_shown(coerced)} "
                      f"is a {owner.label} option; set engine {owner.engine})")


def _options(config: EngineConfig, model: EngineModel, legacy: Mapping[str, object]
             ) -> EngineOptions:
    """The engine's options object: the one given (an object of the engine's class, or a
    mapping of its fields), with the flat compatibility keywords applied over it."""
    cls = options_type(model)
    engine = model.engine.value
    given: object = config.options
    if given is None:
        options: EngineOptions = cls()
    elif isinstance(given, Mapping):
        options = cls.from_dict(dict(given))
    elif not isinstance(given, EngineOptions):
        raise ConfigError(f"options: expected {cls.__name__} (engine {engine}'s options), got "
                          f"{excerpt(given)}")
    elif not isinstance(given, cls):
        raise ConfigError(f"options: {type(given).__name__} are {given.label}'s options, but "
                          f"engine is {engine} (it takes {cls.__name__})")
    else:
        options = given
    own = {name: value for name, value in legacy.items() if name in cls.names()}
    for name, value in legacy.items():
        if name not in own:
            _foreign(name, value, engine)
    return replace(options, **own) if own else options


def _resolve_engine(config: EngineConfig, legacy: Mapping[str, object]) -> None:
    """Coerce the engine, settle its options and let its model fill in its fields."""
    set_ = object.__setattr__
    engine = _engine(config.engine)
    set_(config, "engine", engine)
    model = engine_model(engine, config.engine_version)
    set_(config, "engine_version", model.release)
    set_(config, "options", _options(config, model, legacy))
    owner = policy_engine(config.ladder)
    if owner is not None and owner is not engine:
        raise ConfigError(
            f"ladder: {config.ladder.value} is a {owner.value} ladder, but engine is "
            f"{engine.value}")
    _optional_int("speculative_eagle_topk", config.speculative_eagle_topk, 1)
    # UNO's linear width F may be 1 (speculative_hook.py:472-477; graphfit.planner.engines.
    # sglang_uno), every other method verifies at least one draft token
    _optional_int("speculative_num_draft_tokens", config.speculative_num_draft_tokens,
                  1 if config.spec_method is SpecMethod.UNO else 2)
    if config.cuda_graph_padding is not None and not isinstance(config.cuda_graph_padding, bool):
        raise ConfigError(
            f"cuda_graph_padding: expected true/false, got {excerpt(config.cuda_graph_padding)}")
    option_names = type(config.options).names()
    own: dict[str, object] = {}
    for name, value in model.resolve(config).items():
        if name in option_names:
            own[name] = value
        else:
            set_(config, name, value)
    if own:
        set_(config, "options", replace(config.options, **own))


@dataclass(frozen=True)
class EngineConfig:
    """A serving engine's configuration, validated at construction.

    Field names follow vLLM's flags. Strings are accepted for the enum fields and coerced, so
    `EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")` works.

    `engine` is any registered engine (graphfit.planner.engines.registry: the built-in ones,
    `graphfit.engines` plugins, described engines) and `engine_version` its release; None
    resolves to the engine's default (its newest modelled release) when the config is built.

    `options` holds what only the engine reads: `VllmOptions` (runner, ceiling family,
    performance mode, attention backend and levels, DSpark layout), `SglangOptions` (GPU
    memory, TP / attention DP / CP sizes, two-batch overlap), `TrtllmOptions` (draft-length
    schedule); None builds the engine's defaults, a mapping its fields, and an object of
    another engine's class is a ConfigError naming both. Their fields are also accepted as
    flat keywords and read as attributes (the compatibility form, `LEGACY_KEYWORDS`); a flat
    keyword of another engine must keep its default.

    For `engine="sglang"` / `"trtllm"` the capture sizes and `max_cudagraph_capture_size` are
    batch sizes (requests: `--cuda-graph-bs-decode`, `--cuda-graph-max-bs-decode`,
    `CudaGraphConfig`), `num_speculative_tokens` is SGLang's `speculative_num_steps` /
    TensorRT-LLM's `max_draft_len`, `speculative_num_draft_tokens` the tokens one request
    carries in a verify step (SGLang's num_draft_tokens, TensorRT-LLM's 1 +
    max_total_draft_tokens) and `speculative_eagle_topk` the draft branching (SGLang's topk,
    NGRAM's max BFS breadth, TensorRT-LLM's dynamic_tree_max_topK).
    """

    # None resolves per engine: vLLM needs it; SGLang and TensorRT-LLM have defaults
    max_num_seqs: int = None  # type: ignore[assignment]
    max_num_batched_tokens: int = 8192
    max_model_len: int = 8192
    num_speculative_tokens: int = 0
    spec_method: SpecMethod = SpecMethod.NONE
    cudagraph_mode: CUDAGraphMode = CUDAGraphMode.FULL_AND_PIECEWISE
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    max_cudagraph_capture_size: int | None = None
    hidden_size: int = 4096
    dtype: str = "bfloat16"
    ladder: LadderPolicy = LadderPolicy.AUTO
    multimodal: bool = False
    block_size: int = 16
    mrope_dims: int = 3
    engine: Engine | EngineName = Engine.VLLM
    # the engine release modelled ("0.33.0"); None resolves to the engine's default, the
    # newest release graphfit models (graphfit.planner.engines.registry)
    engine_version: str = None  # type: ignore[assignment]
    # None resolves per engine: vLLM and SGLang pad, TensorRT-LLM's CudaGraphConfig does not
    cuda_graph_padding: bool = None  # type: ignore[assignment]
    speculative_eagle_topk: int | None = None
    speculative_num_draft_tokens: int | None = None
    # the draft model's hidden size (its hidden_states rows' width); None: the target's
    draft_hidden_size: int | None = None
    architecture: str | None = None  # the model's HF class, e.g. LlamaForCausalLM
    vocab_size: int = 128256  # the model's vocabulary (logits buffers)
    # the engine's own options (graphfit.planner.core.options); None: the engine's defaults
    options: EngineOptions = None  # type: ignore[assignment]

    if TYPE_CHECKING:  # the runtime __init__ is the dataclass's, wrapped below (_init)
        def __init__(
            self, max_num_seqs: int | None = None, max_num_batched_tokens: int = 8192,
            max_model_len: int = 8192, num_speculative_tokens: int = 0,
            spec_method: SpecMethod | str = SpecMethod.NONE,
            cudagraph_mode: CUDAGraphMode | str = CUDAGraphMode.FULL_AND_PIECEWISE,
            cudagraph_capture_sizes: tuple[int, ...] | list[int] | None = None,
            max_cudagraph_capture_size: int | None = None, hidden_size: int = 4096,
            dtype: str = "bfloat16", ladder: LadderPolicy | str = LadderPolicy.AUTO,
            multimodal: bool = False, block_size: int = 16, mrope_dims: int = 3,
            engine: Engine | EngineName | str = Engine.VLLM,
            engine_version: str | None = None, cuda_graph_padding: bool | None = None,
            speculative_eagle_topk: int | None = None,
            speculative_num_draft_tokens: int | None = None,
            draft_hidden_size: int | None = None, architecture: str | None = None,
            vocab_size: int = 128256,
            options: EngineOptions | Mapping[str, Any] | None = None, *,
            # the compatibility keywords (LEGACY_KEYWORDS): fields of the engine's options
            runner: Runner | str | None = None,
            ceiling_family: CeilingFamily | str = CeilingFamily.DEFAULT,
            performance_mode: PerformanceMode | str = PerformanceMode.BALANCED,
            attention_backend: str | None = None,
            attention_cudagraph_support: AttentionSupport | str | None = None,
            drafter_attention_cudagraph_support: AttentionSupport | str | None = None,
            dspark_sample_from_anchor: bool = True,
            gpu_memory_gb: float | None = None, tp_size: int = 1, attn_dp_size: int = 1,
            attn_cp_size: int = 1, two_batch_overlap: bool = False,
            moe_a2a_backend: str = "none",
            draft_len_schedule: tuple[int, ...] | list[int] | None = None,
            prefill_cudagraph_capture_token_sizes: tuple[int, ...] | list[int] | None = None,
            max_prefill_cudagraph_capture_tokens: int | None = None,
            decode_cudagraph_capture_request_sizes: tuple[int, ...] | list[int] | None = None,
            max_decode_cudagraph_capture_requests: int | None = None,
            max_decode_cudagraph_capture_tokens: int | None = None,
            draft_aux_layers: int | None = None,
            max_beam_width: int = 1, parallel_draft: bool = False,
            prefill_cuda_graph_backend: str = "disabled",
            prefill_capture_num_tokens: tuple[int, ...] | list[int] | None = None,
            torch_compile: bool = False,
            cuda_graph_mode: str = "decode",
            encode_num_tokens: tuple[int, ...] | list[int] | None = None,
            encode_seq_lens: tuple[int, ...] | list[int] | None = None,
            encoder_graph_batch_sizes: tuple[int, ...] | list[int] | None = None,
            encoder_graph_padding: bool = False,
            encoder_graph_num_tokens: tuple[int, ...] | list[int] | None = None,
            encoder_graph_seq_lens: tuple[int, ...] | list[int] | None = None,
            encoder_max_batch_size: int | None = None,
            encoder_max_num_tokens: int | None = None,
            encode_only: bool = False,
            encoder_fixed_slots: bool = False,
            encoder_feature_spec: tuple[tuple[int, ...], str, int] | list[object] | None = None,
            mm_encoder_graphs: tuple[object, ...] | list[object] | None = None,
            mm_encoder_inputs: tuple[object, ...] | list[object] | None = None,
            tensor_parallel_size: int = 1, enable_attention_dp: bool = False,
            cuda_graph_backend_prefill: str | None = None,
            cuda_graph_max_bs_prefill: int | None = None,
            cuda_graph_bs_prefill: tuple[int, ...] | list[int] | None = None,
            chunked_prefill_size: int | None = None, full_prefill_max_req: int | None = None,
            disaggregation_mode: str = "null", pp_size: int = 1,
            max_total_tokens: int | None = None,
            multi_layer_eagle: bool = False, mtp_draft_backend: str | None = None,
            single_cg_draft: bool = True, frozen_kv_mtp: bool = False,
            dflash_domino: bool = False, dflash_selector_top_k: int | None = None,
            speculative_adaptive: bool = False,
            mem_fraction_static: float | None = None, sm90: bool | None = None,
            vision_layers: int | None = None, vision_hidden_size: int | None = None,
            max_mamba_cache_size: int | None = None, disable_radix_cache: bool = False,
            mamba_radix_cache_strategy: str = "auto", disable_overlap_schedule: bool = False,
            page_size: int = 1, dspark_samples_anchor: bool = True,
            mamba_state_shape: tuple[int, ...] | list[int] | None = None,
            mamba_ssm_dtype: str | None = None,
            mamba_full_memory_ratio: float | None = None, weights_gb: float | None = None,
            preload_avail_gb: float | None = None,
            mamba_memory_slots: int | None = None,
            linear_attn_backend: str = "triton", mamba_track_interval: int = 256,
            mamba_chunk_size: int | None = None,
            mamba_layer_map: tuple[int, ...] | list[int] | None = None,
            mm_feature_transport: str | None = None,
            mamba_conv_dtype: str | None = None, pp_layer_partition: str | None = None,
            vlm_cache_size_mb: int | None = None, mm_feature_cache_mb: int | None = None,
            enable_pd_role_switch: bool = False, enable_unified_memory: bool = False,
            enable_dp_lm_head: bool = False, dp_spec_prefill_coordination: bool = False,
            deepep_mode: str = "auto",
            moe_runner_backend: str = "auto",
            speculative_moe_a2a_backend: str | None = None,
            dspark_proposal: str = "sampling", dspark_mid_fold: bool = False,
            dspark_post_forward_graph: bool = False,
            ragged_verify_mode: str = "static",
            dspark_target_layers: int | None = None,
            dflash_lilicorr_top_k: int | None = None,
            dflash_lilicorr_head: tuple[int, int, int] | None = None,
            dflash_eager_sampler: bool = False,
            vit: Any = None,
            sm100: bool | None = None, quant_method: str | None = None,
            quant_algo: str | None = None, megamoe_tokens_per_rank: int = 8192,
            mori_dispatch_tokens_per_rank: int = 4096,
            pplx_dispatch_tokens_per_rank: int = 128,
            deepep_v2_dispatch_tokens_per_rank: int = 128,
            flashinfer_dispatch_tokens_per_rank: int | None = None,
            moe_fp4_checkpoint: bool | None = False, megamoe_combine_dtype: str = "bf16",
            megamoe_fc2_reduce: bool = False, nvfp4_w4a16: bool = False,
            post_capture_kv_sizing: bool | None = None, post_capture_declined: bool = False,
            checkpoint_quant_method: str | None = None,
            checkpoint_quant_config: Any = None, gpu_capability: int | None = None,
            decode_attention_backend: str | None = None,
            draft_attention_backend: str | None = None,
            mooncake_protocol: str = "rdma",
            disaggregation_transfer_backend: str = "mooncake",
            dynamic_chunking: bool = False, max_prefill_tokens: int = 16384,
            hybrid_swa: bool | None = None,
            checkpoint_fp8_experts: bool | None = None,
            kimi_mxfp4_pack: bool | None = None,
            dsa_index_kpool: int = 1,
            mamba_head_counts: tuple[int, int] | None = None,
            enable_eplb: bool = False, ep_num_redundant_experts: int = 0,
            init_expert_location: str = "trivial", jit_deepgemm: bool = True,
            hf_config_quant: Any = None,
            inkling_conv_state: tuple[int, ...] | None = None,
            enable_scattered_sconv: bool = False,
            prefill_max_requests: int | None = None, ep_size: int = 1,
            ep_join_mode: str | None = None, ep_dispatch_algorithm: str | None = None,
            moe_block_experts: tuple[int, ...] | None = None,
            prefill_attention_backend: str | None = None,
            disable_lazy_compaction: bool = False,
            unified_switches: tuple[str, ...] | None = None,
            moe_dp_size: int = 1, elastic_ep_backend: str | None = None,
            node_rank: int = 0, ep_join_rank_offset: int = 0,
            max_ep_size: int | None = None, elastic_ep_initial_size: int | None = None,
            eplb_algorithm: str = "auto",
            draft_vocab_size: int | None = None, draft_dtype: str | None = None,
            draft_extend_hidden_size: int | None = None,
            swa_full_tokens_ratio: float | None = None,
            swa_prefix_tails: int | None = None,
            disaggregation_decode_extra_slots: int | None = None,
            disaggregation_decode_enable_radix_cache: bool = False,
            dsv4_pool_shape: Any = None,
            dsv4_state_dtype: str | None = None,
            dsv4_env_unmodelled: str | None = None,
            dcp_size: int = 1,
            dcp_comm_backend: str | None = None,
            unified_linear: tuple[str | None, str, str] | None = None,
            asymmetric_kv: bool | None = None,
            hook_cudagraph_mode: str | None = None,
            hook_prefill_backend: str | None = None,
            enable_waterfill: bool = False,
            dwdp_size: int = 1, enable_aiter_allreduce_fusion: bool = False,
            enable_deterministic_inference: bool = False,
            rl_on_policy_target: str | None = None,
            attention_backend_flag: str | None = None,
            context_parallel_size: int = 1, cp_type: str | None = None,
            moe_expert_parallel_size: int | None = None,
            dp_replicas: int = 1, enable_hisparse: bool = False,
            dsv4_attn_backend: str | None = None,
            enable_encoder_swa_bounded_replay: bool = False,
            moe_tensor_parallel_size: int | None = None,
            moe_cluster_parallel_size: int | None = None,
            moe_a2a_workspace_mb: str | None = None,
            moe_a2a_token: tuple[int, int, int] | None = None,
            inkling_draft_conv_state: tuple[int, ...] | None = None,
            nnodes: int = 1,
            draft_quantization: str | None = None,
            kv_cache_dtype: str | None = None,
            draft_quant_config: str | None = None,
            enable_mixed_chunk: bool = False, enable_lora: bool = False,
            enable_session_radix_cache: bool = False,
            minimax_sparse_kv: tuple[int, ...] | None = None,
            dspark_draft_layers: int | None = None,
            prefill_cp_strategy: str | None = None,
            dspark_early_verify_metadata: bool = False,
            draft_moe_class: str | None = None,
            mnnvl_fabric: bool | None = None,
            prefill_cp_hook_backend: str | None = None,
            nixl_dispatch_tokens_per_rank: int = 128,
            mooncake_dispatch_tokens_per_rank: int = 128,
            moe_a2a_force_method: str | None = None,
            moe_configurable: str | None = None,
            trtllm_moe_backend: str | None = None,
            moe_load_balancer: bool = False,
            moe_comm_force_method: str | None = None,
            nvfp4_moe_layers: str | None = None,
            prefill_cp_family: str | None = None,
            prefill_cp_given: tuple[int, int, int, int, str] | None = None,
            cp_tp_group_sharing: bool = False,
            moe_eplb_experts: int | None = None,
            moe_auto_checkpoint: tuple[str, str] | None = None,
            speculative_moe_runner_backend: str | None = None,
            sm_version: int | None = None,
            enable_layernorm_sp: bool = False,
            enable_megamoe_for_layernorm_sp: bool = False,
            moe_nvfp4_dispatch: bool | None = None,
            lora_backend: str | None = None,
            lora_paths_given: bool = False,
            max_lora_rank: int | None = None,
            lora_target_modules_given: bool = False,
            max_loras_per_batch: int = 8,
            enable_lora_overlap_loading: bool = False,
            max_loaded_loras: int | None = None,
            lora_paths_count: int = 0,
            lora_target_all_mixed: bool = False,
            lora_drain_wait_threshold: float = 0.0,
            enable_pdmux: bool = False,
            lora_experimental_opti: bool = False,
            overlap_plan_stream: bool = False,
            lora_paths_invalid: str | None = None,
            lora_disabled: bool = False,
            draft_build_failure: str | None = None,
            enable_torch_compile: bool = False,
            pp_spec: bool = False,
            server_flag_refusals: tuple[tuple[str, str], ...] | None = None,
            dsa_checkpoint: bool | None = None,
            dense_model: bool = False,
            disable_attn_tp_gather: bool = False,
            gpu_rocm: bool = False,
            moe_dense_tp_size: int | None = None,
            draft_mtp_unquantized: str | None = None,
            target_build_failure: str | None = None,
            model_chunk_off: bool | None = None,
            dsa_backends: tuple[str | None, str | None] | None = None,
            nvfp4_ckpt_fp8_nextn_moe: bool = False,
            moe_disable_alltoallv: str | None = None,
            moe_can_use_deep_ep: str | None = None,
            dsa_learnable_sink: bool | None = None,
            gelu_moe_target: bool = False,
            moe_a2a_dtype: str | None = None,
            draft_mtp_experts_algo: str | None = None,
            mori_ep_v2: bool | None = None,
            mori_recv_bound: bool = False,
            context_length_read: bool = False,
            draft_nextn_unquantized: str | None = None,
            mori_use_aiter: bool = False, mori_sdma: bool = False) -> None: ...

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        legacy: Mapping[str, object] = self.__dict__.get("_legacy", {})
        if self.max_num_seqs is not None:
            _positive_int("max_num_seqs", self.max_num_seqs)
        for name in ("max_num_batched_tokens", "max_model_len", "hidden_size",
                     "block_size", "mrope_dims", "vocab_size"):
            _positive_int(name, getattr(self, name))
        k = self.num_speculative_tokens
        if isinstance(k, bool) or not isinstance(k, int) or k < 0 or k > MAX_INT:
            raise ConfigError(f"num_speculative_tokens: must be an integer in 0..{MAX_INT}, "
                              f"got {excerpt(k)}")
        set_(self, "spec_method", _coerce_enum("spec_method", SpecMethod, self.spec_method))
        set_(self, "cudagraph_mode",
             _coerce_enum("cudagraph_mode", CUDAGraphMode, self.cudagraph_mode))
        set_(self, "ladder", _coerce_enum("ladder", LadderPolicy, self.ladder))
        set_(self, "cudagraph_capture_sizes",
             _sizes("cudagraph_capture_sizes", self.cudagraph_capture_sizes))
        if self.max_cudagraph_capture_size is not None and not (
                self.max_cudagraph_capture_size == 0
                and self.cudagraph_mode is CUDAGraphMode.NONE
                and not isinstance(self.max_cudagraph_capture_size, bool)):
            # 0 with mode NONE is vLLM's own "no graphs" (0.33 config/vllm.py:2447-2451 skips
            # every sizing check and records 0); with graphs vLLM asserts >= 1
            _positive_int("max_cudagraph_capture_size", self.max_cudagraph_capture_size)
        if self.draft_hidden_size is not None:
            _positive_int("draft_hidden_size", self.draft_hidden_size)
        arch = self.architecture
        if arch is not None and (not isinstance(arch, str) or not arch.strip()):
            raise ConfigError(f"architecture: expected a model class name, got {arch!r}")
        for name, value in legacy.items():  # each keyword's own checks, before the engine's
            getattr(LEGACY_KEYWORDS[name](**{name: value}), name)
        _resolve_engine(self, legacy)
        if self.max_cudagraph_capture_size == 0 and getattr(
                self.engine, "value", self.engine) != Engine.VLLM.value:
            raise ConfigError("max_cudagraph_capture_size: must be >= 1, got 0 (0 is vLLM's "
                              "'no graphs' with cudagraph_mode NONE only)")
        if self.max_num_seqs is None:
            raise ConfigError("max_num_seqs: missing (pass --max-num-seqs, "
                              "--max-running-requests, --max-batch-size or set it in --config)")
        _positive_int("max_num_seqs", self.max_num_seqs)
        if not isinstance(self.dtype, str) or self.dtype not in DTYPE_SIZES:
            raise ConfigError(f"dtype: {excerpt(self.dtype)} is not one of "
                              f"{', '.join(DTYPE_SIZES)}")
        if not isinstance(self.multimodal, bool):
            raise ConfigError(f"multimodal: expected true/false, got {excerpt(self.multimodal)}")
        if (self.max_num_batched_tokens < self.max_num_seqs
                and requests_within_token_budget(self.model)):
            raise ConfigError(
                f"max_num_batched_tokens: {self.max_num_batched_tokens} is below max_num_seqs "
                f"{self.max_num_seqs} (vLLM rejects this too)")
        method = self.spec_method
        if method is SpecMethod.NONE and k > 0:
            raise ConfigError(
                "num_speculative_tokens: > 0 needs a speculative method (spec_method)")
        # UNO's linear width F may be 1 (speculative_hook.py:472-477 asks only F >= 1)
        if method not in (SpecMethod.NONE, SpecMethod.UNO) and self.uniform_query_len < 2:
            raise ConfigError(f"num_speculative_tokens: method {method.value} needs k >= 1")
        if self.ladder is LadderPolicy.EXPLICIT and self.cudagraph_capture_sizes is None:
            raise ConfigError("cudagraph_capture_sizes: the explicit ladder needs a list")
        if (isinstance(self.options, VllmOptions) and self.options.draft_aux_layers is not None
                and method not in (SpecMethod.DFLASH, SpecMethod.DSPARK)):
            raise ConfigError(f"draft_aux_layers: only for spec_method dflash or dspark (the "
                              f"MRV2 drafters that stage aux hidden states), not {method.value}")

    # -- the compatibility reads: the engine's options' fields (another engine's read as
    # the value its options class reports elsewhere, see EngineOptions.absent) --------------

    def _option(self, name: str) -> Any:
        options = self.options
        if isinstance(options, LEGACY_KEYWORDS[name]):
            return getattr(options, name)
        return _ABSENT[name]

    @property
    def runner(self) -> Runner:
        """VllmOptions.runner (V1 for engines with one runner)."""
        return cast(Runner, self._option("runner"))

    @property
    def ceiling_family(self) -> CeilingFamily:
        """VllmOptions.ceiling_family."""
        return cast(CeilingFamily, self._option("ceiling_family"))

    @property
    def performance_mode(self) -> PerformanceMode:
        """VllmOptions.performance_mode."""
        return cast(PerformanceMode, self._option("performance_mode"))

    @property
    def attention_backend(self) -> str | None:
        """VllmOptions.attention_backend."""
        return cast("str | None", self._option("attention_backend"))

    @property
    def attention_cudagraph_support(self) -> AttentionSupport | None:
        """VllmOptions.attention_cudagraph_support."""
        return cast("AttentionSupport | None", self._option("attention_cudagraph_support"))

    @property
    def drafter_attention_cudagraph_support(self) -> AttentionSupport | None:
        """VllmOptions.drafter_attention_cudagraph_support."""
        return cast("AttentionSupport | None",
                    self._option("drafter_attention_cudagraph_support"))

    @property
    def dspark_sample_from_anchor(self) -> bool:
        """VllmOptions.dspark_sample_from_anchor."""
        return cast(bool, self._option("dspark_sample_from_anchor"))

    @property
    def gpu_memory_gb(self) -> float | None:
        """SglangOptions.gpu_memory_gb."""
        return cast("float | None", self._option("gpu_memory_gb"))

    @property
    def tp_size(self) -> int:
        """SglangOptions.tp_size."""
        return cast(int, self._option("tp_size"))

    @property
    def attn_dp_size(self) -> int:
        """SglangOptions.attn_dp_size."""
        return cast(int, self._option("attn_dp_size"))

    @property
    def attn_cp_size(self) -> int:
        """SglangOptions.attn_cp_size."""
        return cast(int, self._option("attn_cp_size"))

    @property
    def two_batch_overlap(self) -> bool:
        """SglangOptions.two_batch_overlap."""
        return cast(bool, self._option("two_batch_overlap"))

    @property
    def moe_a2a_backend(self) -> str:
        """SglangOptions.moe_a2a_backend."""
        return cast(str, self._option("moe_a2a_backend"))

    @property
    def draft_len_schedule(self) -> tuple[int, ...] | None:
        """TrtllmOptions.draft_len_schedule."""
        return cast("tuple[int, ...] | None", self._option("draft_len_schedule"))

    @property
    def prefill_cudagraph_capture_token_sizes(self) -> tuple[int, ...] | None:
        """VllmOptions.prefill_cudagraph_capture_token_sizes."""
        return cast("tuple[int, ...] | None",
                    self._option("prefill_cudagraph_capture_token_sizes"))

    @property
    def decode_cudagraph_capture_request_sizes(self) -> tuple[int, ...] | None:
        """VllmOptions.decode_cudagraph_capture_request_sizes."""
        return cast("tuple[int, ...] | None",
                    self._option("decode_cudagraph_capture_request_sizes"))

    @property
    def max_prefill_cudagraph_capture_tokens(self) -> int | None:
        """VllmOptions.max_prefill_cudagraph_capture_tokens."""
        return cast("int | None", self._option("max_prefill_cudagraph_capture_tokens"))

    @property
    def max_decode_cudagraph_capture_requests(self) -> int | None:
        """VllmOptions.max_decode_cudagraph_capture_requests."""
        return cast("int | None", self._option("max_decode_cudagraph_capture_requests"))

    @property
    def max_decode_cudagraph_capture_tokens(self) -> int | None:
        """VllmOptions.max_decode_cudagraph_capture_tokens."""
        return cast("int | None", self._option("max_decode_cudagraph_capture_tokens"))

    @property
    def draft_aux_layers(self) -> int | None:
        """VllmOptions.draft_aux_layers."""
        return cast("int | None", self._option("draft_aux_layers"))

    @property
    def max_beam_width(self) -> int:
        """TrtllmOptions.max_beam_width."""
        return cast(int, self._option("max_beam_width"))

    @property
    def parallel_draft(self) -> bool:
        """TrtllmOptions.parallel_draft."""
        return cast(bool, self._option("parallel_draft"))

    @property
    def prefill_cuda_graph_backend(self) -> str:
        """TrtllmOptions.prefill_cuda_graph_backend."""
        return cast(str, self._option("prefill_cuda_graph_backend"))

    @property
    def prefill_capture_num_tokens(self) -> tuple[int, ...] | None:
        """TrtllmOptions.prefill_capture_num_tokens."""
        return cast("tuple[int, ...] | None", self._option("prefill_capture_num_tokens"))

    @property
    def torch_compile(self) -> bool:
        """TrtllmOptions.torch_compile."""
        return cast(bool, self._option("torch_compile"))

    @property
    def cuda_graph_mode(self) -> str:
        """TrtllmOptions.cuda_graph_mode."""
        return cast(str, self._option("cuda_graph_mode"))

    @property
    def encode_num_tokens(self) -> tuple[int, ...] | None:
        """TrtllmOptions.encode_num_tokens."""
        return cast("tuple[int, ...] | None", self._option("encode_num_tokens"))

    @property
    def encode_seq_lens(self) -> tuple[int, ...] | None:
        """TrtllmOptions.encode_seq_lens."""
        return cast("tuple[int, ...] | None", self._option("encode_seq_lens"))

    @property
    def encoder_graph_batch_sizes(self) -> tuple[int, ...] | None:
        """TrtllmOptions.encoder_graph_batch_sizes."""
        return cast("tuple[int, ...] | None", self._option("encoder_graph_batch_sizes"))

    @property
    def encoder_graph_padding(self) -> bool:
        """TrtllmOptions.encoder_graph_padding."""
        return cast(bool, self._option("encoder_graph_padding"))

    @property
    def encoder_graph_num_tokens(self) -> tuple[int, ...] | None:
        """TrtllmOptions.encoder_graph_num_tokens."""
        return cast("tuple[int, ...] | None", self._option("encoder_graph_num_tokens"))

    @property
    def encoder_graph_seq_lens(self) -> tuple[int, ...] | None:
        """TrtllmOptions.encoder_graph_seq_lens."""
        return cast("tuple[int, ...] | None", self._option("encoder_graph_seq_lens"))

    @property
    def encoder_max_batch_size(self) -> int | None:
        """TrtllmOptions.encoder_max_batch_size."""
        return cast("int | None", self._option("encoder_max_batch_size"))

    @property
    def encoder_max_num_tokens(self) -> int | None:
        """TrtllmOptions.encoder_max_num_tokens."""
        return cast("int | None", self._option("encoder_max_num_tokens"))

    @property
    def encode_only(self) -> bool:
        """TrtllmOptions.encode_only."""
        return cast(bool, self._option("encode_only"))

    @property
    def encoder_fixed_slots(self) -> bool:
        """TrtllmOptions.encoder_fixed_slots."""
        return cast(bool, self._option("encoder_fixed_slots"))

    @property
    def encoder_feature_spec(self) -> tuple[tuple[int, ...], str, int] | None:
        """TrtllmOptions.encoder_feature_spec."""
        return cast("tuple[tuple[int, ...], str, int] | None",
                    self._option("encoder_feature_spec"))

    @property
    def mm_encoder_graphs(self) -> tuple[tuple[str, tuple[tuple[int, int], ...], bool], ...] | None:
        """TrtllmOptions.mm_encoder_graphs."""
        return cast("tuple[tuple[str, tuple[tuple[int, int], ...], bool], ...] | None",
                    self._option("mm_encoder_graphs"))

    @property
    def mm_encoder_inputs(self) -> tuple[tuple[str, tuple[tuple[str, tuple[int, ...], str],
                                                          ...]], ...] | None:
        """TrtllmOptions.mm_encoder_inputs."""
        return cast("tuple[tuple[str, tuple[tuple[str, tuple[int, ...], str], ...]], ...] "
                    "| None", self._option("mm_encoder_inputs"))

    @property
    def tensor_parallel_size(self) -> int:
        """TrtllmOptions.tensor_parallel_size."""
        return cast(int, self._option("tensor_parallel_size"))

    @property
    def enable_attention_dp(self) -> bool:
        """TrtllmOptions.enable_attention_dp."""
        return cast(bool, self._option("enable_attention_dp"))

    @property
    def context_parallel_size(self) -> int:
        """TrtllmOptions.context_parallel_size."""
        return cast(int, self._option("context_parallel_size"))

    @property
    def cp_type(self) -> str | None:
        """TrtllmOptions.cp_type."""
        return cast("str | None", self._option("cp_type"))

    @property
    def moe_expert_parallel_size(self) -> int | None:
        """TrtllmOptions.moe_expert_parallel_size."""
        return cast("int | None", self._option("moe_expert_parallel_size"))

    @property
    def moe_tensor_parallel_size(self) -> int | None:
        """TrtllmOptions.moe_tensor_parallel_size."""
        return cast("int | None", self._option("moe_tensor_parallel_size"))

    @property
    def moe_cluster_parallel_size(self) -> int | None:
        """TrtllmOptions.moe_cluster_parallel_size."""
        return cast("int | None", self._option("moe_cluster_parallel_size"))

    @property
    def moe_a2a_workspace_mb(self) -> str | None:
        """TrtllmOptions.moe_a2a_workspace_mb."""
        return cast("str | None", self._option("moe_a2a_workspace_mb"))

    @property
    def moe_a2a_token(self) -> tuple[int, int, int] | None:
        """TrtllmOptions.moe_a2a_token."""
        return cast("tuple[int, int, int] | None", self._option("moe_a2a_token"))

    @property
    def moe_a2a_force_method(self) -> str | None:
        """TrtllmOptions.moe_a2a_force_method."""
        return cast("str | None", self._option("moe_a2a_force_method"))

    @property
    def moe_configurable(self) -> str | None:
        """TrtllmOptions.moe_configurable."""
        return cast("str | None", self._option("moe_configurable"))

    @property
    def trtllm_moe_backend(self) -> str | None:
        """TrtllmOptions.trtllm_moe_backend."""
        return cast("str | None", self._option("trtllm_moe_backend"))

    @property
    def moe_load_balancer(self) -> bool:
        """TrtllmOptions.moe_load_balancer."""
        return cast(bool, self._option("moe_load_balancer"))

    @property
    def moe_comm_force_method(self) -> str | None:
        """TrtllmOptions.moe_comm_force_method."""
        return cast("str | None", self._option("moe_comm_force_method"))

    @property
    def moe_eplb_experts(self) -> int | None:
        """TrtllmOptions.moe_eplb_experts."""
        return cast("int | None", self._option("moe_eplb_experts"))

    @property
    def moe_auto_checkpoint(self) -> tuple[str, str] | None:
        """TrtllmOptions.moe_auto_checkpoint."""
        return cast("tuple[str, str] | None", self._option("moe_auto_checkpoint"))

    @property
    def sm_version(self) -> int | None:
        """TrtllmOptions.sm_version."""
        return cast("int | None", self._option("sm_version"))

    @property
    def cuda_graph_backend_prefill(self) -> str | None:
        """SglangOptions.cuda_graph_backend_prefill."""
        return cast("str | None", self._option("cuda_graph_backend_prefill"))

    @property
    def cuda_graph_max_bs_prefill(self) -> int | None:
        """SglangOptions.cuda_graph_max_bs_prefill."""
        return cast("int | None", self._option("cuda_graph_max_bs_prefill"))

    @property
    def cuda_graph_bs_prefill(self) -> tuple[int, ...] | None:
        """SglangOptions.cuda_graph_bs_prefill."""
        return cast("tuple[int, ...] | None", self._option("cuda_graph_bs_prefill"))

    @property
    def chunked_prefill_size(self) -> int | None:
        """SglangOptions.chunked_prefill_size."""
        return cast("int | None", self._option("chunked_prefill_size"))

    @property
    def full_prefill_max_req(self) -> int | None:
        """SglangOptions.full_prefill_max_req."""
        return cast("int | None", self._option("full_prefill_max_req"))

    @property
    def max_total_tokens(self) -> int | None:
        """SglangOptions.max_total_tokens."""
        return cast("int | None", self._option("max_total_tokens"))

    @property
    def sm90(self) -> bool | None:
        """SglangOptions.sm90."""
        return cast("bool | None", self._option("sm90"))

    @property
    def max_mamba_cache_size(self) -> int | None:
        """SglangOptions.max_mamba_cache_size."""
        return cast("int | None", self._option("max_mamba_cache_size"))

    @property
    def disable_radix_cache(self) -> bool:
        """SglangOptions.disable_radix_cache."""
        return cast(bool, self._option("disable_radix_cache"))

    @property
    def mamba_radix_cache_strategy(self) -> str:
        """SglangOptions.mamba_radix_cache_strategy."""
        return cast(str, self._option("mamba_radix_cache_strategy"))

    @property
    def disable_overlap_schedule(self) -> bool:
        """SglangOptions.disable_overlap_schedule."""
        return cast(bool, self._option("disable_overlap_schedule"))

    @property
    def page_size(self) -> int:
        """SglangOptions.page_size."""
        return cast(int, self._option("page_size"))

    @property
    def mamba_state_shape(self) -> tuple[int, ...] | None:
        """SglangOptions.mamba_state_shape."""
        return cast("tuple[int, ...] | None", self._option("mamba_state_shape"))

    @property
    def mm_feature_transport(self) -> str | None:
        """SglangOptions.mm_feature_transport."""
        return cast("str | None", self._option("mm_feature_transport"))

    @property
    def mamba_layer_map(self) -> tuple[int, ...] | None:
        """SglangOptions.mamba_layer_map."""
        return cast("tuple[int, ...] | None", self._option("mamba_layer_map"))

    @property
    def mamba_conv_dtype(self) -> str | None:
        """SglangOptions.mamba_conv_dtype."""
        return cast("str | None", self._option("mamba_conv_dtype"))

    @property
    def pp_layer_partition(self) -> str | None:
        """SglangOptions.pp_layer_partition."""
        return cast("str | None", self._option("pp_layer_partition"))

    @property
    def vlm_cache_size_mb(self) -> int | None:
        """SglangOptions.vlm_cache_size_mb."""
        return cast("int | None", self._option("vlm_cache_size_mb"))

    @property
    def mm_feature_cache_mb(self) -> int | None:
        """SglangOptions.mm_feature_cache_mb."""
        return cast("int | None", self._option("mm_feature_cache_mb"))

    @property
    def enable_pd_role_switch(self) -> bool:
        """SglangOptions.enable_pd_role_switch."""
        return cast("bool", self._option("enable_pd_role_switch"))

    @property
    def enable_unified_memory(self) -> bool:
        """SglangOptions.enable_unified_memory."""
        return cast("bool", self._option("enable_unified_memory"))

    @property
    def enable_dp_lm_head(self) -> bool:
        """SglangOptions.enable_dp_lm_head."""
        return cast("bool", self._option("enable_dp_lm_head"))

    @property
    def dp_spec_prefill_coordination(self) -> bool:
        """SglangOptions.dp_spec_prefill_coordination."""
        return cast("bool", self._option("dp_spec_prefill_coordination"))

    @property
    def mamba_ssm_dtype(self) -> str | None:
        """SglangOptions.mamba_ssm_dtype."""
        return cast("str | None", self._option("mamba_ssm_dtype"))

    @property
    def mamba_full_memory_ratio(self) -> float | None:
        """SglangOptions.mamba_full_memory_ratio."""
        return cast("float | None", self._option("mamba_full_memory_ratio"))

    @property
    def weights_gb(self) -> float | None:
        """SglangOptions.weights_gb."""
        return cast("float | None", self._option("weights_gb"))

    @property
    def preload_avail_gb(self) -> float | None:
        """SglangOptions.preload_avail_gb."""
        return cast("float | None", self._option("preload_avail_gb"))

    @property
    def mamba_memory_slots(self) -> int | None:
        """SglangOptions.mamba_memory_slots."""
        return cast("int | None", self._option("mamba_memory_slots"))

    @property
    def linear_attn_backend(self) -> str:
        """SglangOptions.linear_attn_backend."""
        return cast(str, self._option("linear_attn_backend"))

    @property
    def mamba_track_interval(self) -> int:
        """SglangOptions.mamba_track_interval."""
        return cast(int, self._option("mamba_track_interval"))

    @property
    def mamba_chunk_size(self) -> int | None:
        """SglangOptions.mamba_chunk_size."""
        return cast("int | None", self._option("mamba_chunk_size"))

    @property
    def speculative_moe_a2a_backend(self) -> str | None:
        """SglangOptions.speculative_moe_a2a_backend."""
        return cast("str | None", self._option("speculative_moe_a2a_backend"))

    @property
    def dspark_proposal(self) -> str:
        """SglangOptions.dspark_proposal."""
        return cast(str, self._option("dspark_proposal"))

    @property
    def dspark_mid_fold(self) -> bool:
        """SglangOptions.dspark_mid_fold."""
        return cast(bool, self._option("dspark_mid_fold"))

    @property
    def dspark_post_forward_graph(self) -> bool:
        """SglangOptions.dspark_post_forward_graph."""
        return cast(bool, self._option("dspark_post_forward_graph"))

    @property
    def ragged_verify_mode(self) -> str:
        """SglangOptions.ragged_verify_mode."""
        return cast(str, self._option("ragged_verify_mode"))

    @property
    def dspark_target_layers(self) -> int | None:
        """SglangOptions.dspark_target_layers."""
        return cast("int | None", self._option("dspark_target_layers"))

    @property
    def dflash_lilicorr_top_k(self) -> int | None:
        """SglangOptions.dflash_lilicorr_top_k."""
        return cast("int | None", self._option("dflash_lilicorr_top_k"))

    @property
    def dflash_lilicorr_head(self) -> tuple[int, int, int] | None:
        """SglangOptions.dflash_lilicorr_head."""
        return cast("tuple[int, int, int] | None", self._option("dflash_lilicorr_head"))

    @property
    def dflash_eager_sampler(self) -> bool:
        """SglangOptions.dflash_eager_sampler."""
        return cast(bool, self._option("dflash_eager_sampler"))

    @property
    def vit(self) -> tuple[tuple[str, object], ...] | None:
        """SglangOptions.vit."""
        return cast("tuple[tuple[str, object], ...] | None", self._option("vit"))

    @property
    def sm100(self) -> bool | None:
        """SglangOptions.sm100."""
        return cast("bool | None", self._option("sm100"))

    @property
    def quant_method(self) -> str | None:
        """SglangOptions.quant_method."""
        return cast("str | None", self._option("quant_method"))

    @property
    def quant_algo(self) -> str | None:
        """SglangOptions.quant_algo."""
        return cast("str | None", self._option("quant_algo"))

    @property
    def megamoe_tokens_per_rank(self) -> int:
        """SglangOptions.megamoe_tokens_per_rank."""
        return cast(int, self._option("megamoe_tokens_per_rank"))

    @property
    def mori_dispatch_tokens_per_rank(self) -> int:
        """SglangOptions.mori_dispatch_tokens_per_rank."""
        return cast(int, self._option("mori_dispatch_tokens_per_rank"))

    @property
    def pplx_dispatch_tokens_per_rank(self) -> int:
        """SglangOptions.pplx_dispatch_tokens_per_rank."""
        return cast(int, self._option("pplx_dispatch_tokens_per_rank"))

    @property
    def deepep_v2_dispatch_tokens_per_rank(self) -> int:
        """SglangOptions.deepep_v2_dispatch_tokens_per_rank."""
        return cast(int, self._option("deepep_v2_dispatch_tokens_per_rank"))

    @property
    def flashinfer_dispatch_tokens_per_rank(self) -> int | None:
        """SglangOptions.flashinfer_dispatch_tokens_per_rank."""
        return cast("int | None", self._option("flashinfer_dispatch_tokens_per_rank"))

    @property
    def moe_fp4_checkpoint(self) -> bool | None:
        """SglangOptions.moe_fp4_checkpoint."""
        return cast("bool | None", self._option("moe_fp4_checkpoint"))

    @property
    def megamoe_combine_dtype(self) -> str:
        """SglangOptions.megamoe_combine_dtype."""
        return cast(str, self._option("megamoe_combine_dtype"))

    @property
    def megamoe_fc2_reduce(self) -> bool:
        """SglangOptions.megamoe_fc2_reduce."""
        return cast(bool, self._option("megamoe_fc2_reduce"))

    @property
    def nvfp4_w4a16(self) -> bool:
        """SglangOptions.nvfp4_w4a16."""
        return cast(bool, self._option("nvfp4_w4a16"))

    @property
    def post_capture_kv_sizing(self) -> bool | None:
        """SglangOptions.post_capture_kv_sizing."""
        return cast("bool | None", self._option("post_capture_kv_sizing"))

    @property
    def post_capture_declined(self) -> bool:
        """SglangOptions.post_capture_declined."""
        return cast(bool, self._option("post_capture_declined"))

    @property
    def mooncake_protocol(self) -> str:
        """SglangOptions.mooncake_protocol."""
        return cast(str, self._option("mooncake_protocol"))

    @property
    def disaggregation_transfer_backend(self) -> str:
        """SglangOptions.disaggregation_transfer_backend."""
        return cast(str, self._option("disaggregation_transfer_backend"))

    @property
    def dynamic_chunking(self) -> bool:
        """SglangOptions.dynamic_chunking."""
        return cast(bool, self._option("dynamic_chunking"))

    @property
    def max_prefill_tokens(self) -> int:
        """SglangOptions.max_prefill_tokens."""
        return cast(int, self._option("max_prefill_tokens"))

    @property
    def hybrid_swa(self) -> bool | None:
        """SglangOptions.hybrid_swa."""
        return cast("bool | None", self._option("hybrid_swa"))

    @property
    def checkpoint_quant_method(self) -> str | None:
        """SglangOptions.checkpoint_quant_method."""
        return cast("str | None", self._option("checkpoint_quant_method"))

    @property
    def checkpoint_quant_config(self) -> str | None:
        """SglangOptions.checkpoint_quant_config."""
        return cast("str | None", self._option("checkpoint_quant_config"))

    @property
    def gpu_capability(self) -> int | None:
        """SglangOptions.gpu_capability."""
        return cast("int | None", self._option("gpu_capability"))

    @property
    def decode_attention_backend(self) -> str | None:
        """SglangOptions.decode_attention_backend."""
        return cast("str | None", self._option("decode_attention_backend"))

    @property
    def draft_attention_backend(self) -> str | None:
        """SglangOptions.draft_attention_backend."""
        return cast("str | None", self._option("draft_attention_backend"))

    @property
    def checkpoint_fp8_experts(self) -> bool | None:
        """SglangOptions.checkpoint_fp8_experts."""
        return cast("bool | None", self._option("checkpoint_fp8_experts"))

    @property
    def kimi_mxfp4_pack(self) -> bool | None:
        """SglangOptions.kimi_mxfp4_pack."""
        return cast("bool | None", self._option("kimi_mxfp4_pack"))

    @property
    def dsa_index_kpool(self) -> int:
        """SglangOptions.dsa_index_kpool."""
        return cast("int", self._option("dsa_index_kpool"))

    @property
    def mamba_head_counts(self) -> tuple[int, int] | None:
        """SglangOptions.mamba_head_counts."""
        return cast("tuple[int, int] | None", self._option("mamba_head_counts"))

    @property
    def enable_eplb(self) -> bool:
        """SglangOptions.enable_eplb."""
        return cast(bool, self._option("enable_eplb"))

    @property
    def ep_num_redundant_experts(self) -> int:
        """SglangOptions.ep_num_redundant_experts."""
        return cast(int, self._option("ep_num_redundant_experts"))

    @property
    def init_expert_location(self) -> str:
        """SglangOptions.init_expert_location."""
        return cast(str, self._option("init_expert_location"))

    @property
    def jit_deepgemm(self) -> bool:
        """SglangOptions.jit_deepgemm."""
        return cast(bool, self._option("jit_deepgemm"))

    @property
    def hf_config_quant(self) -> str | None:
        """SglangOptions.hf_config_quant."""
        return cast("str | None", self._option("hf_config_quant"))

    @property
    def inkling_conv_state(self) -> tuple[int, ...] | None:
        """SglangOptions.inkling_conv_state."""
        return cast("tuple[int, ...] | None", self._option("inkling_conv_state"))

    @property
    def enable_scattered_sconv(self) -> bool:
        """SglangOptions.enable_scattered_sconv."""
        return cast(bool, self._option("enable_scattered_sconv"))

    @property
    def prefill_max_requests(self) -> int | None:
        """SglangOptions.prefill_max_requests."""
        return cast("int | None", self._option("prefill_max_requests"))

    @property
    def ep_size(self) -> int:
        """SglangOptions.ep_size."""
        return cast(int, self._option("ep_size"))

    @property
    def ep_join_mode(self) -> str | None:
        """SglangOptions.ep_join_mode."""
        return cast("str | None", self._option("ep_join_mode"))

    @property
    def ep_dispatch_algorithm(self) -> str | None:
        """SglangOptions.ep_dispatch_algorithm."""
        return cast("str | None", self._option("ep_dispatch_algorithm"))

    @property
    def moe_block_experts(self) -> tuple[int, ...] | None:
        """SglangOptions.moe_block_experts."""
        return cast("tuple[int, ...] | None", self._option("moe_block_experts"))

    @property
    def prefill_attention_backend(self) -> str | None:
        """SglangOptions.prefill_attention_backend."""
        return cast("str | None", self._option("prefill_attention_backend"))

    @property
    def disable_lazy_compaction(self) -> bool:
        """SglangOptions.disable_lazy_compaction."""
        return cast(bool, self._option("disable_lazy_compaction"))

    @property
    def unified_switches(self) -> tuple[str, ...] | None:
        """SglangOptions.unified_switches."""
        return cast("tuple[str, ...] | None", self._option("unified_switches"))

    @property
    def moe_dp_size(self) -> int:
        """SglangOptions.moe_dp_size."""
        return cast(int, self._option("moe_dp_size"))

    @property
    def elastic_ep_backend(self) -> str | None:
        """SglangOptions.elastic_ep_backend."""
        return cast("str | None", self._option("elastic_ep_backend"))

    @property
    def node_rank(self) -> int:
        """SglangOptions.node_rank."""
        return cast(int, self._option("node_rank"))

    @property
    def ep_join_rank_offset(self) -> int:
        """SglangOptions.ep_join_rank_offset."""
        return cast(int, self._option("ep_join_rank_offset"))

    @property
    def max_ep_size(self) -> int | None:
        """SglangOptions.max_ep_size."""
        return cast("int | None", self._option("max_ep_size"))

    @property
    def elastic_ep_initial_size(self) -> int | None:
        """SglangOptions.elastic_ep_initial_size."""
        return cast("int | None", self._option("elastic_ep_initial_size"))

    @property
    def eplb_algorithm(self) -> str:
        """SglangOptions.eplb_algorithm."""
        return cast(str, self._option("eplb_algorithm"))

    @property
    def draft_vocab_size(self) -> int | None:
        """SglangOptions.draft_vocab_size."""
        return cast("int | None", self._option("draft_vocab_size"))

    @property
    def draft_dtype(self) -> str | None:
        """SglangOptions.draft_dtype."""
        return cast("str | None", self._option("draft_dtype"))

    @property
    def draft_extend_hidden_size(self) -> int | None:
        """SglangOptions.draft_extend_hidden_size."""
        return cast("int | None", self._option("draft_extend_hidden_size"))

    @property
    def swa_full_tokens_ratio(self) -> float | None:
        """SglangOptions.swa_full_tokens_ratio."""
        return cast("float | None", self._option("swa_full_tokens_ratio"))

    @property
    def swa_prefix_tails(self) -> int | None:
        """SglangOptions.swa_prefix_tails."""
        return cast("int | None", self._option("swa_prefix_tails"))

    @property
    def disaggregation_decode_extra_slots(self) -> int | None:
        """SglangOptions.disaggregation_decode_extra_slots."""
        return cast("int | None", self._option("disaggregation_decode_extra_slots"))

    @property
    def disaggregation_decode_enable_radix_cache(self) -> bool:
        """SglangOptions.disaggregation_decode_enable_radix_cache."""
        return cast("bool", self._option("disaggregation_decode_enable_radix_cache"))

    @property
    def dsv4_pool_shape(
            self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
        """SglangOptions.dsv4_pool_shape."""
        return cast("tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None",
                    self._option("dsv4_pool_shape"))

    @property
    def dsv4_state_dtype(self) -> str | None:
        """SglangOptions.dsv4_state_dtype."""
        return cast("str | None", self._option("dsv4_state_dtype"))

    @property
    def dsv4_env_unmodelled(self) -> str | None:
        """SglangOptions.dsv4_env_unmodelled."""
        return cast("str | None", self._option("dsv4_env_unmodelled"))

    @property
    def dcp_size(self) -> int:
        """SglangOptions.dcp_size."""
        return cast(int, self._option("dcp_size"))

    @property
    def dcp_comm_backend(self) -> str | None:
        """SglangOptions.dcp_comm_backend."""
        return cast("str | None", self._option("dcp_comm_backend"))

    @property
    def unified_linear(self) -> tuple[str | None, str, str] | None:
        """SglangOptions.unified_linear."""
        return cast("tuple[str | None, str, str] | None", self._option("unified_linear"))

    @property
    def asymmetric_kv(self) -> bool | None:
        """SglangOptions.asymmetric_kv."""
        return cast("bool | None", self._option("asymmetric_kv"))

    @property
    def attention_backend_flag(self) -> str | None:
        """SglangOptions.attention_backend_flag."""
        return cast("str | None", self._option("attention_backend_flag"))

    @property
    def dp_replicas(self) -> int:
        """SglangOptions.dp_replicas."""
        return cast("int", self._option("dp_replicas"))

    @property
    def enable_hisparse(self) -> bool:
        """SglangOptions.enable_hisparse."""
        return cast("bool", self._option("enable_hisparse"))

    @property
    def dsv4_attn_backend(self) -> str | None:
        """SglangOptions.dsv4_attn_backend."""
        return cast("str | None", self._option("dsv4_attn_backend"))

    @property
    def enable_encoder_swa_bounded_replay(self) -> bool:
        """SglangOptions.enable_encoder_swa_bounded_replay."""
        return cast("bool", self._option("enable_encoder_swa_bounded_replay"))

    @property
    def inkling_draft_conv_state(self) -> tuple[int, ...] | None:
        """SglangOptions.inkling_draft_conv_state."""
        return cast("tuple[int, ...] | None", self._option("inkling_draft_conv_state"))

    @property
    def minimax_sparse_kv(self) -> tuple[int, ...] | None:
        """SglangOptions.minimax_sparse_kv."""
        return cast("tuple[int, ...] | None", self._option("minimax_sparse_kv"))

    @property
    def nnodes(self) -> int:
        """SglangOptions.nnodes."""
        return cast(int, self._option("nnodes"))

    @property
    def draft_quantization(self) -> str | None:
        """SglangOptions.draft_quantization."""
        return cast("str | None", self._option("draft_quantization"))

    @property
    def draft_quant_config(self) -> str | None:
        """SglangOptions.draft_quant_config."""
        return cast("str | None", self._option("draft_quant_config"))

    @property
    def kv_cache_dtype(self) -> str | None:
        """SglangOptions.kv_cache_dtype."""
        return cast("str | None", self._option("kv_cache_dtype"))

    @property
    def enable_mixed_chunk(self) -> bool:
        """SglangOptions.enable_mixed_chunk."""
        return cast("bool", self._option("enable_mixed_chunk"))

    @property
    def enable_lora(self) -> bool:
        """SglangOptions.enable_lora."""
        return cast("bool", self._option("enable_lora"))

    @property
    def enable_session_radix_cache(self) -> bool:
        """SglangOptions.enable_session_radix_cache."""
        return cast("bool", self._option("enable_session_radix_cache"))

    @property
    def dspark_draft_layers(self) -> int | None:
        """SglangOptions.dspark_draft_layers."""
        return cast("int | None", self._option("dspark_draft_layers"))

    @property
    def prefill_cp_strategy(self) -> str | None:
        """SglangOptions.prefill_cp_strategy."""
        return cast("str | None", self._option("prefill_cp_strategy"))

    @property
    def dspark_early_verify_metadata(self) -> bool:
        """SglangOptions.dspark_early_verify_metadata."""
        return cast("bool", self._option("dspark_early_verify_metadata"))

    @property
    def draft_moe_class(self) -> str | None:
        """SglangOptions.draft_moe_class."""
        return cast("str | None", self._option("draft_moe_class"))

    @property
    def mnnvl_fabric(self) -> bool | None:
        """SglangOptions.mnnvl_fabric."""
        return cast("bool | None", self._option("mnnvl_fabric"))

    @property
    def prefill_cp_hook_backend(self) -> str | None:
        """SglangOptions.prefill_cp_hook_backend."""
        return cast("str | None", self._option("prefill_cp_hook_backend"))

    @property
    def nixl_dispatch_tokens_per_rank(self) -> int:
        """SglangOptions.nixl_dispatch_tokens_per_rank."""
        return cast(int, self._option("nixl_dispatch_tokens_per_rank"))

    @property
    def mooncake_dispatch_tokens_per_rank(self) -> int:
        """SglangOptions.mooncake_dispatch_tokens_per_rank."""
        return cast(int, self._option("mooncake_dispatch_tokens_per_rank"))

    @property
    def nvfp4_moe_layers(self) -> str | None:
        """SglangOptions.nvfp4_moe_layers."""
        return cast("str | None", self._option("nvfp4_moe_layers"))

    @property
    def prefill_cp_family(self) -> str | None:
        """SglangOptions.prefill_cp_family."""
        return cast("str | None", self._option("prefill_cp_family"))

    @property
    def prefill_cp_given(self) -> tuple[int, int, int, int, str] | None:
        """SglangOptions.prefill_cp_given."""
        return cast("tuple[int, int, int, int, str] | None", self._option("prefill_cp_given"))

    @property
    def cp_tp_group_sharing(self) -> bool:
        """SglangOptions.cp_tp_group_sharing."""
        return cast(bool, self._option("cp_tp_group_sharing"))

    @property
    def speculative_moe_runner_backend(self) -> str | None:
        """SglangOptions.speculative_moe_runner_backend."""
        return cast("str | None", self._option("speculative_moe_runner_backend"))

    @property
    def enable_layernorm_sp(self) -> bool:
        """SglangOptions.enable_layernorm_sp."""
        return cast(bool, self._option("enable_layernorm_sp"))

    @property
    def enable_megamoe_for_layernorm_sp(self) -> bool:
        """SglangOptions.enable_megamoe_for_layernorm_sp."""
        return cast(bool, self._option("enable_megamoe_for_layernorm_sp"))

    @property
    def moe_nvfp4_dispatch(self) -> bool | None:
        """SglangOptions.moe_nvfp4_dispatch."""
        return cast("bool | None", self._option("moe_nvfp4_dispatch"))

    @property
    def lora_backend(self) -> str | None:
        """SglangOptions.lora_backend."""
        return cast("str | None", self._option("lora_backend"))

    @property
    def lora_paths_given(self) -> bool:
        """SglangOptions.lora_paths_given."""
        return cast(bool, self._option("lora_paths_given"))

    @property
    def max_lora_rank(self) -> int | None:
        """SglangOptions.max_lora_rank."""
        return cast("int | None", self._option("max_lora_rank"))

    @property
    def lora_target_modules_given(self) -> bool:
        """SglangOptions.lora_target_modules_given."""
        return cast(bool, self._option("lora_target_modules_given"))

    @property
    def max_loras_per_batch(self) -> int:
        """SglangOptions.max_loras_per_batch."""
        return cast(int, self._option("max_loras_per_batch"))

    @property
    def enable_lora_overlap_loading(self) -> bool:
        """SglangOptions.enable_lora_overlap_loading."""
        return cast(bool, self._option("enable_lora_overlap_loading"))

    @property
    def max_loaded_loras(self) -> int | None:
        """SglangOptions.max_loaded_loras."""
        return cast("int | None", self._option("max_loaded_loras"))

    @property
    def lora_paths_count(self) -> int:
        """SglangOptions.lora_paths_count."""
        return cast(int, self._option("lora_paths_count"))

    @property
    def lora_target_all_mixed(self) -> bool:
        """SglangOptions.lora_target_all_mixed."""
        return cast(bool, self._option("lora_target_all_mixed"))

    @property
    def lora_drain_wait_threshold(self) -> float:
        """SglangOptions.lora_drain_wait_threshold."""
        return cast(float, self._option("lora_drain_wait_threshold"))

    @property
    def enable_pdmux(self) -> bool:
        """SglangOptions.enable_pdmux."""
        return cast(bool, self._option("enable_pdmux"))

    @property
    def lora_experimental_opti(self) -> bool:
        """SglangOptions.lora_experimental_opti."""
        return cast(bool, self._option("lora_experimental_opti"))

    @property
    def overlap_plan_stream(self) -> bool:
        """SglangOptions.overlap_plan_stream."""
        return cast(bool, self._option("overlap_plan_stream"))

    @property
    def lora_paths_invalid(self) -> str | None:
        """SglangOptions.lora_paths_invalid."""
        return cast("str | None", self._option("lora_paths_invalid"))

    @property
    def lora_disabled(self) -> bool:
        """SglangOptions.lora_disabled."""
        return cast(bool, self._option("lora_disabled"))

    @property
    def draft_build_failure(self) -> str | None:
        """SglangOptions.draft_build_failure."""
        return cast("str | None", self._option("draft_build_failure"))

    @property
    def enable_torch_compile(self) -> bool:
        """SglangOptions.enable_torch_compile."""
        return cast(bool, self._option("enable_torch_compile"))

    @property
    def pp_spec(self) -> bool:
        """SglangOptions.pp_spec."""
        return cast(bool, self._option("pp_spec"))

    @property
    def server_flag_refusals(self) -> tuple[tuple[str, str], ...] | None:
        """SglangOptions.server_flag_refusals."""
        return cast("tuple[tuple[str, str], ...] | None", self._option("server_flag_refusals"))

    @property
    def dsa_checkpoint(self) -> bool | None:
        """SglangOptions.dsa_checkpoint."""
        return cast("bool | None", self._option("dsa_checkpoint"))

    @property
    def dense_model(self) -> bool:
        """SglangOptions.dense_model."""
        return cast(bool, self._option("dense_model"))

    @property
    def disable_attn_tp_gather(self) -> bool:
        """SglangOptions.disable_attn_tp_gather."""
        return cast(bool, self._option("disable_attn_tp_gather"))

    @property
    def gpu_rocm(self) -> bool:
        """SglangOptions.gpu_rocm."""
        return cast(bool, self._option("gpu_rocm"))

    @property
    def moe_dense_tp_size(self) -> int | None:
        """SglangOptions.moe_dense_tp_size."""
        return cast("int | None", self._option("moe_dense_tp_size"))

    @property
    def draft_mtp_unquantized(self) -> str | None:
        """SglangOptions.draft_mtp_unquantized."""
        return cast("str | None", self._option("draft_mtp_unquantized"))

    @property
    def target_build_failure(self) -> str | None:
        """SglangOptions.target_build_failure."""
        return cast("str | None", self._option("target_build_failure"))

    @property
    def model_chunk_off(self) -> bool | None:
        """SglangOptions.model_chunk_off."""
        return cast("bool | None", self._option("model_chunk_off"))

    @property
    def dsa_backends(self) -> tuple[str | None, str | None] | None:
        """SglangOptions.dsa_backends."""
        return cast("tuple[str | None, str | None] | None", self._option("dsa_backends"))

    @property
    def nvfp4_ckpt_fp8_nextn_moe(self) -> bool:
        """SglangOptions.nvfp4_ckpt_fp8_nextn_moe."""
        return cast(bool, self._option("nvfp4_ckpt_fp8_nextn_moe"))

    @property
    def moe_disable_alltoallv(self) -> str | None:
        """TrtllmOptions.moe_disable_alltoallv."""
        return cast("str | None", self._option("moe_disable_alltoallv"))

    @property
    def moe_can_use_deep_ep(self) -> str | None:
        """TrtllmOptions.moe_can_use_deep_ep."""
        return cast("str | None", self._option("moe_can_use_deep_ep"))

    @property
    def dsa_learnable_sink(self) -> bool | None:
        """SglangOptions.dsa_learnable_sink."""
        return cast("bool | None", self._option("dsa_learnable_sink"))

    @property
    def gelu_moe_target(self) -> bool:
        """SglangOptions.gelu_moe_target."""
        return cast(bool, self._option("gelu_moe_target"))

    @property
    def moe_a2a_dtype(self) -> str | None:
        """TrtllmOptions.moe_a2a_dtype."""
        return cast("str | None", self._option("moe_a2a_dtype"))

    @property
    def draft_mtp_experts_algo(self) -> str | None:
        """SglangOptions.draft_mtp_experts_algo."""
        return cast("str | None", self._option("draft_mtp_experts_algo"))

    @property
    def context_length_read(self) -> bool:
        """SglangOptions.context_length_read."""
        return cast(bool, self._option("context_length_read"))

    @property
    def draft_nextn_unquantized(self) -> str | None:
        """SglangOptions.draft_nextn_unquantized."""
        return cast("str | None", self._option("draft_nextn_unquantized"))

    @property
    def hook_cudagraph_mode(self) -> str | None:
        """SglangOptions.hook_cudagraph_mode."""
        return cast("str | None", self._option("hook_cudagraph_mode"))

    @property
    def hook_prefill_backend(self) -> str | None:
        """SglangOptions.hook_prefill_backend."""
        return cast("str | None", self._option("hook_prefill_backend"))

    @property
    def enable_waterfill(self) -> bool:
        """SglangOptions.enable_waterfill."""
        return cast(bool, self._option("enable_waterfill"))

    @property
    def dwdp_size(self) -> int:
        """SglangOptions.dwdp_size."""
        return cast(int, self._option("dwdp_size"))

    @property
    def enable_aiter_allreduce_fusion(self) -> bool:
        """SglangOptions.enable_aiter_allreduce_fusion."""
        return cast(bool, self._option("enable_aiter_allreduce_fusion"))

    @property
    def enable_deterministic_inference(self) -> bool:
        """SglangOptions.enable_deterministic_inference."""
        return cast(bool, self._option("enable_deterministic_inference"))

    @property
    def rl_on_policy_target(self) -> str | None:
        """SglangOptions.rl_on_policy_target."""
        return cast("str | None", self._option("rl_on_policy_target"))

    @property
    def moe_runner_backend(self) -> str:
        """SglangOptions.moe_runner_backend."""
        return cast(str, self._option("moe_runner_backend"))

    @property
    def deepep_mode(self) -> str:
        """SglangOptions.deepep_mode."""
        return cast(str, self._option("deepep_mode"))

    @property
    def mem_fraction_static(self) -> float | None:
        """SglangOptions.mem_fraction_static."""
        return cast("float | None", self._option("mem_fraction_static"))

    @property
    def vision_layers(self) -> int | None:
        """SglangOptions.vision_layers."""
        return cast("int | None", self._option("vision_layers"))

    @property
    def vision_hidden_size(self) -> int | None:
        """SglangOptions.vision_hidden_size."""
        return cast("int | None", self._option("vision_hidden_size"))

    @property
    def multi_layer_eagle(self) -> bool:
        """SglangOptions.multi_layer_eagle."""
        return cast(bool, self._option("multi_layer_eagle"))

    @property
    def mtp_draft_backend(self) -> str | None:
        """SglangOptions.mtp_draft_backend."""
        return cast("str | None", self._option("mtp_draft_backend"))

    @property
    def single_cg_draft(self) -> bool:
        """SglangOptions.single_cg_draft."""
        return cast(bool, self._option("single_cg_draft"))

    @property
    def frozen_kv_mtp(self) -> bool:
        """SglangOptions.frozen_kv_mtp."""
        return cast(bool, self._option("frozen_kv_mtp"))

    @property
    def dflash_domino(self) -> bool:
        """SglangOptions.dflash_domino."""
        return cast(bool, self._option("dflash_domino"))

    @property
    def dflash_selector_top_k(self) -> int | None:
        """SglangOptions.dflash_selector_top_k."""
        return cast("int | None", self._option("dflash_selector_top_k"))

    @property
    def speculative_adaptive(self) -> bool:
        """SglangOptions.speculative_adaptive."""
        return cast(bool, self._option("speculative_adaptive"))

    @property
    def dspark_samples_anchor(self) -> bool:
        """SglangOptions.dspark_samples_anchor."""
        return cast(bool, self._option("dspark_samples_anchor"))

    @property
    def disaggregation_mode(self) -> str:
        """SglangOptions.disaggregation_mode."""
        return cast(str, self._option("disaggregation_mode"))

    @property
    def pp_size(self) -> int:
        """SglangOptions.pp_size."""
        return cast(int, self._option("pp_size"))

    @property
    def mori_ep_v2(self) -> bool | None:
        """SglangOptions.mori_ep_v2."""
        return cast("bool | None", self._option("mori_ep_v2"))

    @property
    def mori_recv_bound(self) -> bool:
        """SglangOptions.mori_recv_bound."""
        return cast(bool, self._option("mori_recv_bound"))

    @property
    def mori_use_aiter(self) -> bool:
        """SglangOptions.mori_use_aiter."""
        return cast(bool, self._option("mori_use_aiter"))

    @property
    def mori_sdma(self) -> bool:
        """SglangOptions.mori_sdma."""
        return cast(bool, self._option("mori_sdma"))

    @property
    def uniform_query_len(self) -> int:
        """q = 1 + k: tokens per request in a uniform (spec-)decode batch.

        SGLang verifies `speculative_num_draft_tokens` per request, which a draft tree
        (topk > 1) decouples from the number of steps.
        """
        if self.speculative_num_draft_tokens is not None:
            return self.speculative_num_draft_tokens
        return 1 + self.num_speculative_tokens

    @property
    def model(self) -> EngineModel:
        """The engine model of this config's (engine, engine_version)."""
        return engine_model(self.engine, self.engine_version)

    @property
    def has_drafter(self) -> bool:
        return self.spec_method.has_drafter_model

    def replace(self, **changes: Any) -> EngineConfig:
        """A validated copy with some fields changed (an unknown field is a ConfigError).
        Another engine without an engine_version gets that engine's default release."""
        _check_fields("replace", changes)
        if str(getattr(changes.get("engine", self.engine), "value", changes.get("engine"))
               ).strip().lower() != self.engine.value:
            changes.setdefault("engine_version", None)
            changes.setdefault("options", None)  # another engine's options class
        with _flat_source():  # an option's name is a change like any other here
            return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (enums as their values, tuples as lists), the options object as
        the dict of its fields under "options"."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, EngineOptions):
                value = value.to_dict()
            elif isinstance(value, Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_vllm(cls, vllm_config: Any, **overrides: Any) -> EngineConfig:
        """The config a running vLLM has: duck-typed on its `VllmConfig` (scheduler,
        compilation, speculative, model, cache configs; see
        graphfit.planner.engines.vllm.native). The release is the imported `vllm.__version__`
        (0.34's split capture sizes tell 0.34 too). Before 0.34 the capture list vLLM
        resolved is taken as explicit sizes; from 0.34 the split fields (prefill token sizes,
        decode request counts, their caps and the decode token budget) are read instead, and
        a config whose recorded sizes graphfit does not derive from them is a ConfigError.
        `overrides` (EngineConfig fields) win over what is read."""
        from graphfit.planner.engines.vllm.native import fields_from_vllm, recorded_sizes

        config = cls._from_fields("from_vllm", {**fields_from_vllm(vllm_config), **overrides})
        recorded = recorded_sizes(vllm_config)
        if recorded is not None and "cudagraph_capture_sizes" not in overrides:
            ours = config.model.ladders(config).config.sizes
            if ours != recorded:
                raise ConfigError(
                    f"from_vllm: vLLM {config.engine_version} recorded capture sizes "
                    f"{excerpt(list(recorded))}, graphfit derives {excerpt(list(ours))} from "
                    f"its split prefill/decode sizes (an input graphfit does not read?)")
        return config

    @classmethod
    def from_sglang(cls, server_args: Any, **overrides: Any) -> EngineConfig:
        """The config of an SGLang server: duck-typed on its `ServerArgs` (raw or resolved;
        see graphfit.planner.engines.sglang_native). SGLang leaves max_running_requests to
        its scheduler when not given: pass `max_num_seqs=` then. It reads the ServerArgs
        alone (the planner reads no file); `graphfit.integrations.sglang.from_sglang` reads
        the model directories, UNO's adapter_config.json and the environment beside them."""
        from graphfit.planner.engines.sglang_native import fields_from_sglang

        return cls._from_fields("from_sglang", {**fields_from_sglang(server_args), **overrides})

    @classmethod
    def _from_fields(cls, origin: str, values: dict[str, Any]) -> EngineConfig:
        _check_fields(origin, values)
        if values.get("max_num_seqs") is None:
            raise ConfigError(f"max_num_seqs: {origin} found none (the engine has not sized "
                              "it yet); pass max_num_seqs=")
        with _flat_source():
            return cls(**values)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EngineConfig:
        """Build from a dict such as `to_dict()` wrote (its "options" a dict of the engine's
        options, or the older flat form); unknown keys are an error, not dropped."""
        if not isinstance(data, dict):
            raise ConfigError(f"config: expected an object, got {type(data).__name__}")
        unknown = [key for key in data if key not in KEYWORDS]
        if unknown:
            raise ConfigError(f"config: unknown key(s) {listed(map(repr, unknown))}")
        with _flat_source():  # a flat document (graphfit.plan/2, config files) is no misuse
            return cls(**data)


_FIELDS = frozenset(f.name for f in fields(EngineConfig))
# every keyword EngineConfig takes: its fields and the compatibility keywords
KEYWORDS = _FIELDS | frozenset(LEGACY_KEYWORDS)
_DATACLASS_INIT = EngineConfig.__init__


def keyword_default(name: str) -> object:
    """The default of keyword `name` (a field's, or its options class's for a compatibility
    keyword)."""
    if name in LEGACY_KEYWORDS:
        return LEGACY_KEYWORDS[name].default(name)
    return next(f.default for f in fields(EngineConfig) if f.name == name)


def _check_fields(origin: str, values: Mapping[str, Any]) -> None:
    unknown = [key for key in values if key not in KEYWORDS]
    if unknown:
        raise ConfigError(f"{origin}: unknown field(s) {listed(map(repr, unknown))}")


def _init(self: EngineConfig, *args: Any, **kwargs: Any) -> None:
    """The dataclass __init__, with a call it cannot bind (an unknown field, a missing
    max_num_seqs, too many positional values) a ConfigError instead of a TypeError. The
    compatibility keywords (LEGACY_KEYWORDS) are taken out (a CompatibilityFormWarning unless
    one of graphfit's flat readers builds the config) and handed to __post_init__, which
    applies them to the engine's options."""
    legacy = {name: kwargs.pop(name) for name in list(kwargs) if name in LEGACY_KEYWORDS}
    if legacy and not _FLAT_SOURCE.get():
        _warn_flat(legacy)
    object.__setattr__(self, "_legacy", legacy)
    try:
        _DATACLASS_INIT(self, *args, **kwargs)
    except TypeError:
        try:
            _SIGNATURE.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise ConfigError(f"EngineConfig: {exc}") from None
        raise
    finally:
        self.__dict__.pop("_legacy", None)


_SIGNATURE = inspect.signature(_DATACLASS_INIT)
_init.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
_init.__doc__ = _DATACLASS_INIT.__doc__
EngineConfig.__init__ = _init  # type: ignore[method-assign]
