"""The torch-free planner: config, ladders, dispatch tables, buffer capacities, verification."""

from graphfit.planner.buffers import PAD_SLOT_ID, Axis, Demand, FillKind, FillPolicy
from graphfit.planner.config import EngineConfig
from graphfit.planner.dispatch import Dispatch, padding_table
from graphfit.planner.enums import (
    CeilingFamily,
    CUDAGraphMode,
    Engine,
    LadderPolicy,
    PerformanceMode,
    Runner,
    SpecMethod,
)
from graphfit.planner.errors import BatchError, CapacityError, ConfigError, GraphfitError
from graphfit.planner.ladder import Ladder, request_counts
from graphfit.planner.plan import BufferPlan, ComponentPlan, Plan, plan
from graphfit.planner.streams import Stream
from graphfit.planner.verify import Verification, Violation, ViolationRange

__all__ = [
    "PAD_SLOT_ID", "Axis", "BatchError", "BufferPlan", "CUDAGraphMode", "CapacityError",
    "CeilingFamily", "ComponentPlan", "ConfigError", "Demand", "Dispatch", "Engine", "EngineConfig",
    "FillKind", "FillPolicy", "GraphfitError", "Ladder", "LadderPolicy", "PerformanceMode",
    "Plan", "Runner", "SpecMethod", "Stream", "Verification", "Violation", "ViolationRange",
    "padding_table", "plan", "request_counts",
]
