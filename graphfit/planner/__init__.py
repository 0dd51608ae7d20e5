"""The torch-free planner: config, ladders, dispatch tables, buffer capacities, verification.

Layout: `core/` (vocabulary and the rules every engine shares: ladders, dispatch, batches,
the row rule, layout, the proof), `engines/` (one model per engine behind one protocol,
picked in `engines/registry.py`), `config.py` + `plan.py` (the facade), `analysis/`
(summaries, comparisons, properties, sweeps, the bug corpus) and `tuning/` (traces, the
ladder optimiser, the graph memory model).

This package's names are the planner's API for graphfit's own layers (the runtime in
`graphfit.cudagraph` imports the planner only from here: an import-linter contract). The
user-facing API is the smaller set `graphfit` exports (docs/reference/public-api.md).
"""

from typing import TYPE_CHECKING, Any

from graphfit.planner.config import CompatibilityFormWarning, EngineConfig
from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import (
    PAD_SLOT_ID,
    Axis,
    Demand,
    FillKind,
    FillPolicy,
    staging_slots,
)
from graphfit.planner.core.dispatch import Dispatch, GraphKey, static_requests
from graphfit.planner.core.enums import CUDAGraphMode, Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import (
    BatchError,
    CapacityError,
    ConfigError,
    GraphfitError,
    brief,
    excerpt,
)
from graphfit.planner.core.keyed import KeyedDispatch
from graphfit.planner.core.ladder import Ladder, padding_table
from graphfit.planner.core.layout import lay_out
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.options import EngineOptions, NoOptions
from graphfit.planner.core.rows import RowRule
from graphfit.planner.core.shape import BatchShape, real_requests
from graphfit.planner.core.verify import (
    FillViolation,
    FillViolationRange,
    Verification,
    Violation,
    ViolationRange,
)
from graphfit.planner.engines.base import Scenario
from graphfit.planner.engines.sglang_options import SglangOptions
from graphfit.planner.engines.sglang_vit import VitGeometry, VitPlan, VitWorkload, plan_vit
from graphfit.planner.engines.sglang_vit_keyed import vit_plan_of
from graphfit.planner.engines.trtllm_options import TrtllmOptions
from graphfit.planner.engines.vllm import request_counts
from graphfit.planner.engines.vllm.enums import (
    AttentionSupport,
    CeilingFamily,
    PerformanceMode,
    Runner,
)
from graphfit.planner.engines.vllm.native import aux_layer_ids
from graphfit.planner.engines.vllm.options import VllmOptions
from graphfit.planner.plan import BufferPlan, ComponentPlan, Plan, SharedBufferPlan, plan

__all__ = [
    "PAD_SLOT_ID", "AttentionSupport", "Axis", "BatchError", "BatchFamily", "BufferPlan",
    "CUDAGraphMode",
    "CapacityError", "CeilingFamily", "ComponentPlan", "ConfigError", "Demand", "Dispatch",
    "Engine", "EngineConfig", "FillKind", "FillPolicy", "FillViolation", "FillViolationRange",
    "GraphKey", "GraphfitError", "Ladder", "LadderPolicy", "PerformanceMode", "Plan",
    "Requests", "RowRule", "Runner", "Scenario", "SharedBufferPlan", "SpecMethod", "Stream",
    "Unit", "Verification", "Violation", "ViolationRange", "padding_table", "plan",
    "request_counts",
    # each engine's options object (EngineConfig.options)
    "EngineOptions", "NoOptions", "SglangOptions", "TrtllmOptions", "VllmOptions",
    "CompatibilityFormWarning",
    # the engine you bring (engines/description.py)
    "BufferRule", "ComponentRule", "DispatchRule", "EngineDescription", "FamilyRule", "Grid",
    "LadderRule", "register_description",
    # for graphfit's own layers (the runtime): row counting, layout, error messages
    "MAX_INT", "BatchShape", "brief", "excerpt", "lay_out", "real_requests", "static_requests",
    "KeyedDispatch", "staging_slots",
    # SGLang's vision-encoder graphs (engines/sglang_vit.py)
    "VitGeometry", "VitPlan", "VitWorkload", "plan_vit", "vit_plan_of",
    # for the inputs layer: the aux layers a vLLM draft config names
    "aux_layer_ids",
]

if TYPE_CHECKING:
    from graphfit.planner.engines.described import (
        BufferRule,
        ComponentRule,
        DispatchRule,
        EngineDescription,
        FamilyRule,
        Grid,
        LadderRule,
        register_description,
    )

# the engine description is imported on first use: planning a built-in engine never needs it
_DESCRIPTION_NAMES = frozenset({
    "BufferRule", "ComponentRule", "DispatchRule", "EngineDescription", "FamilyRule", "Grid",
    "LadderRule", "register_description"})


def __getattr__(name: str) -> Any:
    """An engine-description name, imported from engines.described on first use."""
    if name not in _DESCRIPTION_NAMES:
        raise AttributeError(f"module 'graphfit.planner' has no attribute {name!r}")
    from graphfit.planner.engines import described

    value = getattr(described, name)
    globals()[name] = value
    return value
