"""`VllmOptions`: the inputs only vLLM's model reads.

Everything every engine shares (request pool, token budget, capture sizes in tokens, the
speculative step, the model's facts) stays on `EngineConfig`; these are vLLM's compilation,
runner and attention settings. `EngineConfig(options=VllmOptions(runner="v1"), ...)` is the
way to give them; the flat keywords (`EngineConfig(runner="v1")`) and reads
(`config.runner`) remain as the compatibility form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.options import EngineOptions, coerce_enum, int_list, true_false
from graphfit.planner.engines.vllm.enums import (
    AttentionSupport,
    CeilingFamily,
    PerformanceMode,
    Runner,
)


@dataclass(frozen=True)
class VllmOptions(EngineOptions):
    """vLLM's own inputs (strings are accepted for the enums and coerced).

    runner: the GPU model runner, V1 or V2 (`VLLM_USE_V2_MODEL_RUNNER`); None: the one vLLM
        picks with the variable unset (0.33 config/vllm.py:730-767: V2 unless the config needs
        what only V1 has), filled in when the config is built. 0.34 has no V1 runner.
    ceiling_family: the device family that sets the default largest capture size
        (0.33 config/vllm.py:2403: 1024 on data-center Blackwell, 512 elsewhere).
    performance_mode: `--performance-mode` (0.33 config/vllm.py:441); interactivity adds
        every size 1..32 to the ladder (config/vllm.py:2573).
    attention_backend: an `AttentionBackendEnum` name (`--attention-backend`,
        0.33 engine/arg_utils.py:811); its static cudagraph support level(s) come from the
        model's backend table. None: not given.
    attention_cudagraph_support: the target attention's `AttentionCGSupport`
        (v1/attention/backend.py:557); None: from the backend if given, else unknown and
        every level is covered.
    drafter_attention_cudagraph_support: the MRV2 DFlash/DSpark draft attention's own level;
        None: unknown.
    dspark_sample_from_anchor: the DSpark draft's `hf_config.sample_from_anchor`
        (v1/worker/gpu/spec_decode/dspark/speculator.py:49-50, default True); False selects
        the 1 + k fill-in layout.
    prefill_cudagraph_capture_token_sizes, max_prefill_cudagraph_capture_tokens,
    decode_cudagraph_capture_request_sizes, max_decode_cudagraph_capture_requests,
    max_decode_cudagraph_capture_tokens: 0.34's split capture sizes (CompilationConfig,
        config/compilation.py:762-801 in 0.34; resolved by config/vllm.py:2558-2737):
        prefill graphs' token counts and their cap, uniform-decode graphs' request counts and
        their cap, the decode graphs' token budget. None: vLLM's default. Only releases
        >= 0.34 read them (an earlier release refuses them).
    draft_aux_layers: the target layers whose hidden states a DFlash/DSpark draft reads (its
        config's eagle_aux_hidden_state_layer_ids / dflash_config.target_layer_ids, counted:
        eagle3_utils.py:103-135); MRV2 stages them for its FULL graph only when there are some
        (dflash/speculator.py:96-106 in 0.33/0.34). None: unknown, one layer assumed.
    """

    engine: ClassVar[str] = "vllm"
    label: ClassVar[str] = "vLLM"
    # SGLang and TensorRT-LLM have one runner, which reads like vLLM's V1 (no V2 buffers)
    absent: ClassVar[Mapping[str, object]] = {"runner": Runner.V1}

    runner: Runner | None = None
    ceiling_family: CeilingFamily = CeilingFamily.DEFAULT
    performance_mode: PerformanceMode = PerformanceMode.BALANCED
    attention_backend: str | None = None
    attention_cudagraph_support: AttentionSupport | None = None
    drafter_attention_cudagraph_support: AttentionSupport | None = None
    dspark_sample_from_anchor: bool = True
    prefill_cudagraph_capture_token_sizes: tuple[int, ...] | None = None
    max_prefill_cudagraph_capture_tokens: int | None = None
    decode_cudagraph_capture_request_sizes: tuple[int, ...] | None = None
    max_decode_cudagraph_capture_requests: int | None = None
    max_decode_cudagraph_capture_tokens: int | None = None
    draft_aux_layers: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.runner is not None:
            set_(self, "runner", coerce_enum("runner", Runner, self.runner))
        set_(self, "ceiling_family",
             coerce_enum("ceiling_family", CeilingFamily, self.ceiling_family))
        set_(self, "performance_mode",
             coerce_enum("performance_mode", PerformanceMode, self.performance_mode))
        for name in ("attention_cudagraph_support", "drafter_attention_cudagraph_support"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, coerce_enum(name, AttentionSupport, value))
        backend = self.attention_backend
        if backend is not None:
            if not isinstance(backend, str) or not backend.strip():
                raise ConfigError(
                    f"attention_backend: expected a backend name, got {backend!r}")
            set_(self, "attention_backend", backend.strip().upper())
        true_false("dspark_sample_from_anchor", self.dspark_sample_from_anchor)
        for name in SPLIT_SIZE_LISTS:
            set_(self, name, int_list(name, getattr(self, name)))
        for name, least in SPLIT_SIZE_CAPS.items():
            value = getattr(self, name)
            if value is not None:  # pydantic Field(ge=...) in 0.34's CompilationConfig
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError(f"{name}: expected an integer, got {excerpt(value)}")
                if not least <= value <= MAX_INT:
                    raise ConfigError(
                        f"{name}: must be in {least}..{MAX_INT}, got {excerpt(value)}")
        aux = self.draft_aux_layers
        if aux is not None and (isinstance(aux, bool) or not isinstance(aux, int)
                                or not 0 <= aux <= MAX_INT):
            raise ConfigError(f"draft_aux_layers: expected an integer >= 0, got {excerpt(aux)}")


# 0.34's split capture-size fields: the lists (any integers: vLLM drops those outside
# [1, limit] with a warning, config/vllm.py:2618-2630) and the caps with their least value
SPLIT_SIZE_LISTS = ("prefill_cudagraph_capture_token_sizes",
                    "decode_cudagraph_capture_request_sizes")
SPLIT_SIZE_CAPS = {"max_prefill_cudagraph_capture_tokens": 0,
                   "max_decode_cudagraph_capture_requests": 0,
                   "max_decode_cudagraph_capture_tokens": 1}


__all__ = ["VllmOptions"]
