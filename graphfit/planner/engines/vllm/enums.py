"""vLLM-only vocabulary: attention cudagraph support levels, model runners, the ceiling's
device family, performance modes.

They used to live in graphfit.planner.core.enums, which still re-exports them (the old import
path keeps working); no other engine reads them.
"""

from __future__ import annotations

from graphfit.planner.core.enums import Vocabulary


class AttentionSupport(Vocabulary):
    """vLLM's `AttentionCGSupport`: what CUDA graphs an attention backend can run, lowest
    first (0.33 v1/attention/backend.py:557). FULL decode graphs with q > 1 need
    UNIFORM_BATCH, FULL mixed graphs ALWAYS; NEVER allows PIECEWISE only."""

    NEVER = "NEVER"
    UNIFORM_SINGLE_TOKEN_DECODE = "UNIFORM_SINGLE_TOKEN_DECODE"
    UNIFORM_BATCH = "UNIFORM_BATCH"
    ALWAYS = "ALWAYS"

    @property
    def rank(self) -> int:
        return list(AttentionSupport).index(self)


class Runner(Vocabulary):
    """vLLM's GPU model runner: V1, or the V2 model runner (`VLLM_USE_V2_MODEL_RUNNER=1`;
    0.33 config/vllm.py:730-767 picks one when the variable is unset)."""

    V1 = "v1"
    V2 = "v2"


class CeilingFamily(Vocabulary):
    """Device family that sets the default capture ceiling D (0.33 config/vllm.py:2403:
    1024 on data-center Blackwell, else 512)."""

    DEFAULT = "default"
    BLACKWELL = "blackwell"

    @property
    def ceiling(self) -> int:
        return 1024 if self is CeilingFamily.BLACKWELL else 512


class PerformanceMode(Vocabulary):
    """vLLM `performance_mode` (0.33 config/vllm.py:441); interactivity captures every size
    1..32 (config/vllm.py:2573)."""

    BALANCED = "balanced"
    INTERACTIVITY = "interactivity"
    THROUGHPUT = "throughput"


__all__ = ["AttentionSupport", "CeilingFamily", "PerformanceMode", "Runner"]
