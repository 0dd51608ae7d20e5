"""`EngineConfig`: the one config every ladder, padding table and capacity is derived from.

It implements `graphfit.planner.core.settings.EngineSettings`, the view engine models read;
building one asks the engine's model (through the registry) to settle engine-specific fields.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any, TypeVar

from graphfit.planner.core.dtypes import DTYPE_SIZES
from graphfit.planner.core.enums import (
    AttentionSupport,
    CeilingFamily,
    CUDAGraphMode,
    Engine,
    EngineName,
    LadderPolicy,
    PerformanceMode,
    Runner,
    SpecMethod,
)
from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES, MAX_INT
from graphfit.planner.engines.base import (
    ENGINE_FIELDS,
    EngineModel,
    own_fields,
    requests_within_token_budget,
)
from graphfit.planner.engines.registry import engine_model, engines, policy_engine

E = TypeVar("E", bound=Enum)
PREFILL_BACKENDS = ("breakable", "full", "disabled")  # SGLang cuda_graph_config.py:50
DISAGGREGATION_MODES = ("null", "prefill", "decode")  # SGLang --disaggregation-mode


def _coerce_enum(name: str, enum_type: type[E], value: object) -> E:
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        for member in enum_type:
            if value == member.value or value.upper() == member.name:
                return member
    choices = ", ".join(m.value for m in enum_type)
    raise ConfigError(f"{name}: {excerpt(value)} is not one of {choices}")


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}: expected an integer, got {excerpt(value)}")
    if value < 1:
        raise ConfigError(f"{name}: must be >= 1, got {value}")
    if value > MAX_INT:
        raise ConfigError(f"{name}: must be <= {MAX_INT}, got {excerpt(value)}")
    return value


def _sizes(name: str, value: object) -> tuple[int, ...] | None:
    """A list of capture sizes: a sequence (list, tuple, range) of at most MAX_CAPTURE_SIZES
    integers; its length is checked before it is read, so range(1, 10**9) is refused at
    once."""
    if value is None:
        return None
    if (isinstance(value, (str, bytes, Mapping, set, frozenset))
            or not hasattr(value, "__iter__")):
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}")
    too_many = ConfigError(f"{name}: more than {MAX_CAPTURE_SIZES:,} sizes (graphfit plans at "
                           f"most {MAX_CAPTURE_SIZES:,} capture sizes)")
    try:  # a 0-d array has __len__ and __iter__ that raise TypeError
        if hasattr(value, "__len__") and len(value) > MAX_CAPTURE_SIZES:
            raise too_many
        items = list(itertools.islice(value, MAX_CAPTURE_SIZES + 1))
    except TypeError:
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}") \
            from None
    sizes = tuple(_positive_int(name, v) for v in items)
    if len(sizes) > MAX_CAPTURE_SIZES:
        raise too_many
    if not sizes:
        raise ConfigError(f"{name}: the list is empty")
    return sizes  # order and duplicates are each engine's rule (vLLM sorts, with a warning)


def _optional_int(name: str, value: object, minimum: int) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int) or value < minimum
            or value > MAX_INT):
        raise ConfigError(f"{name}: must be an integer in {minimum}..{MAX_INT}, got "
                          f"{excerpt(value)}")
    return value


def _check_vllm_fields(config: EngineConfig) -> None:
    """Types of the vLLM fields (# vLLM); which values vLLM accepts is its model's business."""
    set_ = object.__setattr__
    for name in ("attention_cudagraph_support", "drafter_attention_cudagraph_support"):
        value = getattr(config, name)
        if value is not None:
            set_(config, name, _coerce_enum(name, AttentionSupport, value))
    backend = config.attention_backend
    if backend is not None:
        if not isinstance(backend, str) or not backend.strip():
            raise ConfigError(f"attention_backend: expected a backend name, got {backend!r}")
        set_(config, "attention_backend", backend.strip().upper())
    if not isinstance(config.dspark_sample_from_anchor, bool):
        raise ConfigError(f"dspark_sample_from_anchor: expected true/false, got "
                          f"{config.dspark_sample_from_anchor!r}")
    for name in SPLIT_SIZE_LISTS:
        set_(config, name, _int_list(name, getattr(config, name)))
    for name, least in SPLIT_SIZE_CAPS.items():
        value = getattr(config, name)
        if value is not None:  # pydantic Field(ge=...) in 0.34's CompilationConfig
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name}: expected an integer, got {excerpt(value)}")
            if not least <= value <= MAX_INT:
                raise ConfigError(f"{name}: must be in {least}..{MAX_INT}, got {excerpt(value)}")
    aux = config.draft_aux_layers
    if aux is not None:
        if isinstance(aux, bool) or not isinstance(aux, int) or not 0 <= aux <= MAX_INT:
            raise ConfigError(f"draft_aux_layers: expected an integer >= 0, got {excerpt(aux)}")
        if config.spec_method not in (SpecMethod.DFLASH, SpecMethod.DSPARK):
            raise ConfigError(f"draft_aux_layers: only for spec_method dflash or dspark (the "
                              f"MRV2 drafters that stage aux hidden states), not "
                              f"{config.spec_method.value}")
    engine = getattr(config.engine, "value", config.engine)
    given = [name for name in (*SPLIT_SIZE_LISTS, *SPLIT_SIZE_CAPS, "draft_aux_layers")
             if getattr(config, name) is not None]
    if given and engine != Engine.VLLM.value:
        raise ConfigError(f"{given[0]}: a vLLM (0.34 and later) input, not {engine}'s")


