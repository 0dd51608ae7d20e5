"""Batch-size traces from files, the format told by the file's CONTENT (never its name).

Four sources, each reduced to the planner's `Trace` (`graphfit.planner.tuning.trace`):

- **vLLM server log with `--cudagraph-metrics`** (exact). Every logging interval
  (`VLLM_LOG_STATS_INTERVAL`, 10 s) the stat logger logs a `CUDAGraphLogging` table
  (vLLM 0.33 `compilation/cuda_graph.py:40-124`): a "**CUDAGraph Config Settings:**" header
  with `- Mode: <mode>` and `- Capture sizes: [..]` (`cuda_graph.py:58-64`: the front-end's
  `compilation_config`, i.e. the config ladder before the V1 runner rounds it to q), then a
  Markdown table `| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |`
  (`cuda_graph.py:43-49`, rows built at 71-118) with one row per distinct step shape of the
  interval. The runner fills a row per step with its scheduled tokens
  (`v1/worker/gpu_model_runner.py:3772-3778`; V2: `v1/worker/gpu/cudagraph_utils.py:88-96`)
  and the scheduler ships the stat every step, with or without outputs
  (`v1/core/sched/scheduler.py:2660-2673`), so summing Count per Unpadded Tokens over every
  interval is the exact distribution of scheduled tokens. vLLM's log formatter repeats the
  line prefix (`(APIServer pid=..) INFO .. [cuda_graph.py:123]`) on every line of the table
  (`logging_utils/formatter.py:77`); it is skipped up to the first `|`.
- **Prometheus text exposition of vLLM's `/metrics`** (histogram
  `vllm:iteration_tokens_total`, `v1/metrics/loggers.py:887-894`, labels model_name and engine
  at 499). Default buckets are 1, 8, 16, ..., 16384 (`v1/metrics/buckets.py:107-121`);
  `--custom-histogram-buckets '{"iteration_tokens": [1, 2, 3, ...]}'`
  (`config/observability.py:70`, validated at 185-213) gives one-token buckets, which are
  exact. Wider buckets are spread evenly over their integer sizes, with a warning saying how
  many steps that touches. The histogram observes prompt tokens computed plus tokens
  generated per output batch (`v1/metrics/loggers.py:1273-1276`; the prompt is counted whole
  when its first token comes out, `v1/core/sched/scheduler.py:2454`, generated tokens are
  accepted ones, `v1/metrics/stats.py:518`), and batches without outputs are not observed
  (`v1/engine/async_llm.py:884`): it approximates the scheduled batch, which the warnings say.
- **CSV** and **JSON** in graphfit's own formats (README, "Traces").

`read_trace` returns a `TraceReading`; `TraceReading.for_config(config)` adds the checks that
need the engine config (a log recorded with other capture sizes or mode, coarse buckets at or
below the max capture size, speculative decoding under Prometheus) and returns the trace to
optimise. Malformed input is a ConfigError naming the file (and line), never a guess.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import read_text, shown_path
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.limits import MAX_TRACE_BYTES
from graphfit.planner.plan import plan
from graphfit.planner.tuning.trace import Trace, check_size, check_weight

TRACE_SCHEMA = "graphfit.trace/1"
WEIGHT_COLUMNS = ("count", "weight")
ITERATION_TOKENS = "vllm:iteration_tokens_total"
LOG_FLAG = "--cudagraph-metrics"
BUCKETS_FLAG = "--custom-histogram-buckets"


class TraceFormat(str, Enum):
    """What a trace file holds (told from its content)."""

    CSV = "csv"
    JSON = "json"
    VLLM_LOG = "vllm-log"
    PROMETHEUS = "prometheus"


@dataclass(frozen=True)
class LoggedConfig:
    """The settings header of one `--cudagraph-metrics` table: mode and capture sizes."""

    mode: str
    capture_sizes: tuple[int, ...]
    line: int


@dataclass(frozen=True)
class Bucket:
    """A histogram bucket (low, high] holding `count` steps (integer sizes low+1..high)."""

    low: int
    high: int
    count: float

    @property
    def width(self) -> int:
        return self.high - self.low


@dataclass(frozen=True)
class TraceReading:
    """A trace as read from a file, with what the file says about how it was recorded.

    `logged`: the distinct settings headers of a vLLM log; `shapes`: its distinct
    (unpadded, padded, runtime mode) -> count rows; `coarse`: Prometheus buckets wider than
    one token that hold steps (spread evenly); `approximate`: the sizes are not the scheduled
    batches (Prometheus' iteration tokens).
    """

    trace: Trace
    format: TraceFormat
    warnings: tuple[str, ...] = ()
    logged: tuple[LoggedConfig, ...] = ()
    shapes: Mapping[tuple[int, int, str], int] | None = None
    coarse: tuple[Bucket, ...] = ()
    approximate: bool = False
    unit: Unit | None = None  # what the sizes count, when the file says (None: either)

    def for_config(self, config: EngineConfig) -> tuple[Trace, tuple[str, ...]]:
        """The trace to optimise `config` on, and every warning (the file's, then the checks
        against the config). Raises ConfigError when the trace cannot apply to the config."""
        result = plan(config)
        where = f"trace {self.trace.source}"
        warnings = list(self.warnings)
        if self.unit is not None and self.unit is not result.unit:
            source = (f"vLLM's {self.format.value}" if self.format in (
                TraceFormat.VLLM_LOG, TraceFormat.PROMETHEUS) else "this trace")
            want = ("batch sizes in requests (a batch_size column)"
                    if result.unit is Unit.REQUESTS else "token counts (a num_tokens column)")
            raise ConfigError(
                f"{where}: {source} counts {self.unit.value} per step, but "
                f"{config.engine.value} captures per {result.unit.value}; give a trace of "
                f"{want}")
        trace = self.trace
        if self.format is TraceFormat.VLLM_LOG:
            warnings += _log_mismatches(self, result.config_capture_sizes,
                                        result.capture_sizes, config.cudagraph_mode.value)
        elif self.format is TraceFormat.PROMETHEUS:
            q = config.uniform_query_len
            if q > 1:
                warnings.append(
                    f"{where}: with speculative decoding (q = {q}) a decode step of r "
                    f"requests runs r*{q} tokens but the histogram counts its accepted "
                    f"tokens (r..r*{q}), so it understates decode sizes; record the "
                    f"{LOG_FLAG} log instead")
            if result.has_graphs:
                warnings += _coarse_warning(self, result.max_capture_size)
            trace, folded = _fold_above(trace, config.max_num_batched_tokens)
            if folded:
                warnings.append(
                    f"{where}: {_pct(folded, trace.total_weight)} of steps count more than "
                    f"max_num_batched_tokens {config.max_num_batched_tokens} tokens (whole "
                    "prompts of chunked prefills); counted as steps of that size (eager "
                    "or unpadded either way)")
        return trace, tuple(warnings)


def read_trace(path: str | Path) -> TraceReading:
    """Read a trace file; the format is told from the content (see `sniff`)."""
    p = Path(path)
    text = read_text(p, "trace", limit=MAX_TRACE_BYTES)  # bounded, regular files, UTF-8
    return parse_trace(text, shown_path(p.name))


def load_trace(path: str | Path) -> Trace:
    """Only the trace of `read_trace` (no config checks)."""
    return read_trace(path).trace


def parse_trace(text: str, source: str = "trace") -> TraceReading:
    """Parse text in any supported format."""
    fmt = sniff(text)
    if fmt is TraceFormat.VLLM_LOG:
        return parse_vllm_log(text, source)
    if fmt is TraceFormat.PROMETHEUS:
        return parse_prometheus(text, source)
    if fmt is TraceFormat.JSON:
        return _reading(_json_trace(text, source), fmt)
    return _reading(_csv_trace(text, source), fmt)


def _reading(parsed: tuple[Trace, Unit | None], fmt: TraceFormat) -> TraceReading:
    trace, unit = parsed
    return TraceReading(trace, fmt, unit=unit)


_TABLE_HEADER = re.compile(
    r"\|\s*Unpadded Tokens\s*\|\s*Padded Tokens\s*\|\s*Num Paddings\s*\|\s*Runtime Mode\s*\|"
    r"\s*Count\s*\|")
_SETTINGS = "**CUDAGraph Config Settings:**"
# vLLM's log prefix (logger.py:28-32): "(APIServer pid=7) INFO 06-01 12:00:10 [file.py:12] "
_VLLM_LOG_LINE = re.compile(r"^(?:\(\S+ pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) "
                            r"\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]\s]+:\d+\]", re.M)
_PROM_COMMENT = re.compile(r"^# (?:TYPE|HELP) [A-Za-z_:][A-Za-z0-9_:]* ", re.M)


def sniff(text: str) -> TraceFormat:
    """Tell the format from the content: JSON when it parses as JSON; a vLLM log when it holds
    a `--cudagraph-metrics` table or vLLM log lines; Prometheus text when it holds
    `# TYPE`/`# HELP` lines or the iteration-tokens histogram; CSV otherwise."""
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            json.loads(stripped)
        except ValueError:
            pass
        else:
            return TraceFormat.JSON
    if _TABLE_HEADER.search(text) or _SETTINGS in text or _VLLM_LOG_LINE.search(text):
        return TraceFormat.VLLM_LOG
    if ITERATION_TOKENS + "_bucket" in text or _PROM_COMMENT.search(text):
        return TraceFormat.PROMETHEUS
    if stripped.startswith(("[", "{")):
        return TraceFormat.JSON  # malformed JSON: let the JSON reader say where
    return TraceFormat.CSV


# --- vLLM --cudagraph-metrics log ------------------------------------------------------------

_MODE_LINE = re.compile(r"- Mode: (\S+)\s*$")
_SIZES_LINE = re.compile(r"- Capture sizes: \[([^\]]*)\]\s*$")
_ROW = re.compile(r"\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(-?\d+)\s*\|\s*([A-Z_]+)\s*\|\s*(\d+)\s*\|\s*$")
_SEPARATOR = re.compile(r"\|(?:-+\|){5}\s*$")


def parse_vllm_log(text: str, source: str = "trace") -> TraceReading:
    """Sum the Count of every `--cudagraph-metrics` row per Unpadded Tokens, over every
    interval of the log (format: module docstring). Other log lines are ignored."""
    where = f"trace {source}"
    counts: dict[int, int] = {}
    shapes: dict[tuple[int, int, str], int] = {}
    logged: list[LoggedConfig] = []
    mode: str | None = None
    mode_line = 0
    tables = idle = 0
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        bar = line.find("|")
        body = line[bar:] if bar >= 0 else ""
        if in_table:
            if not body:
                in_table = False
            elif _SEPARATOR.match(body):
                continue
            else:
                row = _ROW.match(body)
                if row is None:
                    raise ConfigError(f"{where}: line {number}: not a CUDAGraph Stats row "
                                      f"(Unpadded | Padded | Num Paddings | Mode | Count): "
                                      f"{body[:80]!r}")
                unpadded, padded, paddings, runtime, count = (
                    int(row[1]), int(row[2]), int(row[3]), row[4], int(row[5]))
                if paddings != padded - unpadded or count < 1:
                    raise ConfigError(f"{where}: line {number}: inconsistent row (padded "
                                      f"{padded} - unpadded {unpadded} != {paddings} "
                                      f"paddings, or count {count} < 1)")
                if unpadded == 0:
                    idle += count
                    continue
                counts[unpadded] = counts.get(unpadded, 0) + count
                key = (unpadded, padded, runtime)
                shapes[key] = shapes.get(key, 0) + count
                continue
        if _TABLE_HEADER.match(body):
            in_table = True
            tables += 1
            continue
        found = _MODE_LINE.search(line)
        if found:
            mode, mode_line = found[1], number
            continue
        found = _SIZES_LINE.search(line)
        if found and mode is not None:
            try:
                sizes = tuple(int(v) for v in found[1].replace(",", " ").split())
            except ValueError:
                raise ConfigError(f"{where}: line {number}: capture sizes "
                                  f"[{found[1][:60]}] are not integers") from None
            if not any(c.mode == mode and c.capture_sizes == sizes for c in logged):
                logged.append(LoggedConfig(mode, sizes, mode_line))
            mode = None
    if tables == 0:
        raise ConfigError(f"{where}: a vLLM log without CUDAGraph Stats tables: start "
                          f"`vllm serve` with {LOG_FLAG} (and without --disable-log-stats)")
    if not counts:
        raise ConfigError(f"{where}: {tables} CUDAGraph Stats table(s) but no step with "
                          "tokens")
    warnings = []
    if len(logged) > 1:
        described = "; ".join(f"line {c.line}: {c.mode}, {len(c.capture_sizes)} sizes"
                              for c in logged)
        warnings.append(f"{where}: tables from {len(logged)} different settings ({described});"
                        " all were summed")
    if idle:
        warnings.append(f"{where}: {idle} steps with 0 tokens skipped")
    return TraceReading(Trace.from_weights(counts, source), TraceFormat.VLLM_LOG,
                        tuple(warnings), tuple(logged), shapes, unit=Unit.TOKENS)


def _compact(sizes: tuple[int, ...] | list[int], limit: int = 8) -> str:
    shown = ", ".join(map(str, sizes[:limit]))
    return shown + (f", ... ({len(sizes)} sizes)" if len(sizes) > limit else "")


def _log_mismatches(reading: TraceReading, config_sizes: tuple[int, ...],
                    runtime_sizes: tuple[int, ...], mode: str) -> list[str]:
    """The log's own settings and padded sizes against the config's plan.

    The header shows the front-end's config ladder (before the V1 runner rounds it to q), or
    the rounded one where the engine runs in-process; both are accepted.
    """
    where = f"trace {reading.trace.source}"
    out = []
    for logged in reading.logged:
        if logged.mode != mode:
            out.append(f"{where}: line {logged.line}: the log's cudagraph mode {logged.mode} "
                       f"differs from the config's {mode}; pass the flags the server ran with")
        if logged.capture_sizes not in (config_sizes, runtime_sizes):
            only_log = sorted(set(logged.capture_sizes) - set(config_sizes))
            only_config = sorted(set(config_sizes) - set(logged.capture_sizes))
            out.append(f"{where}: line {logged.line}: the log's capture sizes differ from the "
                       f"config's (only in the log: {_compact(only_log) or '-'}; only in the "
                       f"config: {_compact(only_config) or '-'}); pass the flags the server "
                       "ran with")
    if reading.shapes and runtime_sizes:
        captured = set(runtime_sizes)
        strays = sorted({padded for (_, padded, runtime) in reading.shapes
                         if runtime != "NONE" and padded not in captured})
        if strays:
            out.append(f"{where}: steps replayed graphs of {_compact(strays)} tokens, which "
                       "this config does not capture")
    return out


# --- Prometheus text exposition ---------------------------------------------------------------

_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?\s*$")
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def _labels(where: str, text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        found = _LABEL.match(text, pos)
        if found is None or found.end() == pos:
            raise ConfigError(f"{where}: malformed labels {{{text[:80]}}}")
        out[found[1]] = found[2]
        pos = found.end()
    return out


def _number(where: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{where}: {text!r} is not a number") from None
    if math.isnan(value):
        raise ConfigError(f"{where}: NaN")
    return value


def _integral(value: float) -> float:
    """Counts stay ints when they are whole (Prometheus writes 3.0), so costs stay exact."""
    return int(value) if value.is_integer() else value


@dataclass
class _Series:
    buckets: dict[float, float]
    total: float | None = None
    count: float | None = None
    line: int = 0


def parse_prometheus(text: str, source: str = "trace") -> TraceReading:
    """The `vllm:iteration_tokens_total` histogram of a Prometheus text exposition, summed
    over its series (engines, models); other metrics are ignored."""
    where = f"trace {source}"
    series: dict[tuple[tuple[str, str], ...], _Series] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith(ITERATION_TOKENS):
            continue
        found = _SAMPLE.match(line)
        if found is None:
            raise ConfigError(f"{where}: line {number}: not a Prometheus sample: {line[:80]!r}")
        name, suffix = found[1], found[1][len(ITERATION_TOKENS):]
        if suffix not in ("_bucket", "_sum", "_count"):
            continue  # _created and other families sharing the prefix
        at = f"{where}: line {number}"
        labels = _labels(at, found[2] or "")
        le = labels.pop("le", None)
        value = _number(at, found[3])
        if value < 0:
            raise ConfigError(f"{at}: {name} is negative ({found[3]})")
        key = tuple(sorted(labels.items()))
        entry = series.setdefault(key, _Series({}, line=number))
        if suffix == "_bucket":
            if le is None:
                raise ConfigError(f"{at}: a bucket without an le label")
            entry.buckets[_number(at, le)] = value
        elif suffix == "_sum":
            entry.total = value
        else:
            entry.count = value
    series = {k: s for k, s in series.items() if s.buckets}
    if not series:
        raise ConfigError(f"{where}: no {ITERATION_TOKENS} histogram in this Prometheus text; "
                          "save vLLM's /metrics (curl http://HOST:PORT/metrics)")
    bounds = {tuple(sorted(s.buckets)) for s in series.values()}
    if len(bounds) > 1:
        raise ConfigError(f"{where}: the {ITERATION_TOKENS} series have different buckets; "
                          "keep one server's metrics")
    warnings: list[str] = []
    merged: dict[float, float] = {}
    total: float | None = 0.0
    for s in series.values():
        _check_cumulative(where, s)
        for bound, value in s.buckets.items():
            merged[bound] = merged.get(bound, 0.0) + value
        total = None if total is None or s.total is None else total + s.total
    if len(series) > 1:
        names = ", ".join(",".join(f"{k}={v}" for k, v in key) or "-" for key in series)
        warnings.append(f"{where}: summed {len(series)} series ({names})")
    weights, coarse, more = _spread(where, merged, total)
    warnings += more
    if not weights:
        raise ConfigError(f"{where}: the {ITERATION_TOKENS} histogram holds no steps")
    warnings.append(
        f"{where}: {ITERATION_TOKENS} counts the tokens a step outputs (generated tokens, and "
        "a prompt in full in the step that finishes it), not the tokens it schedules; "
        f"the {LOG_FLAG} log records scheduled tokens exactly")
    return TraceReading(Trace.from_weights(weights, source), TraceFormat.PROMETHEUS,
                        tuple(warnings), coarse=tuple(coarse), approximate=True,
                        unit=Unit.TOKENS)


def _check_cumulative(where: str, s: _Series) -> None:
    if math.inf not in s.buckets:
        raise ConfigError(f"{where}: the {ITERATION_TOKENS} series at line {s.line} has no "
                          'le="+Inf" bucket')
    values = [s.buckets[le] for le in sorted(s.buckets)]
    if any(b < a for a, b in pairwise(values)):
        raise ConfigError(f"{where}: the {ITERATION_TOKENS} buckets at line {s.line} are not "
                          "cumulative (a count falls)")
    if s.count is not None and s.count != s.buckets[math.inf]:
        raise ConfigError(f"{where}: _count {s.count:g} != +Inf bucket "
                          f"{s.buckets[math.inf]:g} (line {s.line})")


def _spread(where: str, cumulative: dict[float, float],
            total: float | None) -> tuple[dict[int, float], list[Bucket], list[str]]:
    """Per-size weights from cumulative buckets: a one-integer bucket is exact, a wider one
    is spread evenly over its integers; steps above the last finite bound sit at the mean
    size the `_sum` leaves for them."""
    weights: dict[int, float] = {}
    coarse: list[Bucket] = []
    warnings: list[str] = []
    low = 0  # integer sizes > low
    previous = 0.0
    accounted = 0.0  # estimated sum of sizes in finite buckets
    for le in sorted(cumulative):
        count = cumulative[le] - previous
        previous = cumulative[le]
        if le == math.inf:
            if count > 0:
                warnings.append(_tail(where, count, low, total, accounted, weights))
            break
        high = math.floor(le)
        if high <= low:
            if count > 0:
                warnings.append(f"{where}: {count:g} steps in bucket le={le:g}, which holds "
                                "no whole token count; dropped")
            continue
        if count > 0:
            bucket = Bucket(low, high, _integral(count))
            if high - low == 1:
                weights[high] = weights.get(high, 0) + bucket.count
            else:
                coarse.append(bucket)
                share = bucket.count / (high - low)
                for n in range(low + 1, high + 1):
                    weights[n] = weights.get(n, 0) + share
            accounted += count * (low + 1 + high) / 2
        low = high
    return weights, coarse, warnings


def _tail(where: str, count: float, low: int, total: float | None, accounted: float,
          weights: dict[int, float]) -> str:
    at = low + 1
    how = "no _sum to place them; put at the bound"
    if total is not None:
        mean = (total - accounted) / count
        if mean >= low + 1:
            at = round(mean)
            how = f"placed at {at}, the mean size the _sum leaves for them"
    weights[at] = weights.get(at, 0) + _integral(count)
    return (f"{where}: {count:g} steps above the last bucket bound {low} have unknown sizes "
            f"({how})")


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0%"


def _coarse_warning(reading: TraceReading, max_size: int) -> list[str]:
    """How much coarse buckets limit a ladder whose largest size is `max_size`: only the
    buckets that reach sizes <= max_size matter (larger steps run eagerly)."""
    relevant = [b for b in reading.coarse if b.low < max_size]
    if not relevant:
        return []
    steps = sum(b.count for b in relevant)
    below = reading.trace.total_weight - reading.trace.weight_above(max_size)
    width = sum(b.count * b.width for b in relevant) / steps
    shown = ", ".join(f"({b.low}, {b.high}]" for b in relevant[:6])
    more = ", ..." if len(relevant) > 6 else ""
    return [f"trace {reading.trace.source}: {_pct(steps, below)} of the steps up to the max "
            f"capture size {max_size} are known only to within a bucket ({shown}{more}; mean "
            f"width {width:.0f} tokens): they were spread evenly inside each bucket, so sizes "
            "the optimiser places there rest on that guess and its waste figures are "
            f"estimates; for exact sizes start vLLM with {BUCKETS_FLAG} "
            f"'{{\"iteration_tokens\": [1, 2, ..., {max_size}]}}' (or use the {LOG_FLAG} log)"]


def _fold_above(trace: Trace, limit: int) -> tuple[Trace, float]:
    """Steps above `limit` counted as steps of `limit` tokens (and how many there were)."""
    above = trace.weight_above(limit)
    if not above:
        return trace, 0
    weights = {n: w for n, w in zip(trace.sizes, trace.weights) if n <= limit}
    weights[limit] = weights.get(limit, 0) + above
    return Trace.from_weights(weights, trace.source), above


# --- graphfit's CSV and JSON ------------------------------------------------------------------

def _cell_int(where: str, cell: str) -> int:
    try:
        return check_size(where, int(cell.strip()))
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
    return check_weight(where, value)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


SIZE_COLUMNS = {"num_tokens": Unit.TOKENS, "batch_size": Unit.REQUESTS}


def parse_csv_trace(text: str, source: str = "trace") -> Trace:
    """CSV: a `num_tokens` column (tokens per step, vLLM) or a `batch_size` column (requests
    per decode batch, SGLang / TensorRT-LLM) -- a header is needed when there are other columns
    -- and an optional `count`/`weight` column; headerless files are `n` or `n,count` rows.

    Blank lines and lines starting with '#' are skipped.
    """
    return _csv_trace(text, source)[0]


def _csv_trace(text: str, source: str) -> tuple[Trace, Unit | None]:
    rows = [(i, row) for i, row in enumerate(csv.reader(io.StringIO(text)), start=1)
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")]
    if not rows:
        raise ConfigError(f"trace {source}: the CSV has no rows")
    first_line, first = rows[0]
    unit: Unit | None = None
    if all(_is_number(c) for c in first):
        n_col, w_col = 0, (1 if len(first) == 2 else None)
        if len(first) > 2:
            raise ConfigError(f"trace {source}: line {first_line}: {len(first)} columns without "
                              "a header; add one naming num_tokens (and count or weight)")
        body = rows
    else:
        header = [c.strip().lower() for c in first]
        sizes = [c for c in SIZE_COLUMNS if c in header]
        if not sizes:
            raise ConfigError(f"trace {source}: line {first_line}: the header has no "
                              f"num_tokens (or batch_size) column (got "
                              f"{', '.join(map(repr, header))})")
        if len(sizes) > 1:
            raise ConfigError(f"trace {source}: both num_tokens and batch_size columns; keep "
                              "one (tokens for vLLM, requests for batch-size engines)")
        n_col, unit = header.index(sizes[0]), SIZE_COLUMNS[sizes[0]]
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
    return Trace.from_weights(weights, source), unit


def _json_pairs(where: str, value: object) -> dict[int, float]:
    """A distribution as {"n": w}, [[n, w], ...] or [{"num_tokens": n, "count": w}, ...]."""
    out: dict[int, float] = {}

    def add(n: object, w: object) -> None:
        size = check_size(where, n)
        out[size] = out.get(size, 0) + check_weight(where, w)

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
    """JSON: a list of samples; {"num_tokens": [...]} (tokens per step) or {"batch_size":
    [...]} (requests per decode batch); a list of {"num_tokens", "count"} entries; or
    {"distribution": {"n": weight} or [[n, w], ...]}, optionally with "unit": "tokens" or
    "requests".

    An object may carry "schema": "graphfit.trace/1" (any other schema is refused) and free
    "notes"/"source" strings; other keys are refused, so a typo cannot empty the trace.
    """
    return _json_trace(text, source)[0]


def _json_trace(text: str, source: str) -> tuple[Trace, Unit | None]:
    where = f"trace {source}"
    try:
        doc: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: malformed JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(doc, list):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in doc):
            return Trace.from_samples(doc, source), None
        return Trace.from_weights(_json_pairs(where, doc), source), None
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a JSON list or object")
    schema = doc.get("schema", TRACE_SCHEMA)
    if schema != TRACE_SCHEMA:
        raise ConfigError(f"{where}: schema must be {TRACE_SCHEMA!r}, got {schema!r}")
    unknown = sorted(set(doc) - {"schema", "notes", "source", "unit", "num_tokens",
                                 "batch_size", "distribution"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    unit: Unit | None = None
    if "unit" in doc:
        try:
            unit = Unit(doc["unit"])
        except ValueError:
            raise ConfigError(f"{where}: unit must be 'tokens' or 'requests', got "
                              f"{doc['unit']!r}") from None
    keys = [k for k in ("num_tokens", "batch_size", "distribution") if k in doc]
    if len(keys) != 1:
        raise ConfigError(f"{where}: needs exactly one of num_tokens or batch_size (samples) "
                          "or distribution")
    key = keys[0]
    if key == "distribution":
        return Trace.from_weights(_json_pairs(where, doc["distribution"]), source), unit
    implied = SIZE_COLUMNS[key]
    if unit is not None and unit is not implied:
        raise ConfigError(f"{where}: {key} counts {implied.value}, but unit says {unit.value}")
    samples = doc[key]
    if not isinstance(samples, list):
        raise ConfigError(f"{where}: {key} must be a list of integers")
    return Trace.from_samples(samples, source), implied
