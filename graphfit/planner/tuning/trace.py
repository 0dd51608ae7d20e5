"""Batch-size traces: the empirical distribution of num_tokens per engine step.

The optimiser only needs "how often does a step carry n tokens", so every input format (a CSV
log, a JSON list of samples, a JSON distribution) is reduced to one `Trace`: distinct sizes
with positive weights. Loading never guesses: a malformed cell is a ConfigError naming the
file and line, so a bad trace is exit 2 in the CLI, not a silently skewed ladder.
"""

from __future__ import annotations

import csv
import io
import json
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from graphfit.planner.core.errors import ConfigError

TRACE_SCHEMA = "graphfit.trace/1"
WEIGHT_COLUMNS = ("count", "weight")


@dataclass(frozen=True)
class Trace:
    """Distinct batch sizes (ascending, >= 1) and their weights (> 0; counts or probabilities).

    Integer weights stay integers, so costs computed from a sampled trace are exact.
    """

    sizes: tuple[int, ...]
    weights: tuple[float, ...]
    source: str = "trace"

    def __post_init__(self) -> None:
        where = f"trace {self.source}"
        if not self.sizes:
            raise ConfigError(f"{where}: no batch sizes with a positive weight")
        if len(self.sizes) != len(self.weights):
            raise ConfigError(f"{where}: {len(self.sizes)} sizes but {len(self.weights)} weights")
        for n in self.sizes:
            _check_size(where, n)
        if any(a >= b for a, b in pairwise(self.sizes)):
            raise ConfigError(f"{where}: sizes must be ascending and distinct")
        for w in self.weights:
            _check_weight(where, w)
            if w == 0:
                raise ConfigError(f"{where}: weights must be > 0 (drop zero-weight sizes)")

    @classmethod
    def from_samples(cls, samples: Iterable[int], source: str = "trace") -> Trace:
        """One entry per engine step: the step's num_tokens."""
        where = f"trace {source}"
        counts: Counter[int] = Counter()
        for n in samples:
            counts[_check_size(where, n)] += 1
        return cls._from_counts(counts, source)

    @classmethod
    def from_weights(cls, weights: Mapping[int, float], source: str = "trace") -> Trace:
        """A distribution: num_tokens -> weight (a count or a probability; zeros dropped)."""
        where = f"trace {source}"
        checked: dict[int, float] = {}
        for n, w in weights.items():
            checked[_check_size(where, n)] = _check_weight(where, w)
        return cls._from_counts(checked, source)

    @classmethod
    def _from_counts(cls, counts: Mapping[int, float], source: str) -> Trace:
        items = sorted((n, w) for n, w in counts.items() if w > 0)
        return cls(tuple(n for n, _ in items), tuple(w for _, w in items), source)

    @property
    def total_weight(self) -> float:
        return sum(self.weights)

    @property
    def max_size(self) -> int:
        return self.sizes[-1]

    @property
    def mean(self) -> float:
        """Expected num_tokens of a step."""
        return sum(n * w for n, w in zip(self.sizes, self.weights)) / self.total_weight

    def weight_above(self, limit: int) -> float:
        """Total weight of steps with more than `limit` tokens (they run eagerly)."""
        return sum(self.weights[bisect_right(self.sizes, limit):])

    def describe(self) -> str:
        total = self.total_weight
        steps = f"{total:,} steps" if isinstance(total, int) else f"total weight {total:g}"
        return (f"{self.source}: {steps}, {len(self.sizes):,} distinct sizes, "
                f"mean {self.mean:.1f}, max {self.max_size}")


def _check_size(where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}: num_tokens must be a positive integer, got {value!r}")
    return value