# vLLM 0.34's split capture-size fields: the lists (any integers: vLLM drops those outside
# [1, limit] with a warning, config/vllm.py:2618-2630) and the caps with their least value
SPLIT_SIZE_LISTS = ("prefill_cudagraph_capture_token_sizes",
                    "decode_cudagraph_capture_request_sizes")
SPLIT_SIZE_CAPS = {"max_prefill_cudagraph_capture_tokens": 0,
                   "max_decode_cudagraph_capture_requests": 0,
                   "max_decode_cudagraph_capture_tokens": 1}


def _int_list(name: str, value: object) -> tuple[int, ...] | None:
    """A list of integers (possibly empty: `[]` captures none), at most MAX_CAPTURE_SIZES."""
    if value is None:
        return None
    if (isinstance(value, (str, bytes, Mapping, set, frozenset))
            or not hasattr(value, "__iter__")):
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}")
    try:
        items = list(itertools.islice(value, MAX_CAPTURE_SIZES + 1))
    except TypeError:
        raise ConfigError(f"{name}: expected a list of integers, got {excerpt(value)}") \
            from None
    if len(items) > MAX_CAPTURE_SIZES:
        raise ConfigError(f"{name}: more than {MAX_CAPTURE_SIZES:,} sizes")
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int) or abs(item) > MAX_INT:
            raise ConfigError(f"{name}: expected integers, got {excerpt(item)}")
    return tuple(items)
