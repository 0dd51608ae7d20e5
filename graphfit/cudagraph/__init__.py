"""The torch runtime: buffers allocated from a plan, checked views, graph capture/replay.

`StaticBuffers.allocate(plan, device, component)` gives the persistent tensors,
`GraphRunner(fn, plan, buffers, backend=...)` captures and replays graphs over them,
`CaptureSession` captures several runners (target, drafter) as one engine start-up, and
`sync_dp_padding` makes data-parallel ranks agree on the graph to replay. Import it only where
torch is wanted: the planner (`graphfit.planner`) never imports this package.
"""

try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without torch installed
    raise ImportError("graphfit.cudagraph needs torch: pip install 'graphfit[torch]'") from exc

from graphfit.cudagraph.backends import (
    BACKENDS,
    Backend,
    CompiledBackend,
    CompiledGraph,
    CPUBackend,
    CUDABackend,
    Graph,
    GraphFn,
    Outputs,
    get_backend,
)
from graphfit.cudagraph.buffers import SharedBuffers, StaticBuffers, UnknownBufferError
from graphfit.cudagraph.capture import (
    CaptureEvent,
    CaptureReport,
    CaptureSession,
    Variant,
    frozen_gc,
)
from graphfit.cudagraph.compile_cache import CompileCache
from graphfit.cudagraph.dp import sync_dp_padding
from graphfit.cudagraph.dtypes import TORCH_DTYPES, torch_dtype
from graphfit.cudagraph.fill import fill_tail, poison_value, sentinel_value
from graphfit.cudagraph.runner import (
    CapturedGraph,
    CaptureStats,
    GraphRunner,
    PreparedStep,
    TailFill,
)
from graphfit.planner import CapacityError, GraphKey, RowRule, static_requests

__all__ = [
    "BACKENDS", "Backend", "CPUBackend", "CUDABackend", "CapacityError", "CaptureEvent",
    "CaptureReport", "CaptureSession", "CaptureStats", "Variant", "frozen_gc",
    "CapturedGraph", "CompileCache", "CompiledBackend", "CompiledGraph", "Graph", "GraphFn",
    "GraphKey",
    "GraphRunner", "Outputs", "PreparedStep", "RowRule", "SharedBuffers", "StaticBuffers",
    "TORCH_DTYPES",
    "TailFill", "UnknownBufferError", "fill_tail", "get_backend", "poison_value",
    "sentinel_value", "static_requests", "sync_dp_padding", "torch_dtype",
]
