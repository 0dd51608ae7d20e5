"""`StaticBuffers`: a component's persistent buffers, allocated once from its plan.

Graphs replay fixed addresses, so every buffer a graph reads must exist before capture and
never move. The plan fixes each buffer's shape and, for the "arena" layout, its byte offset in
one allocation (one tensor, one free, aligned sub-views); "separate" gives one tensor per
buffer. `view(name, n)` is the only sanctioned way to take rows: it returns exactly n rows or
raises `CapacityError` -- never the short tensor a plain `buf[:n]` slice silently returns.

A buffer the plan shares between components (`Plan.shared`) is one tensor: `SharedBuffers`
allocates each once, and every component allocated with `shared=` that pool views the same
memory (TensorRT-LLM's prefill and decode graphs read one `input_ids`).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

import torch

from graphfit.cudagraph.dtypes import torch_dtype
from graphfit.cudagraph.fill import poison_value
from graphfit.planner import (
    MAX_INT,
    BatchError,
    BufferPlan,
    CapacityError,
    ComponentPlan,
    ConfigError,
    Plan,
    SharedBufferPlan,
    brief,
    excerpt,
    lay_out,
)


def _torch_device(device: str | torch.device) -> torch.device:
    """`device` as a torch device that exists here, or one ConfigError line."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise ConfigError(f"device: {excerpt(device)} is not a torch device "
                          f"({' '.join(str(exc).split())[:80]})") from None
    check_device(dev)
    if dev.type == "cuda" and dev.index is None:  # what the tensors report: "cuda:0", so a
        dev = torch.device("cuda", torch.cuda.current_device())  # pool given "cuda" matches
    return dev


