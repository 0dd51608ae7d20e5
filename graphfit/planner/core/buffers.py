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
    `stages` names the device buffer of the same component this host buffer is the staging
    copy of ("" for none): the runtime writes a batch's rows (and the padding fill) here and
    copies the rows a graph reads into that buffer before each replay, as an engine whose
    graphs read a device tensor refilled from pinned host memory does. Its shape is the
    staged buffer's, or (slots, *that shape) for copies used in turn (`staging_slots`).
    `pinned` says whether the engine allocates a host buffer in page-locked memory (False:
    pageable; a device buffer is never pinned). A graph can record a host-to-device copy
    only from pinned memory (a captured memcpy node reads its source when the graph
    replays), so the runtime allocates pinned host buffers pinned beside a CUDA device and
    records a one-slot staging copy in the graph only from a pinned copy; a pageable copy is
    copied eagerly before each replay.
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
    stages: str = ""
    pinned: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.pinned, bool):
            raise ConfigError(f"{self.name}: pinned must be true or false, got "
                              f"{excerpt(self.pinned)}")
        if not isinstance(self.stages, str) or (self.stages and not _SHARED_NAME.fullmatch(
                self.stages)):
            raise ConfigError(f"{self.name}: stages must be a buffer name (letters, digits, "
                              f"_), got {excerpt(self.stages)}")
        if self.stages and (self.stages == self.name or self.placement is Placement.DEVICE):
            # a staging copy is the host side of a host-to-device refill of another buffer
            raise ConfigError(f"{self.name}: a staging copy is a host buffer that stages "
                              "another buffer")
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
        if self.pinned and self.placement is Placement.DEVICE:
            raise ConfigError(f"{self.name}: pinned is for a host buffer (placement host)")
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


def staging_slots(copy: BufferSpec, staged: BufferSpec) -> int | None:
    """How many copies of `staged` the host buffer `copy` holds: 1 for its own shape, n for
    (n, *its shape) (copies used in turn); None when neither (the pair is refused)."""
    if copy.axis is not staged.axis or copy.trailing != staged.trailing \
            or copy.dtype != staged.dtype:
        return None
    if copy.leading == staged.leading:
        return 1
    if len(copy.leading) == len(staged.leading) + 1 and copy.leading[1:] == staged.leading \
            and copy.leading[0] >= 1:
        return copy.leading[0]
    return None


def check_staging(component: str, buffers: tuple[BufferSpec, ...]) -> None:
    """Each staging copy names a device buffer of the component, of its shape (or of slots
    of it), staged by no other copy: ConfigError naming the first that does not."""
    by_name = {b.name: b for b in buffers}
    seen: set[str] = set()
    for b in buffers:
        if not b.stages:
            continue
        staged = by_name.get(b.stages)
        if staged is None or staged.placement is not Placement.DEVICE or staged.stages:
            raise ConfigError(f"{component}.{b.name}: stages {b.stages!r}, which is not a "
                              "device buffer of the component")
        if b.stages in seen:
            raise ConfigError(f"{component}.{b.name}: {b.stages} has another staging copy")
        seen.add(b.stages)
        if staging_slots(b, staged) is None:
            raise ConfigError(f"{component}.{b.name}: a staging copy is (slots, *the shape "
                              f"of {b.stages}) or its shape, with its dtype and axis")


def on_host(spec: BufferSpec, pinned: bool = True) -> BufferSpec:
    """The spec as a host buffer (host memory the engine stages a graph's inputs in; pinned
    unless told otherwise)."""
    return replace(spec, placement=Placement.HOST, pinned=pinned)


def as_shared(spec: BufferSpec, name: str | None = None) -> BufferSpec:
    """The spec as a user of the plan-level shared buffer `name` (default: its own name)."""
    return replace(spec, shared=spec.name if name is None else name)
