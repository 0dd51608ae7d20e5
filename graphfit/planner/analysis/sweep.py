"""Sweeps: plan and verify every config of a grid (max_num_seqs x num_speculative_tokens).

Each point is planned and exhaustively verified (`Plan.verify`) against graphfit's own
capacities or against capacity formulas ("drafter.positions=S*q"), so a sweep finds every
config where an engine's sizing goes short. The proof walks reachable batches by intervals
(a family whose peak fits a buffer is cleared at once), so a point costs about as much as its
plan. Points are independent, so they run in worker processes in chunks; a result keeps only
the point's figures and counterexample ranges, never its plan, so a sweep of any size stays
small in memory.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping
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
_SPEC_ONLY = ("speculative_eagle_topk", "speculative_num_draft_tokens")


def point_config(base: Mapping[str, Any], point: Mapping[str, int]) -> EngineConfig:
    """The config of one grid point; k = 0 means no speculation (method and SGLang's spec
    fields are dropped for it)."""
    values = {**base, **point}
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

    @property
    def failing(self) -> bool:
        return self.ok is False


def _decode_waste(p: Plan) -> float:
    return decode_stats(p).waste_fraction


def check_point(base: Mapping[str, Any], point: Mapping[str, int],
                capacities: Mapping[str, int | str]) -> PointResult:
    """Plan and verify one point (never raises for a bad config: it is reported)."""
    try:
        p = plan(point_config(base, point))
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
    return PointResult(dict(point), result.ok, "", graphs, top, waste, nbytes, result.checked,
                       ranges + fills)


def _chunk(base: Mapping[str, Any], points: list[dict[str, int]],
           capacities: Mapping[str, int | str]) -> list[PointResult]:
    return [check_point(base, point, capacities) for point in points]


@dataclass(frozen=True)
class SweepResult:
    axes: Mapping[str, tuple[int, ...]]
    results: tuple[PointResult, ...]
    seconds: float
    workers: int
    capacities: Mapping[str, int | str] = field(default_factory=dict)
    engine_version: str = ""  # the engine release the points were planned for

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
                        capacities: Mapping[str, int | str]) -> None:
    """Reject a buffer no point of the grid has before sweeping (a typo, usually)."""
    if not capacities:
        return
    known: set[str] = set()
    corners = [{name: values[0] for name, values in axes.items()},
               {name: values[-1] for name, values in axes.items()}]
    for corner in corners:
        try:
            p = plan(point_config(base, corner))
        except GraphfitError:
            continue
        known |= {b.key for comp in p.components.values() for b in comp.buffers}
    for key in capacities:
        if known and key not in known:
            raise ConfigError(f"capacity: no config of the sweep has buffer {key!r} "
                              f"(known: {', '.join(sorted(known))})")


def sweep(base: Mapping[str, Any], axes: Mapping[str, tuple[int, ...]],
          capacities: Mapping[str, int | str] | None = None, *, workers: int | None = None,
          progress: Callable[[int], None] | None = None,
          chunk_size: int = 64) -> SweepResult:
    """Check every point of the grid; `progress(n)` is called as n more points finish."""
    caps = dict(capacities or {})
    if "max_num_seqs" not in base and "max_num_seqs" not in axes:
        raise ConfigError("max_num_seqs: missing (sweep it with --max-num-seqs 1..64)")
    count = grid_size(axes)
    if count > MAX_SWEEP_POINTS:
        shape = " x ".join(f"{len(values):,}" for values in axes.values())
        raise ConfigError(f"sweep: {count:,} configs ({shape}); graphfit sweeps at most "
                          f"{MAX_SWEEP_POINTS:,}")
    validate_capacities(base, axes, caps)
    points = list(grid_points(axes))
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    workers = min(workers, max(1, len(points) // chunk_size))
    start = time.perf_counter()
    results: list[PointResult] = []
    chunks = [points[i:i + chunk_size] for i in range(0, len(points), chunk_size)]
    base_dict = dict(base)
    if workers == 1:
        for chunk in chunks:
            results += _chunk(base_dict, chunk, caps)
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
            futures = {pool.submit(_chunk, base_dict, chunk, caps): i
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
                       version)
