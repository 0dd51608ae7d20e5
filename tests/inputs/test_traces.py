"""Trace files: every format reduces to the same distribution, the format is told from the
content, vLLM's own logs and metrics read exactly (or say how they are not); bad input is a
ConfigError."""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, Unit, plan
from graphfit.inputs.traces import (
    TraceFormat,
    load_trace,
    parse_csv_trace,
    parse_json_trace,
    parse_trace,
    read_trace,
)
from graphfit.planner.tuning.trace import Trace
from tests.helpers import ROOT, load_module

TRACES = ROOT / "examples" / "traces"


@functools.cache
def _generator() -> ModuleType:
    """The generator, loaded once (its simulations are cached inside)."""
    return load_module(TRACES / "generate.py", "trace_generate")


samples_st = st.lists(st.integers(1, 300), min_size=1, max_size=80)


def _as_dict(trace: Trace) -> dict[int, float]:
    return dict(zip(trace.sizes, trace.weights))


@given(samples_st)
def test_every_format_gives_the_same_distribution(samples: list[int]) -> None:
    expected = dict(Counter(samples))
    counts = Counter(samples)
    formats = [
        parse_csv_trace("\n".join(map(str, samples))),
        parse_csv_trace("step,num_tokens,num_reqs\n"
                        + "\n".join(f"{i},{n},1" for i, n in enumerate(samples))),
        parse_csv_trace("\n".join(f"{n},{c}" for n, c in counts.items())),
        parse_csv_trace("num_tokens,count\n" + "\n".join(f"{n},{c}" for n, c in counts.items())),
        parse_json_trace(json.dumps(samples)),
        parse_json_trace(json.dumps({"schema": "graphfit.trace/1", "num_tokens": samples})),
        parse_json_trace(json.dumps({"distribution": {str(n): c for n, c in counts.items()}})),
        parse_json_trace(json.dumps({"distribution": [[n, c] for n, c in counts.items()]})),
        parse_json_trace(json.dumps([{"num_tokens": n, "count": c} for n, c in counts.items()])),
    ]
    for trace in formats:
        assert _as_dict(trace) == expected
        assert list(trace.sizes) == sorted(expected)
        assert trace.total_weight == len(samples)
        assert trace.mean == pytest.approx(sum(samples) / len(samples))


def test_probability_weights_and_comments() -> None:
    text = "# a comment\n\nnum_tokens,weight\n4,0.25\n8,0.75\n4,0.0\n"
    trace = parse_csv_trace(text)
    assert _as_dict(trace) == {4: 0.25, 8: 0.75}
    assert _as_dict(parse_json_trace('{"distribution": {"3": 0.5, "9": 0}}')) == {3: 0.5}


@pytest.mark.parametrize(("text", "message"), [
    ("", "no rows"),
    ("num_tokens\n", "header but no rows"),
    ("size,count\n1,2\n", "no num_tokens \\(or batch_size\\) column"),
    ("num_tokens,batch_size\n1,2\n", "keep one"),
    ("1,2,3\n", "without a header"),
    ("num_tokens\n5\nfive\n", "line 3"),
    ("num_tokens\n0\n", "positive integer"),
    ("num_tokens\n-4\n", "positive integer"),
    ("num_tokens\n2.5\n", "not a positive integer"),
    ("num_tokens,count\n4,-1\n", ">= 0"),
    ("num_tokens,count\n4,nan\n", "finite"),
    ("num_tokens,count\n4,lots\n", "not a number"),
    ("num_tokens,count,weight\n4,1,1\n", "keep one"),
    ("step,num_tokens\n1\n", "expected 2 columns"),
    ("num_tokens,count\n4,0\n", "positive weight"),
])
def test_bad_csv_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_csv_trace(text, "t.csv")


