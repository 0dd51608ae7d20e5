"""Batch-size traces from files: CSV and JSON in graphfit's own formats (README, "Traces").

Reading is bounded and strict (graphfit.inputs.reading): a regular UTF-8 file of at most
MAX_TRACE_BYTES, strict JSON, integers as ASCII digits in range, finite weights. Every input
is reduced to the planner's `Trace` (graphfit.planner.tuning.trace); a malformed cell is a
ConfigError naming the file and line, so a bad trace is exit 2 in the CLI, not a silently
skewed ladder.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import (
    is_int_text,
    parse_float,
    parse_int,
    parse_json,
    read_text,
    shown_path,
)
from graphfit.planner.core.errors import ConfigError, excerpt, listed
from graphfit.planner.core.limits import MAX_FLOAT, MAX_INT, MAX_INT_DIGITS, MAX_TRACE_BYTES
from graphfit.planner.tuning.trace import Trace, check_size, check_weight

TRACE_SCHEMA = "graphfit.trace/1"
WEIGHT_COLUMNS = ("count", "weight")


def _cell_int(where: str, cell: str) -> int:
    if cell.isdigit() and cell.isascii() and len(cell) < MAX_INT_DIGITS and cell[0] != "0":
        return int(cell)  # the common case: plain ASCII digits, in range by their length
    try:
        return check_size(where, parse_int(where, cell, minimum=1))
    except ConfigError:
        raise ConfigError(f"{where}: num_tokens {excerpt(cell)} is not a positive integer "
                          f"(at most {MAX_INT})") from None


def _cell_weight(where: str, cell: str) -> float:
    if cell.isdigit() and cell.isascii() and len(cell) < MAX_INT_DIGITS:
        return int(cell)
    if is_int_text(cell):
        return check_weight(where, parse_int(f"{where}: weight", cell))
    try:
        return check_weight(where, parse_float(where, cell))
    except ConfigError:
        raise ConfigError(f"{where}: weight {excerpt(cell)} is not a number (finite, >= 0, "
                          f"at most {MAX_FLOAT:g})") from None


def _is_number(cell: str) -> bool:
    try:
        parse_float("", cell, minimum=-MAX_FLOAT)
    except ConfigError:
        return False
    return True


def parse_csv_trace(text: str, source: str = "trace") -> Trace:
    """CSV: a `num_tokens` column (header needed when there are other columns) and an
    optional `count`/`weight` column; headerless files are `n` or `n,count` rows.

    Blank lines and lines starting with '#' are skipped.
    """
    where = f"trace {source}"
    rows = _rows(where, text)  # streamed: a large trace is never held as a list of rows
    first_line, first = next(rows, (0, []))
    if not first:
        raise ConfigError(f"{where}: the CSV has no rows")
    if all(_is_number(c) for c in first):
        n_col, w_col = 0, (1 if len(first) == 2 else None)
        if len(first) > 2:
            raise ConfigError(f"{where}: line {first_line}: {len(first)} columns without "
                              "a header; add one naming num_tokens (and count or weight)")
        body: Iterator[tuple[int, list[str]]] = itertools.chain([(first_line, first)], rows)
    else:
        header = [c.strip().lower() for c in first]
        if "num_tokens" not in header:
            raise ConfigError(f"{where}: line {first_line}: the header has no num_tokens "
                              f"column (got {listed(header)})")
        n_col = header.index("num_tokens")
        present = [c for c in WEIGHT_COLUMNS if c in header]
        if len(present) > 1:
            raise ConfigError(f"{where}: both count and weight columns; keep one")
        w_col = header.index(present[0]) if present else None
        body = rows
    weights: dict[int, float] = {}
    needed = max(n_col, w_col or 0) + 1
    for line, row in body:
        if len(row) < needed:
            raise ConfigError(f"{where}: line {line}: expected {needed} columns, got "
                              f"{len(row)}")
        at = f"{where}: line {line}"
        n = _cell_int(at, row[n_col])
        w = _cell_weight(at, row[w_col]) if w_col is not None else 1
        total = weights.get(n, 0) + w
        weights[n] = total if total <= MAX_INT else check_weight(at, total)
    if not weights:
        raise ConfigError(f"{where}: the CSV has a header but no rows")
    return Trace.from_weights(weights, source)


def _rows(where: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every row that is not blank or a # comment."""
    try:
        for i, row in enumerate(csv.reader(io.StringIO(text)), start=1):
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#"):
                yield i, row
    except csv.Error as exc:
        raise ConfigError(f"{where}: malformed CSV ({exc})") from None


