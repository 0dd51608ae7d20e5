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
        BufferPlan,
        BufferRule,
        CapacityError,
        CeilingFamily,
        CompatibilityFormWarning,
        ComponentPlan,
        ComponentRule,
        ConfigError,
        CUDAGraphMode,
        Dispatch,
        DispatchRule,
        Engine,
        EngineConfig,
        EngineDescription,
        EngineOptions,
        FamilyRule,
        FillKind,
        FillPolicy,
        FillViolation,
        FillViolationRange,
        GraphfitError,
        GraphKey,
        Grid,
        LadderPolicy,
        LadderRule,
        NoOptions,
        PerformanceMode,
        Plan,
        Runner,
        Scenario,
        SglangOptions,
        SharedBufferPlan,
        SpecMethod,
        TrtllmOptions,
        Unit,
        Verification,
        Violation,
        ViolationRange,
        VllmOptions,
        padding_table,
        plan,
        register_description,
        request_counts,
    )

    # former exports, still importable from graphfit but not public (see _FORMER)
    from graphfit.planner import BatchFamily as BatchFamily
    from graphfit.planner import Demand as Demand
    from graphfit.planner import Ladder as Ladder
    from graphfit.planner import Requests as Requests
    from graphfit.planner import RowRule as RowRule
    from graphfit.planner import Stream as Stream

__version__ = "0.1.0"

# The public API (docs/reference/public-api.md): the planner's entry points, the config and
# its enums, the plan and what it holds, verification results and graphfit's errors. The
# runtime's public classes live in `graphfit.cudagraph`, the hypothesis strategies in
# `graphfit.testing`.
__all__ = [
    # entry points
    "plan", "padding_table", "request_counts",
    # the config and the enums its fields take
    "EngineConfig", "AttentionSupport", "CUDAGraphMode", "CeilingFamily", "Engine",
    "LadderPolicy", "PerformanceMode", "Runner", "SpecMethod",
    # each engine's own options (EngineConfig.options)
    "EngineOptions", "VllmOptions", "SglangOptions", "TrtllmOptions", "NoOptions",
    # the plan and what it holds
    "Plan", "ComponentPlan", "BufferPlan", "SharedBufferPlan", "Dispatch", "GraphKey",
    "Scenario", "Unit", "Axis", "FillKind", "FillPolicy", "PAD_SLOT_ID",
    # the engine you bring: a declarative engine description
    "EngineDescription", "ComponentRule", "LadderRule", "Grid", "DispatchRule", "FamilyRule",
    "BufferRule", "register_description",
    # verification results
    "Verification", "Violation", "ViolationRange", "FillViolation", "FillViolationRange",
    # errors
    "GraphfitError", "ConfigError", "BatchError", "CapacityError",
    # the warning of EngineConfig's compatibility form (flat engine keywords)
    "CompatibilityFormWarning",
    "__version__",
]

# The planner's modelling vocabulary, once exported here: still importable from `graphfit`
# (old code keeps working) but not part of the public API; use `graphfit.planner`.
_FORMER = frozenset({"BatchFamily", "Demand", "Ladder", "Requests", "RowRule", "Stream"})
_PLANNER_NAMES = (frozenset(__all__) - {"__version__"}) | _FORMER


def __getattr__(name: str) -> Any:
    """A planner name, imported from graphfit.planner on first use and kept here."""
    if name not in _PLANNER_NAMES:
        raise AttributeError(f"module 'graphfit' has no attribute {name!r}")
    import graphfit.planner

    value = getattr(graphfit.planner, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | (_PLANNER_NAMES - _FORMER))
