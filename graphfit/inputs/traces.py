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
  exact. Wider buckets are spread evenly over their integer sizes (up to MAX_SPREAD_TOKENS;
  a bucket's part above keeps its steps and their mean size at one or two points), with a
  warning saying how many steps that touches. The histogram observes prompt tokens computed
  plus tokens generated per output batch (`v1/metrics/loggers.py:1273-1276`; the prompt is
  counted whole when its first token comes out, `v1/core/sched/scheduler.py:2454`, generated
  tokens are accepted ones, `v1/metrics/stats.py:518`), and batches without outputs are not
  observed (`v1/engine/async_llm.py:884`): it approximates the scheduled batch, which the
  warnings say.
- **CSV** and **JSON** in graphfit's own formats (docs/operators/optimize.md, "Traces").

`read_trace` returns a `TraceReading`; `TraceReading.for_config(config)` adds the checks that
need the engine config (a log recorded with other capture sizes or mode, coarse buckets at or
below the max capture size, speculative decoding under Prometheus) and returns the trace to
optimise. Malformed input is a ConfigError naming the file (and line), never a guess.

Reading is bounded and strict (graphfit.inputs.reading): a regular UTF-8 file of at most
MAX_TRACE_BYTES, JSON parsed once and strictly, every integer ASCII digits up to MAX_INT
(checked by length before converting), every float finite and at most MAX_FLOAT, sums of
counts checked as they grow. Time and memory grow with the file's size, never with a number
in it: lines are read a piece at a time, a wide bucket is spread over at most
MAX_SPREAD_TOKENS sizes, a logged capture-size list holds at most MAX_CAPTURE_SIZES.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import (
    check_float,
    is_int_text,
    parse_float,
    parse_int,
    parse_json,
    read_text,
    shown_path,
)
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import Unit
from graphfit.planner.core.errors import ConfigError, brief, excerpt, listed
from graphfit.planner.core.limits import (
    MAX_CAPTURE_SIZES,
    MAX_FLOAT,
    MAX_INT,
    MAX_INT_DIGITS,
    MAX_SPREAD_TOKENS,
    MAX_TRACE_BYTES,
)
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
    """Parse text in any supported format (told as `sniff` tells it; JSON is parsed once)."""
    fmt, doc = _classify(text, f"trace {source}")
    if fmt is TraceFormat.VLLM_LOG:
        return parse_vllm_log(text, source)
    if fmt is TraceFormat.PROMETHEUS:
        return parse_prometheus(text, source)
    if fmt is TraceFormat.JSON:
        return _reading(_json_trace(doc, source), fmt)
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
_JSON_START = re.compile(r"\s*[\[{]")


def sniff(text: str) -> TraceFormat:
    """Tell the format from the content: JSON when it parses as JSON; a vLLM log when it holds
    a `--cudagraph-metrics` table or vLLM log lines; Prometheus text when it holds
    `# TYPE`/`# HELP` lines or the iteration-tokens histogram; CSV otherwise."""
    try:
        return _classify(text, "")[0]
    except ConfigError:
        return TraceFormat.JSON  # JSON that graphfit refuses: the JSON reader says why


def _marked(text: str) -> TraceFormat | None:
    """A vLLM log or Prometheus text by their marks (linear scans, no parsing)."""
    if _TABLE_HEADER.search(text) or _SETTINGS in text or _VLLM_LOG_LINE.search(text):
        return TraceFormat.VLLM_LOG
    if ITERATION_TOKENS + "_bucket" in text or _PROM_COMMENT.search(text):
        return TraceFormat.PROMETHEUS
    return None


def _classify(text: str, where: str) -> tuple[TraceFormat, Any]:
    """(format, the parsed document when JSON). Text that starts like JSON is parsed once,
    strictly; a parse error is the JSON's own unless the text is no JSON at all and carries a
    log's or Prometheus' marks (a log whose lines start with "[")."""
    if _JSON_START.match(text) is None:
        return _marked(text) or TraceFormat.CSV, None
    other = _marked(text)
    try:
        return TraceFormat.JSON, parse_json(text, where)
    except ConfigError:
        if other is None or _is_json_syntax(text):
            raise
        return other, None


def _syntax_only(value: str) -> None:
    return None


def _is_json_syntax(text: str) -> bool:
    """Whether `text` is JSON at all (numbers and constants not converted: only syntax)."""
    try:
        json.loads(text, parse_int=_syntax_only, parse_float=_syntax_only,
                   parse_constant=_syntax_only)
    except (ValueError, RecursionError):
        return False
    return True


_CHUNK_CHARS = 1 << 20


def _chunks(text: str) -> Iterator[str]:
    """`text` in pieces of about a MiB, each ending just after a newline, so no line (nor a
    CR LF pair) is split: lines are read a piece at a time, never all held as one list."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + _CHUNK_CHARS)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(number, line) of every line of `text`, as `str.splitlines` counts them."""
    number = 0
    for chunk in _chunks(text):
        for line in chunk.splitlines():
            number += 1
            yield number, line


# --- vLLM --cudagraph-metrics log ------------------------------------------------------------

_MODE_LINE = re.compile(r"- Mode: (\S+)\s*$")
_SIZES_MARK = "- Capture sizes: ["
_ROW = re.compile(r"\|\s*([0-9]+)\s*\|\s*([0-9]+)\s*\|\s*(-?[0-9]+)\s*\|\s*([A-Z_]+)\s*\|"
                  r"\s*([0-9]+)\s*\|\s*$")
_SEPARATOR = re.compile(r"\|(?:-+\|){5}\s*$")
_SHOWN_SETTINGS = 8  # settings headers described one by one in a warning (the rest counted)


def _log_int(at: str, what: str, digits: str) -> int:
    """An integer the row pattern matched as ASCII digits: short ones at once, long ones
    through the bounded reader (a 5,000-digit count is an error naming the line)."""
    if len(digits) < MAX_INT_DIGITS:
        return int(digits)
    return parse_int(f"{at}: {what}", digits, minimum=-MAX_INT)


def _sizes_text(line: str) -> str | None:
    """What is inside the brackets of a `- Capture sizes: [..]` line (None: not one)."""
    mark = line.find(_SIZES_MARK)
    if mark < 0:
        return None
    rest = line[mark + len(_SIZES_MARK):].rstrip()
    if not rest.endswith("]") or "]" in rest[:-1]:
        return None
    return rest[:-1]


def _capture_sizes(at: str, inner: str) -> tuple[int, ...]:
    """A logged capture-size list: at most MAX_CAPTURE_SIZES integers, each in range."""
    cells = inner.replace(",", " ").split(maxsplit=MAX_CAPTURE_SIZES)
    if len(cells) > MAX_CAPTURE_SIZES:
        raise ConfigError(f"{at}: more than {MAX_CAPTURE_SIZES:,} capture sizes, more than "
                          "graphfit plans in one ladder")
    if not all(is_int_text(c) for c in cells):
        raise ConfigError(f"{at}: capture sizes {excerpt(inner)} are not integers")
    return tuple(int(c) if c.isdigit() and len(c) < MAX_INT_DIGITS and c[0] != "0"
                 else parse_int(f"{at}: capture size", c, minimum=1) for c in cells)


def parse_vllm_log(text: str, source: str = "trace") -> TraceReading:
    """Sum the Count of every `--cudagraph-metrics` row per Unpadded Tokens, over every
    interval of the log (format: module docstring). Other log lines are ignored."""
    where = f"trace {source}"
    counts: dict[int, int] = {}
    shapes: dict[tuple[int, int, str], int] = {}
    logged: dict[tuple[str, tuple[int, ...]], LoggedConfig] = {}
    mode: str | None = None
    mode_line = 0
    tables = idle = 0
    in_table = False
    last: tuple[str | None, tuple[int, ...]] = (None, ())  # the last sizes text, parsed
    for number, line in _lines(text):
        bar = line.find("|")
        body = line[bar:] if bar >= 0 else ""
        if in_table:
            if not body:
                in_table = False
            elif _SEPARATOR.match(body):
                continue
            else:
                at = f"{where}: line {number}"
                row = _ROW.match(body)
                if row is None:
                    raise ConfigError(f"{at}: not a CUDAGraph Stats row (Unpadded | Padded | "
                                      f"Num Paddings | Mode | Count): {excerpt(body)}")
                unpadded, padded, paddings, runtime, count = (
                    _log_int(at, "unpadded tokens", row[1]),
                    _log_int(at, "padded tokens", row[2]),
                    _log_int(at, "num paddings", row[3]), row[4],
                    _log_int(at, "count", row[5]))
                if paddings != padded - unpadded or count < 1:
                    raise ConfigError(f"{at}: inconsistent row (padded {padded} - unpadded "
                                      f"{unpadded} != {paddings} paddings, or count {count} "
                                      "< 1)")
                if unpadded == 0:
                    idle = _summed(at, "steps with 0 tokens", idle + count)
                    continue
                counts[unpadded] = _summed(at, f"steps of {unpadded} tokens",
                                           counts.get(unpadded, 0) + count)
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
        inner = _sizes_text(line) if mode is not None else None
        if mode is not None and inner is not None:
            if inner != last[0]:  # every interval logs the same header: parsed once
                last = (inner, _capture_sizes(f"{where}: line {number}", inner))
            logged.setdefault((mode, last[1]), LoggedConfig(mode, last[1], mode_line))
            mode = None
    if tables == 0:
        raise ConfigError(f"{where}: a vLLM log without CUDAGraph Stats tables: start "
                          f"`vllm serve` with {LOG_FLAG} (and without --disable-log-stats)")
    if not counts:
        raise ConfigError(f"{where}: {tables} CUDAGraph Stats table(s) but no step with "
                          "tokens")
    warnings = []
    settings = tuple(logged.values())
    if len(settings) > 1:
        described = "; ".join(f"line {c.line}: {brief(c.mode)}, {len(c.capture_sizes)} sizes"
                              for c in settings[:_SHOWN_SETTINGS])
        more = (f"; ... and {len(settings) - _SHOWN_SETTINGS:,} more"
                if len(settings) > _SHOWN_SETTINGS else "")
        warnings.append(f"{where}: tables from {len(settings)} different settings "
                        f"({described}{more}); all were summed")
    if idle:
        warnings.append(f"{where}: {idle} steps with 0 tokens skipped")
    return TraceReading(Trace.from_weights(counts, source), TraceFormat.VLLM_LOG,
                        tuple(warnings), settings, shapes, unit=Unit.TOKENS)


def _summed(at: str, what: str, total: int) -> int:
    """A running count, refused past MAX_INT (the engines count steps in int64)."""
    if total > MAX_INT:
        raise ConfigError(f"{at}: the {what} add up to more than {MAX_INT}")
    return total


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
    for logged in reading.logged[:_SHOWN_SETTINGS]:
        if logged.mode != mode:
            out.append(f"{where}: line {logged.line}: the log's cudagraph mode "
                       f"{brief(logged.mode)} differs from the config's {mode}; pass the flags "
                       "the server ran with")
        if logged.capture_sizes not in (config_sizes, runtime_sizes):
            only_log = sorted(set(logged.capture_sizes) - set(config_sizes))
            only_config = sorted(set(config_sizes) - set(logged.capture_sizes))
            out.append(f"{where}: line {logged.line}: the log's capture sizes differ from the "
                       f"config's (only in the log: {_compact(only_log) or '-'}; only in the "
                       f"config: {_compact(only_config) or '-'}); pass the flags the server "
                       "ran with")
    unchecked = len(reading.logged) - _SHOWN_SETTINGS
    if unchecked > 0:
        out.append(f"{where}: {unchecked:,} more settings headers not compared with the "
                   "config (the log holds tables from many different settings)")
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
    """A sample's labels. A label given twice is refused: the exposition format names each
    label once per sample (Prometheus' own parser refuses `{engine="0",engine="1"}`), and
    keeping either value would file the sample under a series it may not belong to."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        found = _LABEL.match(text, pos)
        if found is None or found.end() == pos:
            raise ConfigError(f"{where}: malformed labels {excerpt('{' + text + '}')}")
        if found[1] in out:
            raise ConfigError(f"{where}: label {excerpt(found[1])} is given twice in "
                              f"{excerpt('{' + text + '}')}")
        out[found[1]] = found[2]
        pos = found.end()
    return out


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INFINITY = ("+inf", "inf")
_NAN = ("nan", "+nan", "-nan")


def _number(where: str, text: str, *, infinite: bool = False) -> float:
    """A sample value or bound as Prometheus writes it: a finite decimal within MAX_FLOAT
    (or +Inf where `infinite`); NaN, hex, `1_0` and unicode digits are refused."""
    lowered = text.lower()
    if infinite and lowered in _INFINITY:
        return math.inf
    if lowered in _NAN:
        raise ConfigError(f"{where} is NaN")
    if _DECIMAL.fullmatch(text) is None:
        raise ConfigError(f"{where}: {excerpt(text)} is not a number")
    value = float(text)  # a long decimal is inf here, never an error
    if not math.isfinite(value) or abs(value) > MAX_FLOAT:
        raise ConfigError(f"{where}: {excerpt(text)} is out of range (finite, at most "
                          f"{MAX_FLOAT:g})")
    return check_float(where, value, minimum=-MAX_FLOAT)


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
    for number, line in _lines(text):
        if not line.startswith(ITERATION_TOKENS):
            continue
        found = _SAMPLE.match(line)
        if found is None:
            raise ConfigError(f"{where}: line {number}: not a Prometheus sample: "
                              f"{excerpt(line)}")
        name, suffix = found[1], found[1][len(ITERATION_TOKENS):]
        if suffix not in ("_bucket", "_sum", "_count"):
            continue  # _created and other families sharing the prefix
        at = f"{where}: line {number}"
        labels = _labels(at, found[2] or "")
        le = labels.pop("le", None)
        value = _number(f"{at}: {name}", found[3])
        if value < 0:
            raise ConfigError(f"{at}: {name} is negative ({excerpt(found[3])})")
        key = tuple(sorted(labels.items()))
        entry = series.setdefault(key, _Series({}, line=number))
        if suffix == "_bucket":
            if le is None:
                raise ConfigError(f"{at}: a bucket without an le label")
            bound = _number(f"{at}: le", le, infinite=True)
            if bound in entry.buckets:
                raise ConfigError(f"{at}: a second le={excerpt(le)} bucket in one series "
                                  "(two scrapes in one file?); keep one")
            entry.buckets[bound] = value
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
        names = (",".join(f"{k}={v}" for k, v in key) or "-" for key in series)
        warnings.append(f"{where}: summed {len(series)} series ({listed(names)})")
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
    if any(b < a for a, b in itertools.pairwise(values)):
        raise ConfigError(f"{where}: the {ITERATION_TOKENS} buckets at line {s.line} are not "
                          "cumulative (a count falls)")
    if s.count is not None and s.count != s.buckets[math.inf]:
        raise ConfigError(f"{where}: _count {s.count:g} != +Inf bucket "
                          f"{s.buckets[math.inf]:g} (line {s.line})")


def _spread(where: str, cumulative: dict[float, float],
            total: float | None) -> tuple[dict[int, float], list[Bucket], list[str]]:
    """Per-size weights from cumulative buckets: a one-integer bucket is exact, a wider one
    is spread evenly over its integers up to MAX_SPREAD_TOKENS (its part above sits at the
    mean size of that part: `_at_mean`); steps above the last finite bound sit at the mean
    size the `_sum` leaves for them. Work grows with the buckets, never with their bounds."""
    weights: dict[int, float] = {}
    coarse: list[Bucket] = []
    warnings: list[str] = []
    low = 0  # integer sizes > low
    previous = 0.0
    accounted = 0.0  # estimated sum of sizes in finite buckets
    pooled = 0.0  # steps of wide buckets above MAX_SPREAD_TOKENS, placed at their mean
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
                spread_to = min(high, max(low, MAX_SPREAD_TOKENS))
                for n in range(low + 1, spread_to + 1):
                    weights[n] = weights.get(n, 0) + share
                if high > spread_to:
                    part = share * (high - spread_to)
                    _at_mean(weights, spread_to, high, part)
                    pooled += part
            accounted += count * (low + 1 + high) / 2
        low = high
    if pooled:
        warnings.append(f"{where}: {pooled:g} steps fall in the part of wide buckets above "
                        f"{MAX_SPREAD_TOKENS:,} tokens; graphfit spreads buckets one size at "
                        "a time only up to there, so they sit at their part's mean size")
    return weights, coarse, warnings


def _at_mean(weights: dict[int, float], low: int, high: int, part: float) -> None:
    """Add `part` steps spread evenly over sizes low+1..high as one point at their mean (two
    neighbouring points when the mean is a half): the count and the mean are kept."""
    doubled = low + 1 + high  # twice the mean
    half = doubled // 2
    if doubled % 2 == 0:
        weights[half] = weights.get(half, 0) + part
    else:
        for n in (half, half + 1):
            weights[n] = weights.get(n, 0) + part / 2


def _tail(where: str, count: float, low: int, total: float | None, accounted: float,
          weights: dict[int, float]) -> str:
    at = low + 1
    how = "no _sum to place them; put at the bound"
    if total is not None:
        mean = (total - accounted) / count
        if mean >= low + 1:
            if mean > MAX_FLOAT:  # inf too: a tiny count under a large _sum
                raise ConfigError(f"{where}: the _sum {total:g} leaves the {count:g} steps "
                                  f"above the last bucket bound {low} a mean size of "
                                  f"{mean:g} tokens, more than {MAX_FLOAT:g}; the histogram "
                                  "is inconsistent")
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
    """Whether a cell is written as a number, whatever its size (a header row has none)."""
    return _DECIMAL.fullmatch(cell.strip()) is not None


def _add_weight(at: str, weights: dict[int, float], n: int, w: float) -> None:
    """weights[n] += w, refused as soon as the sum passes what a weight may be (MAX_INT
    steps, or MAX_FLOAT as a float), naming the line that passed it."""
    total = weights.get(n, 0) + w
    if total > MAX_FLOAT and (isinstance(total, float) or total > MAX_INT):
        raise ConfigError(f"{at}: the weights of size {n} add up to {total:g}, more than "
                          f"graphfit counts ({MAX_INT} steps, or a weight of {MAX_FLOAT:g})")
    weights[n] = total


SIZE_COLUMNS = {"num_tokens": Unit.TOKENS, "batch_size": Unit.REQUESTS}


def parse_csv_trace(text: str, source: str = "trace") -> Trace:
    """CSV: a `num_tokens` column (tokens per step, vLLM) or a `batch_size` column (requests
    per decode batch, SGLang / TensorRT-LLM) -- a header is needed when there are other columns
    -- and an optional `count`/`weight` column; headerless files are `n` or `n,count` rows.

    Blank lines and lines starting with '#' are skipped.
    """
    return _csv_trace(text, source)[0]


def _csv_trace(text: str, source: str) -> tuple[Trace, Unit | None]:
    where = f"trace {source}"
    rows = _rows(where, text)  # streamed: a large trace is never held as a list of rows
    first_line, first = next(rows, (0, []))
    if not first:
        raise ConfigError(f"{where}: the CSV has no rows")
    unit: Unit | None = None
    if all(_is_number(c) for c in first):
        n_col, w_col = 0, (1 if len(first) == 2 else None)
        if len(first) > 2:
            raise ConfigError(f"{where}: line {first_line}: {len(first)} columns without "
                              "a header; add one naming num_tokens (and count or weight)")
        body: Iterator[tuple[int, list[str]]] = itertools.chain([(first_line, first)], rows)
    else:
        header = [c.strip().lower() for c in first]
        sizes = [c for c in SIZE_COLUMNS if c in header]
        if not sizes:
            raise ConfigError(f"{where}: line {first_line}: the header has no num_tokens "
                              f"(or batch_size) column (got {listed(map(repr, header))})")
        if len(sizes) > 1:
            raise ConfigError(f"{where}: both num_tokens and batch_size columns; keep one "
                              "(tokens for vLLM, requests for batch-size engines)")
        n_col, unit = header.index(sizes[0]), SIZE_COLUMNS[sizes[0]]
        present = [c for c in WEIGHT_COLUMNS if c in header]
        if len(present) > 1:
            raise ConfigError(f"{where}: both count and weight columns; keep one")
        w_col = header.index(present[0]) if present else None
        body = rows
    weights: dict[int, float] = {}
    needed = max(n_col, w_col or 0) + 1
    for line, row in body:
        at = f"{where}: line {line}"
        if len(row) < needed:
            raise ConfigError(f"{at}: expected {needed} columns, got {len(row)}")
        n = _cell_int(at, row[n_col])
        w = _cell_weight(at, row[w_col]) if w_col is not None else 1
        _add_weight(at, weights, n, w)
    if not weights:
        raise ConfigError(f"{where}: the CSV has a header but no rows")
    return Trace.from_weights(weights, source), unit


def _rows(where: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every row that is not blank or a # comment, read a piece of
    the text at a time; csv's own errors (a field over its 128 KiB limit) name the file."""
    lines = itertools.chain.from_iterable(map(io.StringIO, _chunks(text)))
    try:
        for i, row in enumerate(csv.reader(lines), start=1):
            if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#"):
                yield i, row
    except csv.Error as exc:
        raise ConfigError(f"{where}: malformed CSV ({exc})") from None


def _json_pairs(where: str, value: object) -> dict[int, float]:
    """A distribution as {"n": w}, [[n, w], ...] or [{"num_tokens": n, "count": w}, ...]."""
    out: dict[int, float] = {}

    def add(n: object, w: object) -> None:
        _add_weight(where, out, check_size(where, n), check_weight(where, w))

    if isinstance(value, dict):
        for key, w in value.items():
            if not is_int_text(key):
                raise ConfigError(f"{where}: key {excerpt(key)} is not an integer num_tokens")
            add(parse_int(f"{where}: key", key, minimum=1), w)
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


def parse_json_trace(text: str, source: str = "trace") -> Trace:
    """JSON: a list of samples; {"num_tokens": [...]} (tokens per step) or {"batch_size":
    [...]} (requests per decode batch); a list of {"num_tokens", "count"} entries; or
    {"distribution": {"n": weight} or [[n, w], ...]}, optionally with "unit": "tokens" or
    "requests".

    An object may carry "schema": "graphfit.trace/1" (any other schema is refused) and free
    "notes"/"source" strings; other keys are refused, so a typo cannot empty the trace.
    """
    return _json_trace(parse_json(text, f"trace {source}"), source)[0]


def _json_trace(doc: Any, source: str) -> tuple[Trace, Unit | None]:
    """A trace from a strictly parsed JSON document (integers and floats already bounded)."""
    where = f"trace {source}"
    if isinstance(doc, list):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in doc):
            return Trace.from_samples(doc, source), None
        return Trace.from_weights(_json_pairs(where, doc), source), None
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a JSON list or object")
    schema = doc.get("schema", TRACE_SCHEMA)
    if schema != TRACE_SCHEMA:
        raise ConfigError(f"{where}: schema must be {TRACE_SCHEMA!r}, got {excerpt(schema)}")
    unknown = sorted(set(doc) - {"schema", "notes", "source", "unit", "num_tokens",
                                 "batch_size", "distribution"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {listed(map(repr, unknown))}")
    unit: Unit | None = None
    if "unit" in doc:
        units = {u.value: u for u in Unit}
        given = doc["unit"]
        if not isinstance(given, str) or given not in units:
            raise ConfigError(f"{where}: unit must be 'tokens' or 'requests', got "
                              f"{excerpt(given)}")
        unit = units[given]
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
