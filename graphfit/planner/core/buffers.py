"""Persistent buffers before sizing: axis, dtype, what feeds them, how their padding is filled.

Each engine model lists its buffers as `BufferSpec`s. A spec says which streams it reads
(`demands`), what the engine's own code allocates (`reference_capacity`, so a plan shows the
saving or the shortfall), how graphfit's runtime fills the padded tail, and which fills are
safe there at all (stale slot ids or request rows in a padded tail are read by the graph).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.enums import Vocabulary
from graphfit.planner.core.errors import ConfigError, excerpt, require_int
from graphfit.planner.core.limits import MAX_INT

_SHARED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
PAD_SLOT_ID = -1  # the slot id of padded tokens: the KV-cache write skips it


class Axis(Vocabulary):
    """The dimension that scales with the batch."""

    TOKENS = "tokens"
    REQUESTS = "requests"
    FIXED = "fixed"


class FillKind(Vocabulary):
    """What the padded tail `[n, padded)` holds when a graph replays."""

    KEEP = "keep"  # leave whatever is there (only for rows nothing reads)
    ZERO = "zero"
    SENTINEL = "sentinel"  # a marker value, e.g. slot id -1 so no KV write happens
    COPY_REAL_ROWS = "copy-real-rows"  # repeat the last real row (keeps cumsums monotone)


class Placement(Vocabulary):
    """Where a buffer's memory lives. The planner counts device and host bytes apart and lays
    only the device buffers out in a component's arena: an engine that stages a graph's
    inputs in pinned host memory (read by a captured H2D copy, or copied before each replay)
    plans those staging tensors as host buffers, so the GPU memory a plan claims is the GPU
    memory the engine allocates. Engine-neutral: any engine model may mark any buffer."""

    DEVICE = "device"
    HOST = "host"


@dataclass(frozen=True)
class FillPolicy:
    kind: FillKind = FillKind.ZERO
    value: float = 0

    def __post_init__(self) -> None:
        try:
            kind = FillKind(self.kind)
        except (ValueError, TypeError):
            raise ConfigError(f"fill policy: kind must be one of "
                              f"{', '.join(k.value for k in FillKind)}, got {excerpt(self.kind)}"
                              ) from None
        object.__setattr__(self, "kind", kind)
        value = self.value
        # a sentinel is a number a buffer can hold: finite, within int64 (whether a given
        # dtype holds it exactly is checked where the dtype is known, graphfit.cudagraph.fill)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, int) and abs(value) > MAX_INT) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise ConfigError(f"fill policy: value must be a finite number within +-{MAX_INT}, "
                              f"got {excerpt(value)}")

    def describe(self) -> str:
        if self.kind is FillKind.SENTINEL:
            return f"sentinel({self.value:g})"
        return str(self.kind.value)


ZERO = FillPolicy(FillKind.ZERO)
KEEP = FillPolicy(FillKind.KEEP)
REPEAT_LAST = FillPolicy(FillKind.COPY_REAL_ROWS)
PAD_SLOT = FillPolicy(FillKind.SENTINEL, PAD_SLOT_ID)
PAD_TRUE = FillPolicy(FillKind.SENTINEL, 1)
ONLY_ZERO = frozenset({FillKind.ZERO})
ONLY_SENTINEL = frozenset({FillKind.SENTINEL})
ONLY_COPY = frozenset({FillKind.COPY_REAL_ROWS})


@dataclass(frozen=True)
class Demand:
    """Rows a buffer needs from one stream: the stream's rows times `scale`, plus a constant.

    `scale` > 1 is a flat buffer holding several rows per token (SGLang's EAGLE draft runner
    keeps one KV slot per draft step in a flat out_cache_loc of tokens * steps entries).
    """

    stream: Stream
    offset: int = 0
    scale: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "stream", Stream(self.stream))
        require_int(f"demand on {self.stream.value}: offset", self.offset, -MAX_INT)
        require_int(f"demand on {self.stream.value}: scale", self.scale, 1)


@dataclass(frozen=True)
class BufferSpec:
    """One persistent buffer before sizing.

    `leading` dims come before the scaled axis (mrope's 3 rows), `trailing` after it (hidden).
    `init` is "arange" for index buffers the runtime fills once with 0, 1, 2, ...
    `safe_fills` are the fills of a padded tail that keep a replay correct (None: any).
    `shared` names a plan-level buffer this one IS (not a copy of): every component's spec
    with the same `shared` name is one tensor, sized for the most rows any of them needs and
    allocated and counted once (an engine whose prefill graphs and decode graphs read the
    same persistent token buffer). "" is a buffer of its own component.
    `placement` is where it lives (`Placement`; device unless the engine allocates it in
    host memory): host buffers sit outside the component's device arena and their bytes are
    counted apart (`host_bytes`).
    """

    name: str
    dtype: str
    axis: Axis
    demands: tuple[Demand, ...]
    reference_capacity: int
    fill: FillPolicy = ZERO
    leading: tuple[int, ...] = ()
    trailing: tuple[int, ...] = ()
    init: str = "zeros"
    source: str = ""
    safe_fills: frozenset[FillKind] | None = None
    shared: str = ""
    placement: Placement = Placement.DEVICE

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "placement", Placement(self.placement))
        except (ValueError, TypeError, ConfigError):
            raise ConfigError(f"{self.name}: placement must be one of "
                              f"{', '.join(p.value for p in Placement)}, got "
                              f"{excerpt(self.placement)}") from None
        if self.shared and self.placement is Placement.HOST:
            # one tensor several components' graphs read sits on the device (the runtime's
            # shared pool is one device's); a host staging copy belongs to one runner
            raise ConfigError(f"{self.name}: a shared buffer is a device buffer, not host")
        if not isinstance(self.shared, str) or (self.shared and not _SHARED_NAME.fullmatch(
                self.shared)):
            raise ConfigError(f"{self.name}: shared must be a buffer name (letters, digits, "
                              f"_), got {excerpt(self.shared)}")
        if self.axis is not Axis.FIXED and not self.demands:
            raise ConfigError(f"{self.name}: a scaled buffer needs at least one demand")
        if self.init not in ("zeros", "arange"):
            raise ConfigError(f"{self.name}: init must be zeros or arange")
        if self.safe_fills is not None and self.fill.kind not in self.safe_fills:
            raise ConfigError(f"{self.name}: its own fill {self.fill.describe()} is not safe")

    def fill_is_safe(self, kind: FillKind) -> bool:
        return self.safe_fills is None or kind in self.safe_fills


def on_host(spec: BufferSpec) -> BufferSpec:
    """The spec as a host buffer (pinned host memory the engine stages a graph's inputs in)."""
    return replace(spec, placement=Placement.HOST)


def as_shared(spec: BufferSpec, name: str | None = None) -> BufferSpec:
    """The spec as a user of the plan-level shared buffer `name` (default: its own name)."""
    return replace(spec, shared=spec.name if name is None else name)
