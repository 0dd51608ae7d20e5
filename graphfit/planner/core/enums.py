"""String enums for the config vocabulary (values are vLLM's own spellings)."""

from __future__ import annotations

import importlib
from enum import Enum

from graphfit.planner.core.errors import ConfigError, excerpt

# moved to the vLLM engine's package (issue 20): the old import path keeps working at run
# time, untyped, so graphfit's own code (checked by mypy) imports them from their engine
_MOVED = {"AttentionSupport": "graphfit.planner.engines.vllm.enums",
          "CeilingFamily": "graphfit.planner.engines.vllm.enums",
          "PerformanceMode": "graphfit.planner.engines.vllm.enums",
          "Runner": "graphfit.planner.engines.vllm.enums"}


def __getattr__(name: str) -> object:
    """`from graphfit.planner.core.enums import Runner` still works: the engine-only enums
    live in their engine's package now and are looked up there on first use (core never
    imports an engine at load time; the planner's layers stay top down)."""
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


class Vocabulary(str, Enum):
    """A string enum whose lookup of an unknown value is a ConfigError naming the choices
    (`CUDAGraphMode("x")`, `FillKind(None)`), not the bare ValueError of `Enum`."""

    @classmethod
    def _missing_(cls, value: object) -> Vocabulary:
        choices = ", ".join(str(member.value) for member in cls)
        raise ConfigError(f"{cls.__name__}: expected one of {choices}, got {excerpt(value)}")


class CUDAGraphMode(Vocabulary):
    """vLLM's cudagraph modes. The order of `rank` is the DP "min mode" order."""

    NONE = "NONE"
    PIECEWISE = "PIECEWISE"
    FULL = "FULL"
    FULL_DECODE_ONLY = "FULL_DECODE_ONLY"
    FULL_AND_PIECEWISE = "FULL_AND_PIECEWISE"

    @property
    def has_full_decode(self) -> bool:
        """Whether uniform-decode batches may replay FULL graphs."""
        return self in (CUDAGraphMode.FULL, CUDAGraphMode.FULL_DECODE_ONLY,
                        CUDAGraphMode.FULL_AND_PIECEWISE)

    @property
    def rank(self) -> int:
        """Runtime mode order used by data-parallel agreement: NONE < PIECEWISE < FULL."""
        return {"NONE": 0, "PIECEWISE": 1}.get(self.value, 2)

    @property
    def mixed_mode(self) -> CUDAGraphMode:
        """The graphs mixed batches replay (vLLM's `mixed_mode()`)."""
        if self is CUDAGraphMode.FULL_AND_PIECEWISE:
            return CUDAGraphMode.PIECEWISE
        if self is CUDAGraphMode.FULL_DECODE_ONLY:
            return CUDAGraphMode.NONE
        return self

    @property
    def decode_mode(self) -> CUDAGraphMode:
        """The graphs uniform decodes replay (vLLM's `decode_mode()`)."""
        if self in (CUDAGraphMode.FULL_AND_PIECEWISE, CUDAGraphMode.FULL_DECODE_ONLY):
            return CUDAGraphMode.FULL
        return self

    @property
    def separate_routine(self) -> bool:
        """Whether uniform decodes have their own FULL graphs (vLLM's `separate_routine()`)."""
        return self in (CUDAGraphMode.FULL_AND_PIECEWISE, CUDAGraphMode.FULL_DECODE_ONLY)


class SpecMethod(Vocabulary):
    """Speculative-decoding methods (vLLM `--speculative-config` `method`; vLLM 0.33's
    model-specific `*_mtp` names are aliases of `mtp`)."""

    NONE = "none"
    EAGLE = "eagle"
    EAGLE3 = "eagle3"
    MTP = "mtp"
    DRAFT_MODEL = "draft_model"
    DFLASH = "dflash"
    NGRAM = "ngram"
    NGRAM_GPU = "ngram_gpu"
    SUFFIX = "suffix"
    DSPARK = "dspark"
    EXTRACT_HIDDEN_STATES = "extract_hidden_states"
    # SGLang 0.5.23's UNO: the target model drafts through one internal LoRA adapter
    # (speculative/uno_lora.py:23-61), no draft model; SGLang only
    # (graphfit.planner.engines.sglang_uno), vLLM and TensorRT-LLM refuse it
    UNO = "uno"

    @property
    def has_drafter_model(self) -> bool:
        """ngram and suffix propose on the CPU: no drafter model (vLLM's V2 runner still
        runs ngram on its GPU speculator; the vLLM model decides that per runner)."""
        return self not in (SpecMethod.NONE, SpecMethod.NGRAM, SpecMethod.SUFFIX,
                            SpecMethod.UNO)


class Engine(Vocabulary):
    """The serving engine whose ladder, dispatch and buffers are modelled.

    vLLM captures per token count; SGLang and TensorRT-LLM capture per batch size (requests),
    so their ladders are in requests and a padded batch of bs requests needs bs * width rows.
    """

    VLLM = "vllm"
    SGLANG = "sglang"
    TRTLLM = "trtllm"


class EngineName(str):
    """A registered engine that is not built in (a plugin's, or a described engine's name).

    Reads like an `Engine` member where code reads `.value` (reports, documents), and is
    never `is` one of them, so no built-in engine's rule applies to it by accident.
    """

    __slots__ = ()

    @property
    def value(self) -> str:
        return str(self)


class LadderPolicy(Vocabulary):
    """How capture sizes are chosen.

    `vllm` reproduces vLLM 0.33 (with request-count uniform-decode sizes), `vllm-legacy` the
    ladder before vLLM PR #50488 (no such sizes: S=33, k=3 pads 132 to 136), `explicit` uses the
    user's `cudagraph_capture_sizes` as the engine takes them (vLLM: sorted, sizes above T
    dropped, and still rounded by the V1 runner). `sglang` / `sglang-spec` are SGLang's
    decode and speculative batch-size lists, `trtllm` TensorRT-LLM's `CudaGraphConfig` list.
    `auto` (the default) resolves to the engine's own policy when the config is built; which
    engine owns which policy is the engine models' business (`graphfit.planner.engines`).
    """

    VLLM = "vllm"
    VLLM_LEGACY = "vllm-legacy"
    EXPLICIT = "explicit"
    SGLANG = "sglang"
    SGLANG_SPEC = "sglang-spec"
    TRTLLM = "trtllm"
    AUTO = "auto"


class Unit(Vocabulary):
    """What a capture size counts: tokens (vLLM) or requests (SGLang, TensorRT-LLM)."""

    TOKENS = "tokens"
    REQUESTS = "requests"
