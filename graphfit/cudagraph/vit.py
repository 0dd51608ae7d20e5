"""`VitGraphRunner`: the `vit` component's graphs (SGLang's vision-encoder graphs) captured
over the plan's static buffers, and `rehearse_vit`, its dress rehearsal.

The plan (graphfit.planner.engines.sglang_vit.VitPlan) says which keys are reachable, what
each key's graph reads (`key_buffers`: rows per buffer) and what its int32 boundaries hold
(`key_fill`); this module never re-derives them. Unlike SGLang, which allocates a buffer set
per key, one static tensor per buffer is allocated at the plan's capacity and each key's
graph reads a [:rows] view of it (a short buffer is a CapacityError before any capture).

A step stages the call's patch embeddings (and rotary cos / sin) into the key's views,
writes the key's boundaries, and replays; the caller's tower function sees only the views
(`fn(views) -> tensor`), so graph and eager runs of one call see the same shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch

from graphfit.cudagraph.backends import Backend, Graph, get_backend
from graphfit.planner import CapacityError, ConfigError, Plan, VitPlan, vit_plan_of

VitKey = tuple[object, ...]  # as the plan files a graph (VitPlan.keys)
VitFn = Callable[[Mapping[str, torch.Tensor]], torch.Tensor]
_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
           "int32": torch.int32}


class VitGraphRunner:
    """One graph per planned key of `plan`, in static buffers at the plan's capacities."""

    def __init__(self, fn: VitFn, plan: VitPlan, *, backend: str | Backend = "cpu",
                 device: str = "cpu", capacities: Mapping[str, int] | None = None) -> None:
        if not isinstance(plan, VitPlan):
            raise ConfigError(f"plan: expected a VitPlan, got {type(plan).__name__}")
        if plan.geometry.family == "kimi_k3":
            # its graph is the whole tower over pixel patches (SGLang's
            # kimi_k3_vit_cuda_graph_runner.py:115-121), not blocks over staged embeddings
            raise ConfigError("vit: Kimi K3's graphs are the whole tower: graphfit's runtime "
                              "rehearses the block runners (Qwen, InternVL) only")
        self.fn = fn
        self.plan = plan
        self.backend = get_backend(backend) if isinstance(backend, str) else backend
        caps = {**dict(plan.capacities), **(capacities or {})}
        self.buffers: dict[str, torch.Tensor] = {}
        for b in plan.buffers:
            if b.dtype not in _DTYPES:
                raise ConfigError(f"vit: buffer {b.name}: dtype {b.dtype} is not supported")
            self.buffers[b.name] = torch.zeros((caps[b.name], *b.row_shape),
                                               dtype=_DTYPES[b.dtype], device=device)
        self.graphs: dict[VitKey, Graph] = {}
        self.last_key: VitKey | None = None

    def views(self, key: VitKey) -> dict[str, torch.Tensor]:
        """`key`'s [:rows] view of every buffer its graph reads; CapacityError when short."""
        out = {}
        for b in self.plan.key_buffers(key):
            buf = self.buffers[b.name]
            if b.rows > buf.shape[0]:
                raise CapacityError(f"vit.{b.name}", b.rows, int(buf.shape[0]))
            out[b.name] = buf[:b.rows]
        return out

    def capture(self) -> None:
        """Capture every planned key, largest first; every view is taken before the first
        capture, so a short buffer fails before any graph exists."""
        order = sorted(self.plan.keys, key=lambda k: -_rows(self.plan, k))
        views = {k: self.views(k) for k in order}
        for key in order:
            self._fill(key, views[key])
            self.graphs[key] = self.backend.capture(self.fn, views[key])

    def _fill(self, key: VitKey, views: Mapping[str, torch.Tensor]) -> None:
        for name, values in self.plan.key_fill(key).items():
            views[name].copy_(torch.tensor(values, dtype=torch.int32))

    def eager_views(self, key: VitKey, x: torch.Tensor,
                    rotary: tuple[torch.Tensor, torch.Tensor] | None) -> dict[str, torch.Tensor]:
        """Fresh tensors of a key's shapes holding the call (the eager run's inputs)."""
        device = next(iter(self.buffers.values())).device if self.buffers else "cpu"
        out = {b.name: torch.zeros((b.rows, *b.row_shape), dtype=_DTYPES[b.dtype],
                                   device=device)
               for b in self.plan.key_buffers(key)}
        self._stage(key, out, x, rotary)
        return out

    def _stage(self, key: VitKey, views: Mapping[str, torch.Tensor], x: torch.Tensor,
               rotary: tuple[torch.Tensor, torch.Tensor] | None) -> None:
        inp = views["block_input"]
        if x.numel() != inp.numel():
            raise ConfigError(f"vit: the call has {x.shape[0]} rows, its key "
                              f"{inp.shape[0]}")
        inp.copy_(x.reshape(inp.shape))
        if "rotary_cos" in views:
            if rotary is None:
                raise ConfigError("vit: this tower's graphs read rotary cos / sin")
            for name, value in zip(("rotary_cos", "rotary_sin"), rotary, strict=True):
                if tuple(value.shape) != tuple(views[name].shape):
                    raise ConfigError(f"vit: {name} of shape {tuple(value.shape)}, the key's "
                                      f"graph reads {tuple(views[name].shape)}")
                views[name].copy_(value)
        self._fill(key, views)

    def step(self, x: torch.Tensor, grids: Sequence[tuple[int, int, int]], *,
             rotary: tuple[torch.Tensor, torch.Tensor] | None = None,
             eager: bool = False) -> torch.Tensor:
        """Run one encoder call (`x`: its patch embeddings, `grids`: its images' (t, h, w);
        InternVL: one grid per tile): the captured graph of its key, else eagerly."""
        key = self.plan.key_of(grids)
        self.last_key = key if (not eager and key in self.graphs) else None
        if self.last_key is None:
            return self.fn(self.eager_views(key, x, rotary))
        views = self.views(key)
        self._stage(key, views, x, rotary)
        out = self.graphs[key].replay()
        assert isinstance(out, torch.Tensor)
        return out


