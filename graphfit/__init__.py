"""graphfit: CUDA-graph capture ladders, padding and buffer capacities from one config.

The public planner API is re-exported here; the torch runtime lives in `graphfit.cudagraph`
and is imported only when asked for, so `import graphfit` never pulls in torch.
"""

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