def _check_weight(where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: a weight must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{where}: a weight must be finite and >= 0, got {value!r}")
    return value


def _cell_int(where: str, cell: str) -> int:
    try:
        return _check_size(where, int(cell.strip()))
    except ValueError:
        raise ConfigError(f"{where}: num_tokens {cell!r} is not a positive integer") from None


def _cell_weight(where: str, cell: str) -> float:
    text = cell.strip()
    try:
        value: float = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{where}: weight {cell!r} is not a number") from None
    return _check_weight(where, value)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def parse_csv_trace(text: str, source: str = "trace") -> Trace:
    """CSV: a `num_tokens` column (header needed when there are other columns) and an
    optional `count`/`weight` column; headerless files are `n` or `n,count` rows.

    Blank lines and lines starting with '#' are skipped.
    """
    rows = [(i, row) for i, row in enumerate(csv.reader(io.StringIO(text)), start=1)
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")]
    if not rows:
        raise ConfigError(f"trace {source}: the CSV has no rows")
    first_line, first = rows[0]
    if all(_is_number(c) for c in first):
        header = None
        n_col, w_col = 0, (1 if len(first) == 2 else None)
        if len(first) > 2:
            raise ConfigError(f"trace {source}: line {first_line}: {len(first)} columns without "
                              "a header; add one naming num_tokens (and count or weight)")
        body = rows
    else:
        header = [c.strip().lower() for c in first]
        if "num_tokens" not in header:
            raise ConfigError(f"trace {source}: line {first_line}: the header has no "
                              f"num_tokens column (got {', '.join(map(repr, header))})")
        n_col = header.index("num_tokens")
        present = [c for c in WEIGHT_COLUMNS if c in header]
        if len(present) > 1:
            raise ConfigError(f"trace {source}: both count and weight columns; keep one")
        w_col = header.index(present[0]) if present else None
        body = rows[1:]
    weights: dict[int, float] = {}
    for line, row in body:
        where = f"trace {source}: line {line}"
        needed = max(n_col, w_col or 0) + 1
        if len(row) < needed:
            raise ConfigError(f"{where}: expected {needed} columns, got {len(row)}")
        n = _cell_int(where, row[n_col])
        w = _cell_weight(where, row[w_col]) if w_col is not None else 1
        weights[n] = weights.get(n, 0) + w
    if not body:
        raise ConfigError(f"trace {source}: the CSV has a header but no rows")
    return Trace.from_weights(weights, source)


def _json_pairs(where: str, value: object) -> dict[int, float]:
    """A distribution as {"n": w}, [[n, w], ...] or [{"num_tokens": n, "count": w}, ...]."""
    out: dict[int, float] = {}

    def add(n: object, w: object) -> None:
        size = _check_size(where, n)
        out[size] = out.get(size, 0) + _check_weight(where, w)

    if isinstance(value, dict):
        for key, w in value.items():
            try:
                n = int(key)
            except ValueError:
                raise ConfigError(f"{where}: key {key!r} is not an integer num_tokens") from None
            add(n, w)
        return out
    if not isinstance(value, list):
        raise ConfigError(f"{where}: a distribution is an object or a list of pairs")
    for item in value:
        if isinstance(item, list) and len(item) == 2:
            add(item[0], item[1])
        elif isinstance(item, dict) and "num_tokens" in item:
            weight_keys = [k for k in WEIGHT_COLUMNS if k in item]
            extra = sorted(set(item) - {"num_tokens", *WEIGHT_COLUMNS})
            if extra or len(weight_keys) > 1:
                raise ConfigError(f"{where}: entry {item!r} has unexpected keys")
            add(item["num_tokens"], item[weight_keys[0]] if weight_keys else 1)
        else:
            raise ConfigError(f"{where}: entry {item!r} is not [n, weight] or "
                              "{\"num_tokens\": n, \"count\": w}")
    return out


def parse_json_trace(text: str, source: str = "trace") -> Trace:
    """JSON: a list of num_tokens samples; {"num_tokens": [...]}; a list of
    {"num_tokens", "count"} entries; or {"distribution": {"n": weight} or [[n, w], ...]}.

    An object may carry "schema": "graphfit.trace/1" (any other schema is refused) and free
    "notes"/"source" strings; other keys are refused, so a typo cannot empty the trace.
    """
    where = f"trace {source}"
    try:
        doc: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: malformed JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(doc, list):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in doc):
            return Trace.from_samples(doc, source)
        return Trace.from_weights(_json_pairs(where, doc), source)
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a JSON list or object")
    schema = doc.get("schema", TRACE_SCHEMA)
    if schema != TRACE_SCHEMA:
        raise ConfigError(f"{where}: schema must be {TRACE_SCHEMA!r}, got {schema!r}")
    unknown = sorted(set(doc) - {"schema", "notes", "source", "num_tokens", "distribution"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    keys = [k for k in ("num_tokens", "distribution") if k in doc]
    if len(keys) != 1:
        raise ConfigError(f"{where}: needs exactly one of num_tokens (samples) or distribution")
    if keys[0] == "num_tokens":
        samples = doc["num_tokens"]
        if not isinstance(samples, list):
            raise ConfigError(f"{where}: num_tokens must be a list of integers")
        return Trace.from_samples(samples, source)
    return Trace.from_weights(_json_pairs(where, doc["distribution"]), source)


def load_trace(path: str | Path) -> Trace:
    """Read a .csv or .json trace (other suffixes: JSON if it parses as JSON, else CSV)."""
    p = Path(path)
    try:
        text = p.read_text()
    except UnicodeDecodeError:
        raise ConfigError(f"trace {p.name}: not a text file") from None
    suffix = p.suffix.lower()
    if suffix == ".json":
        return parse_json_trace(text, p.name)
    if suffix == ".csv":
        return parse_csv_trace(text, p.name)
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        return parse_json_trace(text, p.name)
    return parse_csv_trace(text, p.name)