def _json_pairs(where: str, value: object) -> dict[int, float]:
    """A distribution as {"n": w}, [[n, w], ...] or [{"num_tokens": n, "count": w}, ...]."""
    out: dict[int, float] = {}

    def add(n: object, w: object) -> None:
        size = check_size(where, n)
        out[size] = check_weight(where, out.get(size, 0) + check_weight(where, w))

    if isinstance(value, dict):
        for key, w in value.items():
            if not is_int_text(key):
                raise ConfigError(f"{where}: key {excerpt(key)} is not an integer num_tokens")
            add(parse_int(where, key, minimum=1), w)
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
                raise ConfigError(f"{where}: entry {excerpt(item)} has unexpected keys")
            add(item["num_tokens"], item[weight_keys[0]] if weight_keys else 1)
        else:
            raise ConfigError(f"{where}: entry {excerpt(item)} is not [n, weight] or "
                              "{\"num_tokens\": n, \"count\": w}")
    return out


def trace_from_data(doc: Any, source: str = "trace") -> Trace:
    """A trace from parsed JSON: a list of num_tokens samples; {"num_tokens": [...]}; a list
    of {"num_tokens", "count"} entries; or {"distribution": {"n": weight} or [[n, w], ...]}.

    An object may carry "schema": "graphfit.trace/1" (any other schema is refused) and free
    "notes"/"source" strings; other keys are refused, so a typo cannot empty the trace.
    """
    where = f"trace {source}"
    if isinstance(doc, list):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in doc):
            return Trace.from_samples(doc, source)
        return Trace.from_weights(_json_pairs(where, doc), source)
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a JSON list or object")
    schema = doc.get("schema", TRACE_SCHEMA)
    if schema != TRACE_SCHEMA:
        raise ConfigError(f"{where}: schema must be {TRACE_SCHEMA!r}, got {excerpt(schema)}")
    unknown = sorted(set(doc) - {"schema", "notes", "source", "num_tokens", "distribution"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {listed(map(repr, unknown))}")
    keys = [k for k in ("num_tokens", "distribution") if k in doc]
    if len(keys) != 1:
        raise ConfigError(f"{where}: needs exactly one of num_tokens (samples) or distribution")
    if keys[0] == "num_tokens":
        samples = doc["num_tokens"]
        if not isinstance(samples, list):
            raise ConfigError(f"{where}: num_tokens must be a list of integers")
        return Trace.from_samples(samples, source)
    return Trace.from_weights(_json_pairs(where, doc["distribution"]), source)


def parse_json_trace(text: str, source: str = "trace") -> Trace:
    """JSON text (strict: graphfit.inputs.reading) -> a trace (see `trace_from_data`)."""
    return trace_from_data(parse_json(text, f"trace {source}"), source)


def load_trace(path: str | Path) -> Trace:
    """Read a .csv or .json trace (other suffixes: JSON if it starts like JSON, else CSV)."""
    p = Path(path)
    text = read_text(p, "trace", limit=MAX_TRACE_BYTES)
    name = shown_path(p.name)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return parse_json_trace(text, name)
    if suffix == ".csv":
        return parse_csv_trace(text, name)
    if text.lstrip().startswith(("[", "{")):
        return parse_json_trace(text, name)
    return parse_csv_trace(text, name)
