"""Strategies for the planner tests: graphfit.testing's, on the current vLLM ladder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, Plan, plan
from graphfit.testing import VLLM_MODES as MODES
from graphfit.testing import vllm_configs as _vllm_configs

__all__ = ["MODES", "plan_or_reject", "vllm_configs"]


def vllm_configs(*, max_seqs: int = 300, ladders: Sequence[str] = ("vllm",),
                 **kwargs: Any) -> st.SearchStrategy[EngineConfig]:
    """graphfit.testing.vllm_configs, defaulting to the vLLM 0.33 ladder the rules are for."""
    return _vllm_configs(max_seqs=max_seqs, ladders=ladders, **kwargs)


def plan_or_reject(config: EngineConfig) -> Plan:
    """Plan, or discard the example when vLLM itself would reject the config (e.g. T < q)."""
    try:
        return plan(config)
    except ConfigError:
        assume(False)
        raise