class UnknownBufferError(ConfigError, KeyError):
    """No buffer of that name: a ConfigError that `Mapping` lookups also see as a KeyError."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _resized(buf: BufferPlan, capacity: int) -> BufferPlan:
    """The buffer with another capacity (its shape and bytes follow from it)."""
    return dataclasses.replace(buf, capacity=capacity)


def _relayout(bufs: list[BufferPlan], layout: str, alignment: int) -> list[BufferPlan]:
    """Offsets as the planner lays them out (`lay_out`), for buffers whose capacity changed;
    shared buffers are outside the arena."""
    offsets = iter(lay_out([b.bytes for b in bufs if _in_arena(b)], layout, alignment)[0])
    return [dataclasses.replace(b, offset=next(offsets)) if _in_arena(b) else b for b in bufs]


def _in_arena(buf: BufferPlan) -> bool:
    """Whether `buf` sits in its component's device arena: its own (not shared) device
    buffers do; host buffers are separate pinned allocations, as the planner lays them."""
    return not buf.shared and buf.on_device


def _check_layout(component: ComponentPlan, bufs: list[BufferPlan]) -> int:
    """The arena's size, after checking every offset is the one the layout rule gives.

    A plan built by hand (or edited) with overlapping or misaligned offsets is refused, not
    allocated: two buffers sharing bytes would corrupt each other silently.
    """
    own = [b for b in bufs if _in_arena(b)]
    offsets, total = lay_out([b.bytes for b in own], component.layout, component.alignment)
    for buf, expected in zip(own, offsets):
        if buf.offset != expected:
            raise ConfigError(f"layout: {buf.key} offset {buf.offset} is not the planned "
                              f"{expected} (misaligned, overlapping or edited)")
    return total


def _count(key: str, n: object) -> int:
    """A row count: an int or an integer-like (numpy, 0-dim tensor) value, never a bool or a
    float (a slice by 2.5 rows is a bug, not a request)."""
    if not isinstance(n, bool):
        try:
            return operator.index(n)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise BatchError(f"rows: {key} cannot take {excerpt(n)} rows (an integer >= 0)")


def check_device(dev: torch.device) -> None:
    """ConfigError unless tensors with data can be made on `dev`: torch raises an
    AssertionError for "cuda" in a build without CUDA, a RuntimeError for a device index
    that does not exist; a meta tensor holds no data to copy batches into."""
    if dev.type == "meta":
        raise ConfigError("device: meta tensors hold no data; buffers are written and read "
                          "every step, so allocate them on a real device")
    try:
        torch.empty(0, device=dev)
    except Exception as exc:  # AssertionError, RuntimeError: the build or the machine lacks it
        raise ConfigError(f"device: {dev} is not available here "
                          f"({' '.join(str(exc).split())[:80]})") from None


class StaticBuffers(Mapping[str, torch.Tensor]):
    """Named persistent tensors of one component; `buffers["x"]`, `buffers.x`, `view("x", n)`.

    Mapping and attribute access return the whole buffer (all `capacity` rows); take batch
    rows with `view`, which checks the capacity.
    """

    def __init__(self, plan: Plan, component: ComponentPlan, specs: list[BufferPlan],
                 tensors: dict[str, torch.Tensor], arena: torch.Tensor | None,
                 total_bytes: int) -> None:
        # `allocate` builds these; a direct call is checked as strictly
        if not isinstance(plan, Plan) or not isinstance(component, ComponentPlan):
            raise ConfigError("StaticBuffers: build them with StaticBuffers.allocate(plan, "
                              "device, component)")
        if isinstance(specs, (str, bytes)) or not hasattr(specs, "__iter__") or not all(
                isinstance(b, BufferPlan) for b in specs):
            raise ConfigError(f"specs: expected BufferPlans, got {excerpt(specs)}")
        if not isinstance(tensors, Mapping) or any(
                not isinstance(tensors.get(b.name), torch.Tensor) for b in specs):
            raise ConfigError("tensors: expected one tensor per buffer spec")
        if arena is not None and not isinstance(arena, torch.Tensor):
            raise ConfigError(f"arena: expected a tensor or None, got {excerpt(arena)}")
        self.plan = plan
        self.component = component
        self.specs: Mapping[str, BufferPlan] = MappingProxyType({b.name: b for b in specs})
        self._tensors = tensors
        self.arena = arena
        self.total_bytes = total_bytes

    @classmethod
    def allocate(cls, plan: Plan, device: torch.device | str = "cpu",
                 component: str = "target", *,
                 capacities: Mapping[str, int] | None = None,
                 shared: SharedBuffers | None = None) -> StaticBuffers:
        """Allocate every buffer of `component` as the plan lays it out, zeroed.

        `capacities` (buffer name or "component.name" -> rows) overrides the plan's sizing,
        e.g. to reproduce an engine's own formula; offsets are then recomputed the planner's
        way. Buffers with init="arange" are filled once with 0, 1, 2, ... along their axis.
        `shared`: the plan's shared buffers (`SharedBuffers.allocate(plan, device)`), which
        this component's shared buffers then view; without it they are allocated here, for
        this component alone (resize a pool's buffer in `SharedBuffers.allocate`).
        """
        if not isinstance(plan, Plan):
            raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
        comp = plan.component(component)
        specs = list(comp.buffers)
        if capacities is not None and not isinstance(capacities, Mapping):
            raise ConfigError(f"capacities: expected a mapping of buffer -> rows, got "
                              f"{type(capacities).__name__}")
        if capacities:
            by_name = {b.name: i for i, b in enumerate(specs)}
            for key, rows in capacities.items():
                if not isinstance(key, str):
                    raise UnknownBufferError(f"capacity: buffer names are strings, got "
                                             f"{excerpt(key)}")
                name = key.split(".", 1)[1] if key.startswith(f"{component}.") else key
                if name not in by_name:
                    known = ", ".join(by_name)
                    raise UnknownBufferError(
                        f"capacity: {component} has no buffer {key!r} (known: {known})")
                if (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0
                        or rows > MAX_INT):
                    raise ConfigError(
                        f"capacity: {brief(key)} must be an integer in 0..{MAX_INT}, got "
                        f"{excerpt(rows)}")
                if shared is not None and specs[by_name[name]].shared:
                    raise ConfigError(f"capacity: {component}.{name} is the shared buffer "
                                      f"{specs[by_name[name]].shared}; resize it in "
                                      "SharedBuffers.allocate(capacities=)")
                specs[by_name[name]] = _resized(specs[by_name[name]], rows)
            specs = _relayout(specs, comp.layout, comp.alignment)
        dev = _torch_device(device)
        tensors: dict[str, torch.Tensor] = {}
        arena: torch.Tensor | None = None
        total = _check_layout(comp, specs)
        own = [b for b in specs if _in_arena(b)]
        hosted = [b for b in specs if not b.shared and not b.on_device]
        pool = _pool_for(plan, comp, specs, dev, shared)
        for buf in specs:
            if buf.shared:
                tensors[buf.name] = pool[buf.shared]
        try:
            if comp.layout == "arena" and own:
                arena = torch.zeros(total, dtype=torch.uint8, device=dev)
                for buf in own:
                    raw = arena[buf.offset:buf.offset + buf.bytes]
                    tensors[buf.name] = raw.view(torch_dtype(buf.dtype)).view(buf.shape)
            else:
                for buf in own:
                    tensors[buf.name] = torch.zeros(buf.shape, dtype=torch_dtype(buf.dtype),
                                                    device=dev)
            for buf in hosted:  # host memory, pinned beside a GPU where the plan says the
                # engine pins it (BufferPlan.pinned), pageable otherwise
                tensors[buf.name] = torch.zeros(buf.shape, dtype=torch_dtype(buf.dtype),
                                                device="cpu",
                                                pin_memory=buf.pinned and dev.type == "cuda")
        except (RuntimeError, OverflowError, MemoryError, TypeError, ValueError) as exc:
            # out of memory, or sizes past what torch takes (int64 overflow)
            raise ConfigError(f"allocate: {component} needs {total:,} bytes on {dev}, which "
                              f"cannot be allocated ({' '.join(str(exc).split())[:80]})"
                              ) from None
        out = cls(plan, comp, specs, tensors, arena, total)
        for buf in (*own, *hosted):
            if buf.init == "arange":
                out.reset_arange(buf.name)
        return out

    # -- access -------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The component ("target" or "drafter")."""
        return self.component.name

    @property
    def device(self) -> torch.device:
        first = next(iter(self._tensors.values()), None)
        return first.device if first is not None else torch.device("cpu")

    def spec(self, name: str) -> BufferPlan:
        """The buffer's plan as allocated (capacity overrides applied)."""
        try:
            return self.specs[name]
        except (KeyError, TypeError):
            known = ", ".join(self.specs)
            raise UnknownBufferError(
                f"buffer: {self.name} has no buffer {excerpt(name)} (known: {known})") from None

    def capacity(self, name: str) -> int:
        return self.spec(name).capacity

    def view(self, name: str, n: int) -> torch.Tensor:
        """Exactly `n` rows along the buffer's scaled axis, or CapacityError (never short)."""
        spec = self.spec(name)
        if type(n) is not int:
            n = _count(spec.key, n)
        if n < 0:
            raise BatchError(f"rows: {spec.key} cannot take {n} rows")
        if n > spec.capacity:
            raise CapacityError(spec.key, n, spec.capacity)
        return self._tensors[name].narrow(spec.axis_dim, 0, n)

    def __getitem__(self, name: str) -> torch.Tensor:
        self.spec(name)
        return self._tensors[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    def __getattr__(self, name: str) -> torch.Tensor:
        tensors = self.__dict__.get("_tensors")
        if tensors is not None and name in tensors:
            return tensors[name]  # type: ignore[no-any-return]
        raise AttributeError(f"{type(self).__name__} has no attribute or buffer {name!r}")

    def __repr__(self) -> str:
        return (f"StaticBuffers({self.name}, {len(self)} buffers, {self.total_bytes} bytes, "
                f"{self.component.layout}, {self.device})")

    # -- maintenance --------------------------------------------------------------------------

    def reset_arange(self, name: str) -> None:
        """Refill an index buffer with 0, 1, 2, ... along its axis (done once at allocation)."""
        spec = self.spec(name)
        tensor = self._tensors[name]
        shape = [1] * tensor.dim()
        shape[spec.axis_dim] = spec.capacity
        ramp = torch.arange(spec.capacity, device=tensor.device).view(shape)
        tensor.copy_(ramp.expand_as(tensor))

    def poison(self, names: Iterable[str] | None = None) -> None:
        """Overwrite buffers (default: all but arange ones) with garbage: NaN, 0x5A5A5A5A, False.

        A debugging aid: poison between steps and any row the runner failed to rewrite shows
        up in the next replay instead of passing silently as last batch's data.
        """
        if names is not None and (isinstance(names, (str, bytes)) or not isinstance(
                names, (list, tuple, set, frozenset, Mapping))):
            raise ConfigError(f"poison: expected buffer names (a list), got {excerpt(names)}")
        for name in self._tensors if names is None else names:
            if self.spec(name).init != "arange":
                tensor = self._tensors[name]
                tensor.fill_(poison_value(tensor.dtype))


def _pool_for(plan: Plan, comp: ComponentPlan, specs: list[BufferPlan], dev: torch.device,
              shared: SharedBuffers | None) -> Mapping[str, torch.Tensor]:
    """The tensors of `comp`'s shared buffers: the given pool's (checked: same plan, device
    and shapes), else a private pool sized by `specs` (capacity overrides applied)."""
    names = {b.shared: b.capacity for b in specs if b.shared}
    if shared is None:
        return SharedBuffers.allocate(plan, dev, names=tuple(names), capacities=names)
    if not isinstance(shared, SharedBuffers):
        raise ConfigError(f"shared: expected SharedBuffers, got {type(shared).__name__}")
    if shared.plan is not plan:
        raise ConfigError("shared: allocated from a different plan than the buffers'")
    for name in names:
        if name not in shared:
            raise ConfigError(f"shared: the pool has no buffer {name!r} that {comp.name} "
                              f"reads (allocated with names=)")
        if shared[name].device != dev:
            raise ConfigError(f"shared: {name} is on {shared[name].device}, not {dev}")
    return shared


class SharedBuffers(Mapping[str, torch.Tensor]):
    """The plan's shared buffers (`Plan.shared`), each one tensor allocated once: pass it as
    `StaticBuffers.allocate(..., shared=)` to every component that reads them."""

    def __init__(self, plan: Plan, specs: Mapping[str, SharedBufferPlan],
                 tensors: dict[str, torch.Tensor], capacities: Mapping[str, int]) -> None:
        if not isinstance(plan, Plan):
            raise ConfigError("SharedBuffers: build them with SharedBuffers.allocate(plan)")
        self.plan = plan
        self.specs = MappingProxyType(dict(specs))
        self.capacities = MappingProxyType(dict(capacities))
        self._tensors = tensors

    @classmethod
    def allocate(cls, plan: Plan, device: torch.device | str = "cpu", *,
                 names: Iterable[str] | None = None,
                 capacities: Mapping[str, int] | None = None) -> SharedBuffers:
        """One zeroed tensor per shared buffer of the plan (or of `names`), at the plan's
        capacity or `capacities` (shared name -> rows); arange ones filled 0, 1, 2, ..."""
        if not isinstance(plan, Plan):
            raise ConfigError(f"plan: expected a Plan, got {type(plan).__name__}")
        wanted = list(plan.shared) if names is None else list(names)
        for name in wanted:
            if name not in plan.shared:
                known = ", ".join(plan.shared) or "none"
                raise UnknownBufferError(f"shared: the plan has no shared buffer "
                                         f"{excerpt(name)} (known: {known})")
        caps = {name: plan.shared[name].capacity for name in wanted}
        for name, rows in (capacities or {}).items():
            if name not in caps:
                raise UnknownBufferError(f"capacity: no shared buffer {excerpt(name)}")
            if isinstance(rows, bool) or not isinstance(rows, int) or not 0 <= rows <= MAX_INT:
                raise ConfigError(f"capacity: shared {brief(name)} must be an integer in "
                                  f"0..{MAX_INT}, got {excerpt(rows)}")
            caps[name] = rows
        dev = _torch_device(device)
        tensors: dict[str, torch.Tensor] = {}
        for name, rows in caps.items():
            user = _resized(plan.shared[name].users[0], rows)
            try:
                tensor = torch.zeros(user.shape, dtype=torch_dtype(user.dtype), device=dev)
            except (RuntimeError, OverflowError, MemoryError, TypeError, ValueError) as exc:
                raise ConfigError(f"allocate: shared {name} needs {user.bytes:,} bytes on "
                                  f"{dev}, which cannot be allocated "
                                  f"({' '.join(str(exc).split())[:80]})") from None
            if user.init == "arange":
                shape = [1] * tensor.dim()
                shape[user.axis_dim] = rows
                tensor.copy_(torch.arange(rows, device=dev).view(shape).expand_as(tensor))
            tensors[name] = tensor
        return cls(plan, {n: plan.shared[n] for n in caps}, tensors, caps)

    @property
    def total_bytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self._tensors.values())

    def __getitem__(self, name: str) -> torch.Tensor:
        try:
            return self._tensors[name]
        except (KeyError, TypeError):
            raise UnknownBufferError(f"shared: no shared buffer {excerpt(name)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    def __repr__(self) -> str:
        return f"SharedBuffers({', '.join(self._tensors)}, {self.total_bytes} bytes)"
