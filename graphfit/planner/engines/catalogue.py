"""Buffer catalogues of batch-size engines: which runners exist, their width, their buffers.

A runner replays one graph per batch size; a padded batch of bs requests reads bs_padded rows
of every request-axis buffer and bs_padded * width rows of every token-axis buffer. Each
buffer also states which fills of the padded tail are safe: stale rows there are read by the
graph (attention metadata, KV writes) and caused illegal memory accesses in SGLang.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.buffers import Axis, FillKind, FillPolicy
from graphfit.planner.errors import ConfigError


@dataclass(frozen=True)
class BatchBufferSpec:
    """One persistent graph input before sizing.

    `reference_capacity` is the engine's own formula; `safe_fills` the fills of the padded
    tail that keep the graph in bounds (None: anything, e.g. token ids stay in the vocab).
    """

    name: str
    dtype: str
    axis: Axis
    reference_capacity: int
    fill: FillPolicy
    safe_fills: frozenset[FillKind] | None = None
    leading: tuple[int, ...] = ()
    trailing: tuple[int, ...] = ()
    why: str = ""

    def __post_init__(self) -> None:
        if self.axis is Axis.FIXED:
            raise ConfigError(f"{self.name}: batch-engine buffers scale with the batch")
        if self.safe_fills is not None and self.fill.kind not in self.safe_fills:
            raise ConfigError(f"{self.name}: its own fill {self.fill.describe()} is not safe")

    def fill_is_safe(self, kind: FillKind) -> bool:
        return self.safe_fills is None or kind in self.safe_fills


@dataclass(frozen=True)
class BatchRunner:
    """A graph runner: `width` tokens per request, batches of 1..max_requests requests.

    `eager_tokens` > 0 means eager batches (larger than the ladder, or prefill) write the same
    persistent buffers unpadded, up to that many tokens (TensorRT-LLM); SGLang's graph inputs
    are private to the graph runner, so eager batches never touch them.
    """

    name: str
    width: int
    max_requests: int
    buffers: tuple[BatchBufferSpec, ...]
    eager_tokens: int = 0
    eager_requests: int = 0

    def __post_init__(self) -> None:
        if self.width < 1 or self.max_requests < 1:
            raise ConfigError(f"{self.name}: width and max_requests must be >= 1")