def _engine_fields(config: EngineConfig) -> None:
    """Type checks of the SGLang / TensorRT-LLM fields (their meaning is the models')."""
    set_ = object.__setattr__
    gb = config.gpu_memory_gb
    if gb is not None:
        if isinstance(gb, bool) or not isinstance(gb, (int, float)) or not gb > 0:
            raise ConfigError(f"gpu_memory_gb: must be a number > 0 (GiB), got {gb!r}")
        set_(config, "gpu_memory_gb", float(gb))
    for name in ("tp_size", "attn_dp_size", "attn_cp_size", "vocab_size", "max_beam_width"):
        _positive_int(name, getattr(config, name))
    if not isinstance(config.parallel_draft, bool):
        raise ConfigError(
            f"parallel_draft: expected true/false, got {excerpt(config.parallel_draft)}")
    if not isinstance(config.two_batch_overlap, bool):
        raise ConfigError(
            f"two_batch_overlap: expected true/false, got {config.two_batch_overlap!r}")
    arch = config.architecture
    if arch is not None and (not isinstance(arch, str) or not arch.strip()):
        raise ConfigError(f"architecture: expected a model class name, got {arch!r}")
    set_(config, "draft_len_schedule", _sizes("draft_len_schedule", config.draft_len_schedule))
    backend = config.cuda_graph_backend_prefill
    if backend is not None:
        if not isinstance(backend, str) or backend.strip().lower() not in PREFILL_BACKENDS:
            raise ConfigError(f"cuda_graph_backend_prefill: {excerpt(backend)} is not one of "
                              f"{', '.join(PREFILL_BACKENDS)}")
        set_(config, "cuda_graph_backend_prefill", backend.strip().lower())
    for name in ("cuda_graph_max_bs_prefill", "chunked_prefill_size", "full_prefill_max_req"):
        _optional_int(name, getattr(config, name), 1)
    _positive_int("pp_size", config.pp_size)
    # at least one request: the pool holds max_total_tokens // 2 (kv_cache_configurator.py:3129)
    _optional_int("max_total_tokens", config.max_total_tokens, 2)
    set_(config, "cuda_graph_bs_prefill",
         _sizes("cuda_graph_bs_prefill", config.cuda_graph_bs_prefill))
    mode = config.disaggregation_mode
    if not isinstance(mode, str) or mode.strip().lower() not in DISAGGREGATION_MODES:
        raise ConfigError(f"disaggregation_mode: {excerpt(mode)} is not one of "
                          f"{', '.join(DISAGGREGATION_MODES)}")
    set_(config, "disaggregation_mode", mode.strip().lower())


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


def _resolve_engine(config: EngineConfig) -> None:
    """Coerce the engine and let its model settle the engine-specific fields."""
    set_ = object.__setattr__
    engine = _engine(config.engine)
    set_(config, "engine", engine)
    model = engine_model(engine, config.engine_version)
    set_(config, "engine_version", model.release)
    defaults = {f.name: f.default for f in fields(config) if f.name in ENGINE_FIELDS}
    for name in sorted(set(ENGINE_FIELDS) - own_fields(model)):
        if getattr(config, name) != defaults[name]:
            raise ConfigError(f"{name}: not an input of the {engine.value} model "
                              f"(it is SGLang's or TensorRT-LLM's)")
    owner = policy_engine(config.ladder)
    if owner is not None and owner is not engine:
        raise ConfigError(
            f"ladder: {config.ladder.value} is a {owner.value} ladder, but engine is "
            f"{engine.value}")
    _optional_int("speculative_eagle_topk", config.speculative_eagle_topk, 1)
    _optional_int("speculative_num_draft_tokens", config.speculative_num_draft_tokens, 2)
    if config.cuda_graph_padding is not None and not isinstance(config.cuda_graph_padding, bool):
        raise ConfigError(
            f"cuda_graph_padding: expected true/false, got {excerpt(config.cuda_graph_padding)}")
    for name, value in model.resolve(config).items():
        set_(config, name, value)
    if config.runner is None:  # SGLang and TensorRT-LLM have no runner choice: not vLLM's V2
        set_(config, "runner", Runner.V1)