def _rows(plan: VitPlan, key: VitKey) -> int:
    return max((b.rows for b in plan.key_buffers(key)), default=0)


def toy_tower(hidden: int, seed: int = 0) -> VitFn:
    """A small tower over the views: rotary-scaled rows, mixed within each window (Qwen2.5)
    and each sequence of `cu_seqlens` (the attention's reach), passed through the attention
    workspace `block_ws` and projected -- it reads every buffer, with ops a graph can hold."""
    gen = torch.Generator().manual_seed(seed)
    weight = torch.randn(hidden, 8, generator=gen)
    placed: dict[torch.device, torch.Tensor] = {}  # one copy per device, made at warm-up: a
    # host-to-device copy inside a CUDA graph capture is not allowed

    def fn(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = views["block_input"].reshape(-1, hidden).float()
        if "rotary_cos" in views:
            x = x * views["rotary_cos"][:, :1].float() + views["rotary_sin"][:, :1].float()
        for name in ("cu_window_seqlens", "cu_seqlens"):  # windowed blocks, then full ones
            if name in views:
                x = x + _segment_sums(x, views[name])
        ws = views["block_ws"].reshape(x.shape[0], -1)  # the attention's output workspace
        width = min(ws.shape[1], hidden)
        ws[:, :width].copy_(x[:, :width])
        x = torch.cat([ws[:, :width].float(), x[:, width:]], dim=1)
        if x.device not in placed:
            placed[x.device] = weight.to(x.device)
        return x @ placed[x.device]

    return fn


def _segment_sums(x: torch.Tensor, cu: torch.Tensor) -> torch.Tensor:
    """Each row's sum over its sequence of `cu` boundaries (attention's reach).

    Differences of one running sum, not a scatter-add: CUDA's index_add_ adds in atomic,
    run-dependent order, so a replay would differ from eager in the last bits (seen on an
    H200); a scan is deterministic on every device."""
    cu = cu.long()
    rows = torch.arange(x.shape[0], device=x.device)
    seg = torch.searchsorted(cu[1:], rows, right=True)
    ends = torch.cat([cu, cu.new_full((1,), x.shape[0])])  # rows past the last boundary: one
    total = torch.cat([x.new_zeros(1, x.shape[1]), x.cumsum(0)])  # more segment to the end
    return total[ends[seg + 1].clamp(max=x.shape[0])] - total[ends[seg].clamp(max=x.shape[0])]


@dataclass(frozen=True)
class VitRehearsal:
    graphs: int
    replayed: int
    mismatches: tuple[VitKey, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.replayed == self.graphs


def rehearse_vit(plan: VitPlan, *, backend: str | Backend = "cpu", device: str = "cpu",
                 seed: int = 0, capacities: Mapping[str, int] | None = None) -> VitRehearsal:
    """Capture every planned key over the plan's buffers with `toy_tower`, replay one call
    per key (the plan's own probe call) and compare with the eager run of the same call."""
    g = plan.geometry
    runner = VitGraphRunner(toy_tower(g.hidden_size, seed), plan, backend=backend,
                            device=device, capacities=capacities)
    runner.capture()
    gen = torch.Generator().manual_seed(seed + 1)
    dtype = _DTYPES[g.dtype]
    bad: list[VitKey] = []
    replayed = 0
    for key, call in zip(plan.keys, plan.calls, strict=True):
        rows = runner.views(key)["block_input"].numel() // g.hidden_size
        x = torch.randn(rows, g.hidden_size, generator=gen).to(dtype).to(device)
        rotary = None
        if g.family in ("qwen2_5_vl", "qwen3_vl"):
            rotary = (torch.randn(rows, g.rotary_width, generator=gen).to(dtype).to(device),
                      torch.randn(rows, g.rotary_width, generator=gen).to(dtype).to(device))
        want = runner.step(x, call, rotary=rotary, eager=True)
        got = runner.step(x, call, rotary=rotary)
        if runner.last_key != key or not torch.equal(got, want):
            bad.append(key)
        replayed += runner.last_key == key
    return VitRehearsal(len(runner.graphs), replayed, tuple(bad))


def plan_capacities(p: Plan, vit: VitPlan, component: str = "vit") -> dict[str, int]:
    """The rows of the static buffers `p` sized for its keyed component `component` (the
    SGLang ViT graphs), after checking it plans exactly `vit`'s keys and buffer shapes (the
    runtime allocates what the plan says, and never re-derives it)."""
    comp = p.keyed.get(component)
    if comp is None:
        raise ConfigError(f"vit: the plan has no keyed component {component!r}")
    if set(comp.graph_keys) != set(vit.keys):
        raise ConfigError(f"vit: the plan's {component} keys are not the ViT plan's")
    shapes = {b.name: (b.rows, *b.row_shape) for b in vit.buffers}
    out: dict[str, int] = {}
    for b in comp.buffers:
        if b.name not in shapes or tuple(b.shape[1:]) != shapes[b.name][1:]:
            raise ConfigError(f"vit: buffer {b.name} of shape {b.shape} is not one the ViT "
                              f"plan's graphs read")
        out[b.name] = b.capacity
    if set(out) != set(shapes):
        raise ConfigError(f"vit: the plan's {component} buffers are not the ViT plan's")
    return out


def rehearsable(p: Plan) -> bool:
    """Whether `p` plans a `vit` component this runtime rehearses: keys and buffers, and a
    tower whose graphs run blocks over staged inputs (not Kimi K3's whole-tower graphs)."""
    comp = p.keyed.get("vit")
    if comp is None or not comp.buffers or not comp.graph_keys:
        return False
    vit = vit_plan_of(p.config)
    return vit is not None and vit.geometry.family != "kimi_k3"


def rehearse_plan(p: Plan, *, backend: str | Backend = "cpu", device: str = "cpu",
                  seed: int = 0) -> VitRehearsal | None:
    """`rehearse_vit` of a plan's `vit` keyed component, over the static buffers the plan
    sized for it (None when the plan has none)."""
    vit = vit_plan_of(p.config)
    if vit is None or "vit" not in p.keyed:
        return None
    return rehearse_vit(vit, backend=backend, device=device, seed=seed,
                        capacities=plan_capacities(p, vit))


__all__ = ["VitGraphRunner", "VitRehearsal", "plan_capacities", "rehearsable",
           "rehearse_plan", "rehearse_vit", "toy_tower"]
