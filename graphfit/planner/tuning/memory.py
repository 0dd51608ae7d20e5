"""Graph memory: how many bytes a capture ladder costs, and how many graphs a budget allows.

Engines capture every size into one shared memory pool, largest first, so smaller graphs
reuse the largest graph's activation blocks. The pool therefore grows with the *largest*
size, and each extra graph adds only its own fixed cost (graph object, kernel parameters,
per-graph workspace):

    graph_bytes(L) = pool_base_bytes + bytes_per_captured_token * max(L)
                     + per_graph_overhead_bytes * len(L)

The coefficients are model- and GPU-specific, so graphfit does not guess them: they come from
a profile measured on the GPU (`examples/gpu_check.py` writes one, schema
graphfit.graph-profile/1) or from the CLI. A profile may give the coefficients directly or
only the measured samples (ladders and the pool bytes each reserved); `fit_memory_model`
then fits the three coefficients by least squares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_FLOAT, MAX_INT

PROFILE_SCHEMA = "graphfit.graph-profile/1"
MIB = 1024 * 1024


def _number(name: str, value: object, *, positive: bool = False) -> float:
    """A finite number in 0..MAX_FLOAT (> 0 when `positive`): estimates built from such
    numbers never overflow to inf or NaN."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name}: expected a finite number, got {excerpt(value)}")
    if isinstance(value, int) and abs(value) > MAX_INT:
        raise ConfigError(f"{name}: must be <= {MAX_FLOAT:g}, got {excerpt(value)}")
    if not math.isfinite(value):
        raise ConfigError(f"{name}: expected a finite number, got {excerpt(value)}")
    if value < 0 or (positive and value == 0):
        raise ConfigError(f"{name}: must be {'> 0' if positive else '>= 0'}, got "
                          f"{excerpt(value)}")
    if value > MAX_FLOAT:
        raise ConfigError(f"{name}: must be <= {MAX_FLOAT:g}, got {excerpt(value)}")
    return float(value)


