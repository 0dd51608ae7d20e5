"""Sweeps: plan and verify every config of a grid (max_num_seqs x num_speculative_tokens).

Each point is planned and exhaustively verified (`Plan.verify`) against graphfit's own
capacities or against capacity formulas ("drafter.positions=S*q"), so a sweep finds every
config where an engine's sizing goes short. The proof walks reachable batches by intervals
(a family whose peak fits a buffer is cleared at once), so a point costs about as much as its
plan. Points are independent, so they run in worker processes in chunks; a result keeps only
the point's figures and counterexample ranges, never its plan, so a sweep of any size stays
small in memory.

SGLang's vision-encoder graphs (the keyed component `vit`) vary with the image workload, not
with the batch axes: two more axes sweep it, `vit_images` (an index into the sweep's
`vit_workloads`, each a set of (t, h, w) grids) and `vit_max_images` (images per encoder
call). A point with either rewrites the base config's SGLang option `vit` (its tower stays)
and reports the component's keys and bytes beside SGLang's own per-key bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from graphfit.planner.analysis.capexpr import capacities_for
from graphfit.planner.analysis.summary import decode_stats
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError, GraphfitError
from graphfit.planner.core.limits import MAX_SWEEP_POINTS
from graphfit.planner.engines.registry import add_models, engine_model, runtime_models
from graphfit.planner.plan import Plan, plan

AXES = ("max_num_seqs", "num_speculative_tokens")
VIT_AXES = ("vit_images", "vit_max_images")  # the ViT workload's axes (module docstring)
_SPEC_ONLY = ("speculative_eagle_topk", "speculative_num_draft_tokens")
Grids = tuple[tuple[int, int, int], ...]  # one ViT image set: (t, h, w) grids in patches


def vit_values(base: Mapping[str, Any], point: Mapping[str, int],
               vit_workloads: Sequence[Grids]) -> dict[str, Any]:
    """The base's SGLang option `vit` with the point's image set and images per call (the
    base's own where the point has no ViT axis); ConfigError for a ViT axis without a base
    `vit` or an image-set index out of range."""
    if not any(name in point for name in VIT_AXES):
        return {}
    option = base.get("vit", (base.get("options") or {}).get("vit"))
    if option is None:
        raise ConfigError("sweep: the ViT axes need the base's vit option (--vit-images with "
                          "a pasted SGLang line)")
    pairs = dict(option.items() if isinstance(option, Mapping) else
                 ((p[0], p[1]) for p in option))
    if "vit_images" in point:
        index = point["vit_images"]
        if not 0 <= index < len(vit_workloads):
            raise ConfigError(f"sweep: vit_images {index}: no such image set (0.."
                              f"{len(vit_workloads) - 1})")
        pairs["images"] = tuple(vit_workloads[index])
    if "vit_max_images" in point:
        pairs["max_images"] = point["vit_max_images"]
    return {"vit": tuple(pairs.items())}


def point_config(base: Mapping[str, Any], point: Mapping[str, int],
                 vit_workloads: Sequence[Grids] = ()) -> EngineConfig:
    """The config of one grid point; k = 0 means no speculation (method and SGLang's spec
    fields are dropped for it); the ViT axes rewrite the option `vit` (`vit_values`)."""
    vit = vit_values(base, point, vit_workloads)
    values = {**base, **{k: v for k, v in point.items() if k not in VIT_AXES}, **vit}
    if vit and isinstance(values.get("options"), Mapping):
        values["options"] = {k: v for k, v in values["options"].items() if k != "vit"}
    if values.get("num_speculative_tokens", 0) == 0:
        values["spec_method"] = "none"
        for name in _SPEC_ONLY:
            values.pop(name, None)
    return EngineConfig.from_dict(values)


@dataclass(frozen=True)
class PointResult:
    """One grid point: verdict, counterexample ranges, ladder and waste figures."""

    point: Mapping[str, int]
    ok: bool | None  # None: the config itself is invalid (the engine rejects it)
    error: str = ""
    graphs: int = 0
    max_capture: int = 0
    decode_waste: float = 0.0  # padded / computed tokens over decodes of 1..S requests
    total_bytes: int = 0
    checked: int = 0
    ranges: tuple[dict[str, Any], ...] = ()
    # the keyed component `vit` (SGLang's ViT graphs), when the config plans one: its
    # captured keys, graphfit's bytes, SGLang's own bytes for those keys
    vit_keys: int = 0
    vit_bytes: int = 0
    vit_reference_bytes: int = 0

    @property
    def failing(self) -> bool:
        return self.ok is False


def _decode_waste(p: Plan) -> float:
    return decode_stats(p).waste_fraction


def check_point(base: Mapping[str, Any], point: Mapping[str, int],
                capacities: Mapping[str, int | str],
                vit_workloads: Sequence[Grids] = ()) -> PointResult:
    """Plan and verify one point (never raises for a bad config: it is reported)."""
    try:
        p = plan(point_config(base, point, vit_workloads))
        caps = capacities_for(p, capacities, skip_missing=True)
    except GraphfitError as exc:
        return PointResult(dict(point), None, str(exc))
    graphs, top = len(p.capture_sizes), p.max_capture_size
    waste, nbytes = round(_decode_waste(p), 6), p.total_bytes
    # an audit compares with every batch the engine's own code runs (its engine rows);
    # without formulas a point proves graphfit's own plan
    result = p.verify(caps) if capacities else p.verify()
    ranges = tuple({"buffer": f"{r.component}.{r.buffer}", "first": r.first, "last": r.last,
                    "padded": r.padded, "needed": r.needed, "capacity": r.capacity,
                    "family": r.family, "scenario": r.scenario}
                   for r in result.ranges())
    fills = tuple({"buffer": v.key, "first": v.first, "last": v.last, "padded": v.padded,
                   "fill": v.fill.value, "scenario": v.scenario}
                  for v in result.fill_ranges)
    vit = p.keyed.get("vit")
    return PointResult(dict(point), result.ok, "", graphs, top, waste, nbytes, result.checked,
                       ranges + fills,
                       *((len(vit.graph_keys), vit.total_bytes, vit.reference_bytes)
                         if vit is not None else ()))


def _chunk(base: Mapping[str, Any], points: list[dict[str, int]],
           capacities: Mapping[str, int | str],
           vit_workloads: Sequence[Grids] = ()) -> list[PointResult]:
    return [check_point(base, point, capacities, vit_workloads) for point in points]


@dataclass(frozen=True)
class SweepResult:
    axes: Mapping[str, tuple[int, ...]]
    results: tuple[PointResult, ...]
    seconds: float
    workers: int
    capacities: Mapping[str, int | str] = field(default_factory=dict)
    engine_version: str = ""  # the engine release the points were planned for
    vit_workloads: tuple[Grids, ...] = ()  # the image sets axis `vit_images` indexes

    def vit_label(self, point: Mapping[str, int]) -> str:
        """A point's ViT workload as text: "1x32x32,1x64x64 (<= 2 per call)" ("" without
        ViT axes)."""
        if not any(name in point for name in VIT_AXES):
            return ""
        images = ""
        if "vit_images" in point:
            images = ",".join("x".join(map(str, g))
                              for g in self.vit_workloads[point["vit_images"]])
        per_call = (f"<= {point['vit_max_images']} per call" if "vit_max_images" in point
                    else "")
        return " ".join(p for p in (images, f"({per_call})" if images and per_call
                                    else per_call) if p)

    @property
    def failing(self) -> tuple[PointResult, ...]:
        return tuple(r for r in self.results if r.ok is False)

    @property
    def invalid(self) -> tuple[PointResult, ...]:
        return tuple(r for r in self.results if r.ok is None)

    @property
    def ok(self) -> bool:
        return not self.failing

    @property
    def checked(self) -> int:
        return sum(r.checked for r in self.results)


def vit_points(result: SweepResult) -> list[tuple[str, PointResult]]:
    """One (label, point) per ViT workload of the sweep, in grid order: the first point of
    each workload that planned (the ViT graphs do not depend on the batch axes)."""
    seen: dict[str, PointResult] = {}
    for r in result.results:
        label = result.vit_label(r.point)
        if label and r.ok is not None and label not in seen:
            seen[label] = r
    return list(seen.items())


def grid_points(axes: Mapping[str, tuple[int, ...]]) -> Iterator[dict[str, int]]:
    """Every combination, the first axis outermost."""
    names = list(axes)

    def rec(i: int, point: dict[str, int]) -> Iterator[dict[str, int]]:
        if i == len(names):
            yield dict(point)
            return
        for value in axes[names[i]]:
            point[names[i]] = value
            yield from rec(i + 1, point)

    yield from rec(0, {})


def grid_size(axes: Mapping[str, tuple[int, ...]]) -> int:
    """How many configs the grid holds (the product of its axes), without enumerating it."""
    count = 1
    for values in axes.values():
        count *= len(values)
    return count


def validate_capacities(base: Mapping[str, Any], axes: Mapping[str, tuple[int, ...]],
                        capacities: Mapping[str, int | str],
                        vit_workloads: Sequence[Grids] = ()) -> None:
    """Reject a buffer no point of the grid has before sweeping (a typo, usually)."""
    if not capacities:
        return
    known: set[str] = set()
    corners = [{name: values[0] for name, values in axes.items()},
               {name: values[-1] for name, values in axes.items()}]
    for corner in corners:
        try:
            p = plan(point_config(base, corner, vit_workloads))
        except GraphfitError:
            continue
        known |= {b.key for comp in p.components.values() for b in comp.buffers}
        known |= {b.key for keyed in p.keyed.values() for b in keyed.buffers}
    for key in capacities:
        if known and key not in known:
            raise ConfigError(f"capacity: no config of the sweep has buffer {key!r} "
                              f"(known: {', '.join(sorted(known))})")


def sweep(base: Mapping[str, Any], axes: Mapping[str, tuple[int, ...]],
          capacities: Mapping[str, int | str] | None = None, *, workers: int | None = None,
          progress: Callable[[int], None] | None = None,
          chunk_size: int = 64, vit_workloads: Sequence[Grids] = ()) -> SweepResult:
    """Check every point of the grid; `progress(n)` is called as n more points finish.
    `vit_workloads`: the image sets the axis `vit_images` indexes (module docstring)."""
    caps = dict(capacities or {})
    workloads: tuple[Grids, ...] = tuple(
        tuple((int(t), int(h), int(w)) for t, h, w in grids) for grids in vit_workloads)
    if "vit_images" in axes and any(not 0 <= i < len(workloads) for i in axes["vit_images"]):
        raise ConfigError(f"sweep: vit_images indexes the {len(workloads)} image sets given")
    if "max_num_seqs" not in base and "max_num_seqs" not in axes:
        raise ConfigError("max_num_seqs: missing (sweep it with --max-num-seqs 1..64)")
    count = grid_size(axes)
    if count > MAX_SWEEP_POINTS:
        shape = " x ".join(f"{len(values):,}" for values in axes.values())
        raise ConfigError(f"sweep: {count:,} configs ({shape}); graphfit sweeps at most "
                          f"{MAX_SWEEP_POINTS:,}")
    validate_capacities(base, axes, caps, workloads)
    points = list(grid_points(axes))
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    workers = min(workers, max(1, len(points) // chunk_size))
    start = time.perf_counter()
    results: list[PointResult] = []
    chunks = [points[i:i + chunk_size] for i in range(0, len(points), chunk_size)]
    base_dict = dict(base)
    if workers == 1:
        for chunk in chunks:
            results += _chunk(base_dict, chunk, caps, workloads)
            if progress:
                progress(len(chunk))
    else:
        order: dict[int, list[PointResult]] = {}
        # spawn, not fork: the CLI's progress bar runs a thread, and forking a threaded
        # process can deadlock; workers only need this module
        context = multiprocessing.get_context("spawn")
        # models registered at run time (a described engine from --engine-file) are not
        # in a spawned worker's registry: hand them over
        with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                 initializer=add_models,
                                 initargs=(runtime_models(),)) as pool:
            futures = {pool.submit(_chunk, base_dict, chunk, caps, workloads): i
                       for i, chunk in enumerate(chunks)}
            for future in as_completed(futures):
                order[futures[future]] = future.result()
                if progress:
                    progress(len(order[futures[future]]))
        for i in range(len(chunks)):
            results += order[i]
    if results and all(r.ok is None for r in results):
        # a value invalid for every point is bad input, not a sweep of rejected configs
        raise ConfigError(f"{results[0].error} (every config of the sweep is invalid)")
    try:
        version = engine_model(str(getattr(base.get("engine"), "value",
                                           base.get("engine") or "vllm")),
                               base.get("engine_version")).version
    except ConfigError:
        version = ""
    return SweepResult(dict(axes), tuple(results), time.perf_counter() - start, workers, caps,
                       version, workloads)
