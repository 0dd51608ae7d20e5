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
    CeilingFamily,
    CUDAGraphMode,
    Engine,
    LadderPolicy,
    PerformanceMode,
    Runner,
    SpecMethod,
)
from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES, MAX_INT
from graphfit.planner.engines.registry import engine_model, policy_engine

E = TypeVar("E", bound=Enum)


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
    if hasattr(value, "__len__") and len(value) > MAX_CAPTURE_SIZES:
        raise too_many
    sizes = tuple(_positive_int(name, v)
                  for v in itertools.islice(value, MAX_CAPTURE_SIZES + 1))
    if len(sizes) > MAX_CAPTURE_SIZES:
        raise too_many
    if not sizes:
        raise ConfigError(f"{name}: the list is empty")
    for a, b in itertools.pairwise(sizes):
        if a == b:
            raise ConfigError(f"{name}: duplicate capture size {a}")
        if a > b:
            raise ConfigError(f"{name}: capture sizes must be sorted ascending ({a} before {b})")
    return sizes


def _optional_int(name: str, value: object, minimum: int) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int) or value < minimum
            or value > MAX_INT):
        raise ConfigError(f"{name}: must be an integer in {minimum}..{MAX_INT}, got "
                          f"{excerpt(value)}")
    return value


def _resolve_engine(config: EngineConfig) -> None:
    """Coerce the engine and let its model settle the engine-specific fields."""
    set_ = object.__setattr__
    engine = _coerce_enum("engine", Engine, config.engine)
    set_(config, "engine", engine)
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
    for name, value in engine_model(engine).resolve(config).items():
        set_(config, name, value)


@dataclass(frozen=True)
class EngineConfig:
    """A serving engine's configuration, validated at construction.

    Field names follow vLLM's flags. Strings are accepted for the enum fields and coerced, so
    `EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash")` works.

    For `engine="sglang"` / `"trtllm"` the capture sizes and `max_cudagraph_capture_size` are
    batch sizes (requests: `--cuda-graph-bs`, `--cuda-graph-max-bs`, `CudaGraphConfig`), and
    `num_speculative_tokens` is SGLang's `speculative_num_steps` / TRT-LLM's `max_draft_len`.
    """

    max_num_seqs: int
    max_num_batched_tokens: int = 8192
    max_model_len: int = 8192
    num_speculative_tokens: int = 0
    spec_method: SpecMethod = SpecMethod.NONE
    cudagraph_mode: CUDAGraphMode = CUDAGraphMode.FULL_AND_PIECEWISE
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    max_cudagraph_capture_size: int | None = None
    hidden_size: int = 4096
    dtype: str = "bfloat16"
    runner: Runner = Runner.V1
    ceiling_family: CeilingFamily = CeilingFamily.DEFAULT
    performance_mode: PerformanceMode = PerformanceMode.BALANCED
    ladder: LadderPolicy = LadderPolicy.AUTO
    multimodal: bool = False
    block_size: int = 16
    mrope_dims: int = 3
    engine: Engine = Engine.VLLM
    # None resolves per engine: vLLM and SGLang pad, TensorRT-LLM's CudaGraphConfig does not
    cuda_graph_padding: bool = None  # type: ignore[assignment]
    speculative_eagle_topk: int | None = None
    speculative_num_draft_tokens: int | None = None
    # the draft model's hidden size (its hidden_states rows' width); None: the target's
    draft_hidden_size: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("max_num_seqs", "max_num_batched_tokens", "max_model_len", "hidden_size",
                     "block_size", "mrope_dims"):
            _positive_int(name, getattr(self, name))
        k = self.num_speculative_tokens
        if isinstance(k, bool) or not isinstance(k, int) or k < 0 or k > MAX_INT:
            raise ConfigError(f"num_speculative_tokens: must be an integer in 0..{MAX_INT}, "
                              f"got {excerpt(k)}")
        set_(self, "spec_method", _coerce_enum("spec_method", SpecMethod, self.spec_method))
        set_(self, "cudagraph_mode",
             _coerce_enum("cudagraph_mode", CUDAGraphMode, self.cudagraph_mode))
        set_(self, "runner", _coerce_enum("runner", Runner, self.runner))
        set_(self, "ceiling_family",
             _coerce_enum("ceiling_family", CeilingFamily, self.ceiling_family))
        set_(self, "performance_mode",
             _coerce_enum("performance_mode", PerformanceMode, self.performance_mode))
        set_(self, "ladder", _coerce_enum("ladder", LadderPolicy, self.ladder))
        _resolve_engine(self)
        set_(self, "cudagraph_capture_sizes",
             _sizes("cudagraph_capture_sizes", self.cudagraph_capture_sizes))
        if self.max_cudagraph_capture_size is not None:
            _positive_int("max_cudagraph_capture_size", self.max_cudagraph_capture_size)
        if self.draft_hidden_size is not None:
            _positive_int("draft_hidden_size", self.draft_hidden_size)
        if not isinstance(self.dtype, str) or self.dtype not in DTYPE_SIZES:
            raise ConfigError(f"dtype: {excerpt(self.dtype)} is not one of "
                              f"{', '.join(DTYPE_SIZES)}")
        if not isinstance(self.multimodal, bool):
            raise ConfigError(f"multimodal: expected true/false, got {excerpt(self.multimodal)}")
        if self.max_num_batched_tokens < self.max_num_seqs:
            raise ConfigError(
                f"max_num_batched_tokens: {self.max_num_batched_tokens} is below max_num_seqs "
                f"{self.max_num_seqs} (vLLM rejects this too)")
        method = self.spec_method
        if method is SpecMethod.NONE and k > 0:
            raise ConfigError(
                "num_speculative_tokens: > 0 needs a speculative method (spec_method)")
        if method is not SpecMethod.NONE and k == 0:
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
    def has_drafter(self) -> bool:
        return self.spec_method.has_drafter_model

    def replace(self, **changes: Any) -> EngineConfig:
        """A validated copy with some fields changed (an unknown field is a ConfigError)."""
        _check_fields("replace", changes)
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
        graphfit.planner.engines.vllm.native). The capture list vLLM resolved is taken as
        explicit sizes; `overrides` (EngineConfig fields) win over what is read."""
        from graphfit.planner.engines.vllm.native import fields_from_vllm

        return cls._from_fields("from_vllm", {**fields_from_vllm(vllm_config), **overrides})

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
        if "max_num_seqs" not in data:
            raise ConfigError("max_num_seqs: missing")
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
