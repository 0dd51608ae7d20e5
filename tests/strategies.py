"""Hypothesis strategies for vLLM-style engine configs used across the planner tests."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, Plan, plan

METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram")
MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


@st.composite
def vllm_configs(draw: st.DrawFn, *, max_seqs: int = 300, max_tokens: int = 4096,
                 ladder: str = "vllm", modes: tuple[str, ...] = MODES) -> EngineConfig:
    """Valid EngineConfigs over the ranges serving engines use (kept small for speed)."""
    S = draw(st.integers(1, max_seqs))
    T = draw(st.integers(S, max(S, max_tokens)))
    k = draw(st.integers(0, 15))
    method = draw(st.sampled_from(METHODS)) if k else "none"
    user_max = draw(st.none() | st.integers(1, 600))
    return EngineConfig(
        max_num_seqs=S, max_num_batched_tokens=T, num_speculative_tokens=k,
        spec_method=method, cudagraph_mode=draw(st.sampled_from(modes)),
        max_cudagraph_capture_size=user_max, ladder=ladder,
        runner=draw(st.sampled_from(("v1", "v2"))),
        ceiling_family=draw(st.sampled_from(("default", "blackwell"))),
        performance_mode=draw(st.sampled_from(("balanced", "interactivity"))),
        hidden_size=draw(st.sampled_from((64, 4096))))


def plan_or_reject(config: EngineConfig) -> Plan:
    """Plan, or discard the example when vLLM itself would reject the config (e.g. T < q)."""
    try:
        return plan(config)
    except ConfigError:
        assume(False)
        raise