@dataclass(frozen=True)
class GraphMemoryModel:
    """Pool bytes as a function of a ladder (see the module docstring)."""

    bytes_per_captured_token: float
    per_graph_overhead_bytes: float = 0.0
    pool_base_bytes: float = 0.0
    device: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "bytes_per_captured_token",
             _number("bytes_per_captured_token", self.bytes_per_captured_token))
        set_(self, "per_graph_overhead_bytes",
             _number("per_graph_overhead_bytes", self.per_graph_overhead_bytes))
        set_(self, "pool_base_bytes", _number("pool_base_bytes", self.pool_base_bytes))
        if self.bytes_per_captured_token == 0 and self.per_graph_overhead_bytes == 0:
            raise ConfigError("graph memory: bytes_per_captured_token and "
                              "per_graph_overhead_bytes are both 0; nothing to budget")

    def pool_bytes(self, max_size: int) -> float:
        """The shared pool, set by the largest graph."""
        return self.pool_base_bytes + self.bytes_per_captured_token * max_size

    def ladder_bytes(self, sizes: Sequence[int]) -> float:
        """Estimated graph memory of capturing every size in `sizes`."""
        if not sizes:
            return 0.0
        return self.pool_bytes(max(sizes)) + self.per_graph_overhead_bytes * len(sizes)

    def max_graphs(self, max_size: int, budget_bytes: float) -> int:
        """The most graphs, the largest being `max_size`, whose estimate fits the budget.

        Raises ConfigError when not even the largest graph fits: capacity safety needs it.
        """
        budget = _number("budget", budget_bytes, positive=True)
        spare = budget - self.pool_bytes(max_size)
        one = self.per_graph_overhead_bytes
        if spare < one:
            raise ConfigError(
                f"budget: {budget / MIB:.1f} MiB cannot hold even the largest graph "
                f"(size {max_size} needs {(self.pool_bytes(max_size) + one) / MIB:.1f} MiB); "
                "raise --budget-mib or lower --max-cudagraph-capture-size")
        if one == 0:
            return max_size  # graphs are free beyond the pool: every size fits
        return min(int(spare // one), max_size)


# vLLM 0.34's floor on the per-graph cost of the FULL graphs it does not sample
# (`_MIN_PER_GRAPH_BYTES`, v1/worker/gpu/cudagraph_utils.py:985)
MIN_PER_GRAPH_BYTES = 1 << 20


def startup_reservation(model: GraphMemoryModel, piecewise: Sequence[int],
                        full: Sequence[int]) -> float:
    """The graph memory vLLM 0.34 reserves at start-up (`profile_cudagraph_memory`,
    v1/worker/gpu/cudagraph_utils.py:989-1096), under `model`: it captures every PIECEWISE
    graph (measured in full), then only the two largest FULL graphs (`full`: one token count
    per FULL graph, largest first as captured) into the same pool, and extrapolates the FULL
    total as first + (n - 1) x max(second, 1 MiB) (`_extrapolate_full_graph_memory`,
    :1098-1107). A FULL graph no wider than the widest PIECEWISE one reuses its pool."""
    measured = model.ladder_bytes(piecewise)
    if not full:
        return measured
    widest = max(piecewise, default=0)
    first = (max(model.pool_bytes(max(full)) - (model.pool_bytes(widest) if piecewise else 0.0),
                 0.0) + model.per_graph_overhead_bytes)
    per_graph = max(model.per_graph_overhead_bytes, MIN_PER_GRAPH_BYTES) if len(full) > 1 else 0
    return measured + first + (len(full) - 1) * per_graph


@dataclass(frozen=True)
class ProfileSample:
    """One measurement: the ladder captured and the pool bytes it reserved."""

    sizes: tuple[int, ...]
    pool_bytes: float

    def __post_init__(self) -> None:
        if not self.sizes or any(isinstance(s, bool) or not isinstance(s, int) or s < 1
                                 or s > MAX_INT for s in self.sizes):
            raise ConfigError(f"profile: sample sizes must be positive integers (at most "
                              f"{MAX_INT}), got {excerpt(list(self.sizes))}")
        object.__setattr__(self, "pool_bytes", _number("profile: pool_bytes", self.pool_bytes))


def fit_memory_model(samples: Sequence[ProfileSample], device: str = "") -> GraphMemoryModel:
    """Least-squares fit of (base, per token of the max, per graph) to measured samples.

    Needs samples that vary both the largest size and the graph count; negative fitted
    coefficients are clamped to 0 and the rest refitted (memory never shrinks with size).
    """
    rows = [(1.0, float(max(s.sizes)), float(len(s.sizes)), s.pool_bytes) for s in samples]
    active = [0, 1, 2]
    while active:
        coef = _least_squares(rows, active)
        if coef is None:
            raise ConfigError(
                "profile: the samples cannot separate per-token from per-graph cost; measure "
                "ladders with different largest sizes and different graph counts")
        negative = [i for i, v in zip(active, coef) if v < 0]
        if not negative:
            full = [0.0, 0.0, 0.0]
            for i, v in zip(active, coef):
                full[i] = v
            return GraphMemoryModel(full[1], full[2], full[0], device)
        active = [i for i in active if i not in negative]
    raise ConfigError("profile: the samples fit no non-negative memory model")


def _least_squares(rows: list[tuple[float, float, float, float]],
                   active: list[int]) -> list[float] | None:
    """Solve the normal equations on the `active` columns; None when singular."""
    n = len(active)
    M = [[sum(r[a] * r[b] for r in rows) for b in active]
         + [sum(r[a] * r[3] for r in rows)] for a in active]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(M[r][col]))
        scale = max(abs(M[r][col]) for r in range(n)) or 1.0
        if abs(M[pivot][col]) <= 1e-9 * scale:
            return None
        M[col], M[pivot] = M[pivot], M[col]
        for r in range(n):
            if r != col:
                factor = M[r][col] / M[col][col]
                M[r] = [x - factor * y for x, y in zip(M[r], M[col])]
    return [M[i][n] / M[i][i] for i in range(n)]


def profile_from_data(doc: Any, source: str = "profile") -> GraphMemoryModel:
    """A parsed graphfit.graph-profile/1 document -> a model (coefficients given or fitted).

    Reading the file (bounded, strict JSON) is the inputs layer's job:
    graphfit.inputs.profiles.load_profile.
    """
    where = f"profile {source}"
    if not isinstance(doc, dict) or doc.get("schema") != PROFILE_SCHEMA:
        raise ConfigError(f"{where}: schema must be {PROFILE_SCHEMA!r}")
    known = {"schema", "device", "model", "dtype", "bytes_per_captured_token",
             "per_graph_overhead_bytes", "pool_base_bytes", "samples", "torch", "notes"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {listed(map(repr, unknown))}")
    device = doc.get("device", "")
    if not isinstance(device, str):
        raise ConfigError(f"{where}: device must be a string")
    raw_samples = doc.get("samples", [])
    if not isinstance(raw_samples, list):
        raise ConfigError(f"{where}: samples must be a list")
    samples = []
    for item in raw_samples:
        if not isinstance(item, dict) or set(item) != {"sizes", "pool_bytes"} \
                or not isinstance(item["sizes"], list):
            raise ConfigError(f"{where}: each sample is {{\"sizes\": [...], \"pool_bytes\": N}}")
        samples.append(ProfileSample(tuple(item["sizes"]), item["pool_bytes"]))
    if "bytes_per_captured_token" in doc:
        return GraphMemoryModel(doc["bytes_per_captured_token"],
                                doc.get("per_graph_overhead_bytes", 0.0),
                                doc.get("pool_base_bytes", 0.0), device)
    if not samples:
        raise ConfigError(f"{where}: needs bytes_per_captured_token or measured samples")
    return fit_memory_model(samples, device)