@pytest.mark.parametrize(("doc", "message"), [
    ("[1, 2", "malformed JSON"),
    ("[]", "no batch sizes"),
    ("5", "list or object"),
    ('{"schema": "other/1", "num_tokens": [1]}', "schema"),
    ('{"num_tokens": [1], "distribution": {"1": 1}}', "exactly one"),
    ('{"distrib": {"1": 1}}', "unknown key"),
    ('{"num_tokens": 5}', "list of integers"),
    ('{"num_tokens": [1, true]}', "positive integer"),
    ('[1, 2.5]', "not \\[n, weight\\]"),
    ('{"distribution": {"x": 1}}', "not an integer"),
    ('{"distribution": {"4": -1}}', ">= 0"),
    ('{"distribution": {"4": "1"}}', "must be a number"),
    ('{"distribution": 7}', "object or a list"),
    ('[{"num_tokens": 4, "count": 1, "extra": 2}]', "unexpected keys"),
    ('[[0, 1]]', "positive integer"),
    ('{"batch_size": [1], "unit": "tokens"}', "but unit says tokens"),
    ('{"distribution": {"1": 1}, "unit": "steps"}', "unit must be"),
    ('{"batch_size": [1], "num_tokens": [1]}', "exactly one"),
])
def test_bad_json_names_the_problem(doc: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_json_trace(doc, "t.json")


def test_a_trace_says_what_its_sizes_count() -> None:
    cases = {"num_tokens\n3\n": Unit.TOKENS, "step,batch_size\n0,3\n": Unit.REQUESTS,
             "3\n": None, '{"batch_size": [3]}': Unit.REQUESTS, "[3]": None,
             '{"distribution": {"3": 1}, "unit": "requests"}': Unit.REQUESTS}
    for text, unit in cases.items():
        reading = parse_trace(text, "t")
        assert reading.unit is unit and _as_dict(reading.trace) == {3: 1}, text


def test_the_format_is_told_by_the_content_not_the_name(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("num_tokens\n3\n3\n")
    (tmp_path / "a.json").write_text("[3, 3]")
    (tmp_path / "a.log").write_text("[3, 3]")
    (tmp_path / "b.log").write_text("3\n3\n")
    (tmp_path / "c.csv").write_text('{"distribution": {"3": 2}}')
    (tmp_path / "d.json").write_text(_log_text([(3, 4, "FULL", 2)]))
    (tmp_path / "e.txt").write_text(_prom_text({1: 0, 2: 0, 3: 2, 4: 0}))
    for name in ("a.csv", "a.json", "a.log", "b.log", "c.csv", "d.json", "e.txt"):
        trace = load_trace(tmp_path / name)
        assert _as_dict(trace) == {3: 2} and trace.source == name
    assert [read_trace(tmp_path / n).format for n in ("c.csv", "d.json", "e.txt", "b.log")] == [
        TraceFormat.JSON, TraceFormat.VLLM_LOG, TraceFormat.PROMETHEUS, TraceFormat.CSV]
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(ConfigError, match="UTF-16"):
        load_trace(tmp_path / "bin.csv")
    with pytest.raises(ConfigError, match="No such file"):
        load_trace(tmp_path / "missing.csv")


def test_committed_traces_regenerate_byte_for_byte(tmp_path: Path) -> None:
    """The example traces are what generate.py writes with its fixed seeds."""
    generator = _generator()
    for path in generator.write_all(tmp_path):
        assert path.read_bytes() == (TRACES / path.name).read_bytes(), path.name
    for w in generator.WORKLOADS:
        assert load_trace(TRACES / w.file_name).total_weight == w.steps


# --- vLLM's --cudagraph-metrics log ---------------------------------------------------------

PREFIX = "(APIServer pid=7) INFO 06-01 12:00:10 [cuda_graph.py:123] "
SIZES_64 = plan(EngineConfig(max_num_seqs=64)).config_capture_sizes


def _log_text(rows: list[tuple[int, int, str, int]], *, mode: str = "FULL_AND_PIECEWISE",
              sizes: tuple[int, ...] = SIZES_64, intervals: int = 1) -> str:
    """A log in vLLM's format (the generator's writer, proven against vLLM's own code in
    tests/oracle/test_trace_formats.py): rows (unpadded, padded, mode, count) per interval."""
    generator = _generator()
    shapes = [(u, p, p - u, m) for u, p, m, c in rows for _ in range(c)]
    table = generator.metrics_table(mode, list(sizes), shapes)
    record = generator.log_record(1748779210.0, ("cuda_graph.py", 123), table)
    other = generator.log_record(1748779210.0, ("loggers.py", 335), "Engine 000: Running: 3 reqs")
    return (other + record) * intervals


def test_vllm_log_sums_every_interval_and_row() -> None:
    text = _log_text([(3, 4, "FULL", 5), (4, 4, "FULL", 2), (3, 4, "PIECEWISE", 1),
                      (700, 700, "NONE", 1)], intervals=3)
    assert "\r\n" in text and text.count("CUDAGraph Stats") == 3
    reading = parse_trace(text, "server.log")
    assert reading.format is TraceFormat.VLLM_LOG
    assert _as_dict(reading.trace) == {3: 18, 4: 6, 700: 3}
    assert reading.logged[0].capture_sizes == SIZES_64 and not reading.warnings
    assert reading.shapes is not None and reading.shapes[(3, 4, "FULL")] == 15
    trace, warnings = reading.for_config(EngineConfig(max_num_seqs=64))
    assert trace == reading.trace and warnings == ()


@given(st.lists(st.integers(1, 512), min_size=1, max_size=60))
def test_vllm_log_round_trips_any_steps(samples: list[int]) -> None:
    p = plan(EngineConfig(max_num_seqs=64))
    rows = []
    for n, c in Counter(samples).items():
        d = p.pad(n)
        rows.append((n, d.padded, d.mode.value, c))
    reading = parse_trace(_log_text(rows), "s.log")
    assert _as_dict(reading.trace) == dict(Counter(samples))
    assert reading.for_config(p.config)[1] == ()


def test_vllm_log_checked_against_the_config() -> None:
    reading = parse_trace(_log_text([(3, 4, "FULL", 5)]), "s.log")
    _, warnings = reading.for_config(EngineConfig(max_num_seqs=8))
    assert any("capture sizes differ" in w and "only in the log: 24" in w for w in warnings)
    _, warnings = reading.for_config(EngineConfig(max_num_seqs=64, cudagraph_mode="PIECEWISE"))
    assert any("cudagraph mode FULL_AND_PIECEWISE differs" in w for w in warnings)
    strays = parse_trace(_log_text([(3, 5, "FULL", 5)]), "s.log")
    assert any("graphs of 5 tokens" in w for w in strays.for_config(EngineConfig(
        max_num_seqs=64))[1])
    with pytest.raises(ConfigError, match="counts tokens per step"):
        reading.for_config(EngineConfig(engine="sglang", max_num_seqs=64))
    # the V1 runner's rounded list (in-process engines log it) is accepted too
    spec = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="eagle",
                        runner="v1", engine_version="0.33.0")
    rounded = plan(spec).capture_sizes
    assert rounded != plan(spec).config_capture_sizes
    reading = parse_trace(_log_text([(4, 4, "FULL", 1)], sizes=rounded), "s.log")
    assert reading.for_config(spec)[1] == ()


def test_vllm_log_from_two_settings_warns() -> None:
    text = _log_text([(3, 4, "FULL", 1)]) + _log_text([(3, 4, "FULL", 1)], sizes=(1, 2, 4))
    reading = parse_trace(text, "s.log")
    assert _as_dict(reading.trace) == {3: 2}
    assert any("2 different settings" in w for w in reading.warnings)


@pytest.mark.parametrize(("text", "message"), [
    (PREFIX + "Avg prompt throughput: 1.0 tokens/s\n", "--cudagraph-metrics"),
    (PREFIX + "| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |\n"
     + PREFIX + "|---|---|---|---|---|\n" + PREFIX + "| 3 | 4 | 1 | FULL | x |\n", "line 3"),
    (PREFIX + "| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |\n"
     + PREFIX + "| 3 | 4 | 2 | FULL | 1 |\n", "inconsistent"),
    (PREFIX + "| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |\n"
     + PREFIX + "| 0 | 0 | 0 | NONE | 4 |\n", "no step with tokens"),
    (PREFIX + "- Mode: FULL\n" + PREFIX + "- Capture sizes: [1, x]\n", "not integers"),
])
def test_bad_vllm_logs_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_trace(text, "s.log")


# --- Prometheus text from vLLM's /metrics ---------------------------------------------------

def _prom_text(counts: dict[float, int], *, total: float | None = None,
               labels: str = 'engine="0",model_name="m"') -> str:
    """An iteration-tokens histogram: per-bucket counts by upper bound (cumulated here)."""
    lines = ["# HELP vllm:iteration_tokens_total Histogram of number of tokens per engine_step.",
             "# TYPE vllm:iteration_tokens_total histogram"]
    running = 0
    for le, c in sorted(counts.items()):
        running += c
        bound = "+Inf" if le == math.inf else f"{float(le)!r}"
        lines.append(f'vllm:iteration_tokens_total_bucket{{{labels},le="{bound}"}} {running}.0')
    if math.inf not in counts:
        lines.append(f'vllm:iteration_tokens_total_bucket{{{labels},le="+Inf"}} {running}.0')
    lines.append(f"vllm:iteration_tokens_total_count{{{labels}}} {running}.0")
    if total is not None:
        lines.append(f"vllm:iteration_tokens_total_sum{{{labels}}} {total}")
    lines.append(f"vllm:iteration_tokens_total_created{{{labels}}} 1.7e+09")
    return "\n".join(lines) + "\n"


@given(st.lists(st.integers(1, 64), min_size=1, max_size=80))
def test_unit_buckets_are_exact(samples: list[int]) -> None:
    counts = Counter(samples)
    reading = parse_trace(_prom_text({n: counts.get(n, 0) for n in range(1, 65)}), "m.prom")
    assert reading.format is TraceFormat.PROMETHEUS and reading.coarse == ()
    assert _as_dict(reading.trace) == dict(counts)
    assert all(isinstance(w, int) for w in reading.trace.weights)  # exact integer costs
    _, warnings = reading.for_config(EngineConfig(max_num_seqs=16))
    assert not any("bucket" in w for w in warnings)
    assert any("not the tokens it schedules" in w for w in warnings)


def test_coarse_buckets_are_spread_and_say_how_much() -> None:
    reading = parse_trace(_prom_text({1: 4, 8: 14, 16: 8, 32: 0, 64: 16}), "m.prom")
    weights = _as_dict(reading.trace)
    assert weights[1] == 4 and weights[2] == weights[8] == 2 and weights[9] == 1
    assert weights[33] == weights[64] == 0.5 and reading.trace.total_weight == 42
    assert [(b.low, b.high) for b in reading.coarse] == [(1, 8), (8, 16), (32, 64)]
    _, warnings = reading.for_config(EngineConfig(max_num_seqs=8))  # max capture size 16
    assert any("84.6% of the steps up to the max capture size 16" in w
               and "(1, 8], (8, 16];" in w and "[1, 2, ..., 16]" in w for w in warnings)
    # buckets above the max capture size hold eager steps only: no warning about them
    exact_below = parse_trace(_prom_text({**{n: 1 for n in range(1, 17)}, 64: 9}), "m.prom")
    assert exact_below.coarse and not any(
        "bucket" in w for w in exact_below.for_config(EngineConfig(max_num_seqs=8))[1])


def test_series_are_summed_and_the_tail_placed_by_the_sum() -> None:
    one = _prom_text({1: 2, 2: 1}, total=2 + 2 + 100, labels='engine="0",model_name="m"')
    two = _prom_text({1: 1, 2: 0, math.inf: 1}, total=1 + 50,
                     labels='engine="1",model_name="m"')
    reading = parse_trace(one + two.split("\n", 2)[2], "dp.prom")
    assert _as_dict(reading.trace) == {1: 3, 2: 1, 150: 1}  # the tail's mean over both
    assert any("summed 2 series" in w for w in reading.warnings)
    assert any("above the last bucket bound 2" in w for w in reading.warnings)


def test_prometheus_checks_against_the_config() -> None:
    reading = parse_trace(_prom_text({1: 2, 4: 3, 5000: 5, 9000: 1}, total=None), "m.prom")
    spec = EngineConfig(max_num_seqs=8, num_speculative_tokens=3, spec_method="eagle",
                        max_num_batched_tokens=4096)
    trace, warnings = reading.for_config(spec)
    assert trace.max_size == 4096
    assert trace.total_weight == pytest.approx(reading.trace.total_weight)
    assert any("understates decode sizes" in w for w in warnings)
    assert any("count more than max_num_batched_tokens 4096" in w for w in warnings)


@pytest.mark.parametrize(("text", "message"), [
    ("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3.0\n",
     "no vllm:iteration_tokens_total histogram"),
    ('vllm:iteration_tokens_total_bucket{le="1.0"} 3.0\n', "has no le="),
    ('vllm:iteration_tokens_total_bucket{le="1.0"} 3.0\n'
     'vllm:iteration_tokens_total_bucket{le="+Inf"} 2.0\n', "not cumulative"),
    ('vllm:iteration_tokens_total_bucket{le="1.0"} 3.0\n'
     'vllm:iteration_tokens_total_bucket{le="+Inf"} 3.0\n'
     "vllm:iteration_tokens_total_count 4.0\n", "_count 4"),
    ('vllm:iteration_tokens_total_bucket{le="+Inf"} 0.0\n', "holds no steps"),
    ('vllm:iteration_tokens_total_bucket{le="1.0"} many\n', "not a number"),
    ('vllm:iteration_tokens_total_bucket{le=1} 3.0\n', "malformed labels"),
    ('vllm:iteration_tokens_total_bucket{engine="0"} 3.0\n', "without an le"),
    ('vllm:iteration_tokens_total_bucket{le="1.0",engine="0"} 3.0\n'
     'vllm:iteration_tokens_total_bucket{le="+Inf",engine="0"} 3.0\n'
     'vllm:iteration_tokens_total_bucket{le="+Inf",engine="1"} 3.0\n', "different buckets"),
])
def test_bad_prometheus_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_trace(text, "m.prom")


# --- the committed server samples -----------------------------------------------------------

def test_server_samples_read_back_what_was_simulated() -> None:
    generator = _generator()
    log, exact, default, batches = generator.SERVER_SAMPLES
    steps = generator.server_steps(log)
    reading = read_trace(TRACES / log.file_name)
    assert _as_dict(reading.trace) == dict(Counter(s.num_tokens for s in steps))
    # the CSV of the same simulation starts with the same steps
    assert reading.trace.total_weight == 3000 == log.steps
    assert reading.for_config(generator.workload_config(log.workload))[1] == ()

    observed = Counter(s.iteration_tokens for s in generator.server_steps(exact)
                       if s.has_outputs)
    reading = read_trace(TRACES / exact.file_name)
    weights = _as_dict(reading.trace)
    assert {n: w for n, w in weights.items() if n <= 512} == \
        {n: c for n, c in observed.items() if n <= 512}
    assert reading.trace.total_weight == sum(observed.values())
    _, warnings = reading.for_config(generator.workload_config(exact.workload))
    assert not any("known only to within a bucket" in w for w in warnings)

    reading = read_trace(TRACES / default.file_name)
    _, warnings = reading.for_config(generator.workload_config(default.workload))
    assert any("known only to within a bucket" in w for w in warnings)

    # decode batches in requests: a batch-size engine's trace, refused for vLLM's tokens
    reading = read_trace(TRACES / batches.file_name)
    assert reading.unit is Unit.REQUESTS
    assert _as_dict(reading.trace) == dict(Counter(
        s.decode_reqs for s in generator.server_steps(batches) if s.decode_reqs))
    with pytest.raises(ConfigError, match="counts requests per step"):
        reading.for_config(generator.workload_config(batches.workload))
