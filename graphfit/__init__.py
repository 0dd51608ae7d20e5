"""graphfit: CUDA-graph capture ladders, padding and buffer capacities from one config.

The public planner API is re-exported here, imported when first used (PEP 562): the
`graphfit` console script then loads graphfit.cli before the planner and can prepare the
process first (graphfit.cli.codecache). The torch runtime lives in `graphfit.cudagraph` and is
imported only when asked for, so `import graphfit` never pulls in torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphfit.planner import (
        PAD_SLOT_ID,
        AttentionSupport,
        Axis,
        BatchError,
        BatchFamily,
        BufferPlan,
        CapacityError,
        CeilingFamily,
        ComponentPlan,
        ConfigError,
        CUDAGraphMode,
        Demand,
        Dispatch,
        Engine,
        EngineConfig,
        FillKind,
        FillPolicy,
        FillViolation,
        FillViolationRange,
        GraphfitError,
        GraphKey,
        Ladder,
        LadderPolicy,
        PerformanceMode,
        Plan,
        Requests,
        RowRule,
        Runner,
        Scenario,
        SpecMethod,
        Stream,
        Unit,
        Verification,
        Violation,
        ViolationRange,
        padding_table,
        plan,
        request_counts,
    )

__version__ = "0.1.0"

__all__ = [
    "PAD_SLOT_ID", "AttentionSupport", "Axis", "BatchError", "BatchFamily", "BufferPlan",
    "CUDAGraphMode",
    "CapacityError", "CeilingFamily", "ComponentPlan", "ConfigError", "Demand", "Dispatch",
    "Engine", "EngineConfig", "FillKind", "FillPolicy", "FillViolation", "FillViolationRange",
    "GraphKey", "GraphfitError", "Ladder", "LadderPolicy", "PerformanceMode", "Plan",
    "Requests", "RowRule", "Runner", "Scenario", "SpecMethod", "Stream", "Unit",
    "Verification", "Violation", "ViolationRange", "padding_table", "plan", "request_counts",
    "__version__",
]


_PLANNER_NAMES = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    """A planner name, imported from graphfit.planner on first use and kept here."""
    if name not in _PLANNER_NAMES:
        raise AttributeError(f"module 'graphfit' has no attribute {name!r}")
    import graphfit.planner

    value = getattr(graphfit.planner, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _PLANNER_NAMES)