@dataclass(frozen=True)
class EngineConfig:
    """A serving engine's configuration, validated at construction.

    Field names follow vLLM's flags. Strings are accepted for the enum fields and coerced, so
    `EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")` works.

    `engine` is any registered engine (graphfit.planner.engines.registry: the built-in ones,
    `graphfit.engines` plugins, described engines) and `engine_version` its release; None
    resolves to the engine's default (its newest modelled release) when the config is built.

    For `engine="sglang"` / `"trtllm"` the capture sizes and `max_cudagraph_capture_size` are
    batch sizes (requests: `--cuda-graph-bs-decode`, `--cuda-graph-max-bs-decode`,
    `CudaGraphConfig`), `num_speculative_tokens` is SGLang's `speculative_num_steps` /
    TensorRT-LLM's `max_draft_len`, `speculative_num_draft_tokens` the tokens one request
    carries in a verify step (SGLang's num_draft_tokens, TensorRT-LLM's 1 +
    max_total_draft_tokens) and `speculative_eagle_topk` the draft branching (SGLang's topk,
    NGRAM's max BFS breadth, TensorRT-LLM's dynamic_tree_max_topK). The fields under
    "SGLang / TensorRT-LLM" must keep their defaults for an engine whose model does not read
    them.
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
    # vLLM's model runner; None: as vLLM 0.33 picks it with VLLM_USE_V2_MODEL_RUNNER unset
    # (the V2 runner unless the config needs one it lacks: config/vllm.py:730-767)
    runner: Runner = None  # type: ignore[assignment]
    ceiling_family: CeilingFamily = CeilingFamily.DEFAULT
    performance_mode: PerformanceMode = PerformanceMode.BALANCED
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
    # vLLM
    # an AttentionBackendEnum name (`--attention-backend`); its static cudagraph support
    # level(s) come from the engine model; None: not given
    attention_backend: str | None = None
    # AttentionCGSupport of the target's attention (`--attention-cudagraph-support`);
    # None: unknown (from the backend if given, else capacities cover every level)
    attention_cudagraph_support: AttentionSupport | None = None
    # the draft attention's own level (MRV2 DFlash/DSpark drafters); None: unknown
    drafter_attention_cudagraph_support: AttentionSupport | None = None
    # DSpark drafts whose hf_config has sample_from_anchor=False use the 1 + k fill-in layout
    dspark_sample_from_anchor: bool = True
    # vLLM 0.34's split capture sizes (CompilationConfig, config/compilation.py:762-801 in
    # 0.34; resolved by config/vllm.py:2558-2737): prefill graphs' token counts and their cap,
    # uniform-decode graphs' request counts and their cap, the decode graphs' token budget.
    # None: vLLM's default. Only releases >= 0.34 have them.
    prefill_cudagraph_capture_token_sizes: tuple[int, ...] | None = None
    max_prefill_cudagraph_capture_tokens: int | None = None
    decode_cudagraph_capture_request_sizes: tuple[int, ...] | None = None
    max_decode_cudagraph_capture_requests: int | None = None
    max_decode_cudagraph_capture_tokens: int | None = None
    # the target layers whose hidden states the DFlash/DSpark draft reads (its config's
    # eagle_aux_hidden_state_layer_ids / dflash_config.target_layer_ids / ..., counted:
    # eagle3_utils.py:103-135); MRV2 stages them for its FULL graph only when there are some
    # (dflash/speculator.py:96-106 in 0.33/0.34). None: unknown, one layer assumed
    draft_aux_layers: int | None = None
    # SGLang / TensorRT-LLM
    # GPU memory in GiB as nvidia-smi reports it (SGLang's default decode max_bs); None: unknown
    gpu_memory_gb: float | None = None
    tp_size: int = 1  # tensor parallel size
    attn_dp_size: int = 1  # SGLang attention data-parallel groups (--attn-dp-size)
    attn_cp_size: int = 1  # SGLang attention context parallelism (--attn-cp-size)
    two_batch_overlap: bool = False  # SGLang --enable-two-batch-overlap
    architecture: str | None = None  # the model's HF class, e.g. LlamaForCausalLM
    vocab_size: int = 128256  # logits buffers (SGLang)
    draft_len_schedule: tuple[int, ...] | None = None  # TensorRT-LLM thresholds (batch sizes)
    # TensorRT-LLM max_beam_width: beams per generation request (the graph runner's rows)
    max_beam_width: int = 1
    # TensorRT-LLM PARD (decoding_type PARD): the target verifies 2 x max_draft_len tokens per
    # request (K + 1 accepted + K - 1 mask tokens) instead of 1 + max_draft_len
    parallel_draft: bool = False
    # SGLang prefill CUDA graphs (token counts; graphfit.planner.engines.sglang_prefill).
    # None: SGLang's own default (breakable graphs up to chunked_prefill_size tokens)
    cuda_graph_backend_prefill: str | None = None  # breakable, full or disabled
    cuda_graph_max_bs_prefill: int | None = None  # largest prefill graph, in tokens
    cuda_graph_bs_prefill: tuple[int, ...] | None = None  # prefill token counts to capture
    chunked_prefill_size: int | None = None  # None: SGLang's default from GPU memory
    full_prefill_max_req: int | None = None  # the full backend's request slots
    # SGLang PD disaggregation role (--disaggregation-mode): null, prefill or decode
    disaggregation_mode: str = "null"
    pp_size: int = 1  # SGLang pipeline-parallel stages (prefill graphs are opt-in under PP)
    # SGLang --max-total-tokens: the KV pool's token capacity cap (request pool, prefill max)
    max_total_tokens: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.max_num_seqs is not None:
            _positive_int("max_num_seqs", self.max_num_seqs)
        for name in ("max_num_batched_tokens", "max_model_len", "hidden_size",
                     "block_size", "mrope_dims"):
            _positive_int(name, getattr(self, name))
        k = self.num_speculative_tokens
        if isinstance(k, bool) or not isinstance(k, int) or k < 0 or k > MAX_INT:
            raise ConfigError(f"num_speculative_tokens: must be an integer in 0..{MAX_INT}, "
                              f"got {excerpt(k)}")
        set_(self, "spec_method", _coerce_enum("spec_method", SpecMethod, self.spec_method))
        set_(self, "cudagraph_mode",
             _coerce_enum("cudagraph_mode", CUDAGraphMode, self.cudagraph_mode))
        if self.runner is not None:
            set_(self, "runner", _coerce_enum("runner", Runner, self.runner))
        set_(self, "ceiling_family",
             _coerce_enum("ceiling_family", CeilingFamily, self.ceiling_family))
        set_(self, "performance_mode",
             _coerce_enum("performance_mode", PerformanceMode, self.performance_mode))
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
        _check_vllm_fields(self)
        _engine_fields(self)
        _resolve_engine(self)
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
        if method is not SpecMethod.NONE and self.uniform_query_len < 2:
            raise ConfigError(f"num_speculative_tokens: method {method.value} needs k >= 1")
        if self.ladder is LadderPolicy.EXPLICIT and self.cudagraph_capture_sizes is None:
            raise ConfigError("cudagraph_capture_sizes: the explicit ladder needs a list")

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
        if "engine_version" not in changes and str(getattr(
                changes.get("engine", self.engine), "value", changes.get("engine"))
                ).strip().lower() != self.engine.value:
            changes["engine_version"] = None
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (enums as their values, tuples as lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Enum):
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
        its scheduler when not given: pass `max_num_seqs=` then."""
        from graphfit.planner.engines.sglang_native import fields_from_sglang

        return cls._from_fields("from_sglang", {**fields_from_sglang(server_args), **overrides})

    @classmethod
    def _from_fields(cls, origin: str, values: dict[str, Any]) -> EngineConfig:
        _check_fields(origin, values)
        if values.get("max_num_seqs") is None:
            raise ConfigError(f"max_num_seqs: {origin} found none (the engine has not sized "
                              "it yet); pass max_num_seqs=")
        return cls(**values)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EngineConfig:
        """Build from a dict such as `to_dict()` wrote; unknown keys are an error, not dropped."""
        if not isinstance(data, dict):
            raise ConfigError(f"config: expected an object, got {type(data).__name__}")
        unknown = [key for key in data if key not in _FIELDS]
        if unknown:
            raise ConfigError(f"config: unknown key(s) {listed(map(repr, unknown))}")
        return cls(**data)


_FIELDS = frozenset(f.name for f in fields(EngineConfig))
_DATACLASS_INIT = EngineConfig.__init__


def _check_fields(origin: str, values: Mapping[str, Any]) -> None:
    unknown = [key for key in values if key not in _FIELDS]
    if unknown:
        raise ConfigError(f"{origin}: unknown field(s) {listed(map(repr, unknown))}")


def _init(self: EngineConfig, *args: Any, **kwargs: Any) -> None:
    """The dataclass __init__, with a call it cannot bind (an unknown field, a missing
    max_num_seqs, too many positional values) a ConfigError instead of a TypeError."""
    try:
        _DATACLASS_INIT(self, *args, **kwargs)
    except TypeError:
        try:
            _SIGNATURE.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise ConfigError(f"EngineConfig: {exc}") from None
        raise


_SIGNATURE = inspect.signature(_DATACLASS_INIT)
_init.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
_init.__doc__ = _DATACLASS_INIT.__doc__
EngineConfig.__init__ = _init  # type: ignore[method-assign]
