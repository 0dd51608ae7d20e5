"""Glue: vLLM 0.33's own metrics output, rendered on CPU, to prove graphfit's sample traces
(examples/traces/vllm_*) are byte for byte what a vLLM server writes.

- `render_log`: each interval's `--cudagraph-metrics` table through vLLM's `CUDAGraphLogging`
  (compilation/cuda_graph.py:40-124), logged through vLLM's `NewLineFormatter` with vLLM's log
  format (logger.py:28-33), so the record's file:line is vLLM's real call site.
- `render_prometheus`: steps recorded through vLLM's `PrometheusStatLogger.record`
  (v1/metrics/loggers.py), exposed by prometheus_client as `/metrics` serves it.

vLLM is imported through `vllm_stubs.install` (the grammar engines stubbed, the session's one
first import of vLLM, the oracle's CPU platform); everything else is vLLM's real code.
"""

from __future__ import annotations

import importlib
import io
import logging
import time
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tests.oracle import vllm_stubs

Shape = tuple[int, int, int, str]  # unpadded, padded, paddings, runtime mode


def _import(root: Path, name: str) -> Any:
    vllm_stubs.install(root)
    return importlib.import_module(name)


def render_log(root: Path, *, mode: str, capture_sizes: Sequence[int],
               intervals: Iterable[tuple[float, str, tuple[str, int], Sequence[Shape]]],
               pid: int, process_name: str = "APIServer") -> str:
    """The server log: per interval (time, throughput message, its file:line, step shapes),
    the throughput line and vLLM's own cudagraph table, in vLLM's log format (UTC)."""
    cuda_graph = _import(root, "vllm.compilation.cuda_graph")
    config = _import(root, "vllm.config")
    vllm_logger = _import(root, "vllm.logger")
    formatter = _import(root, "vllm.logging_utils.formatter")

    stream = io.StringIO(newline="")
    handler = logging.StreamHandler(stream)
    fmt = formatter.NewLineFormatter(vllm_logger._FORMAT, datefmt=vllm_logger._DATE_FORMAT)
    fmt.converter = time.gmtime  # a server running with TZ=UTC: reproducible stamps
    handler.setFormatter(fmt)
    log = logging.getLogger("graphfit.oracle.vllm_metrics")
    log.handlers = [handler]
    log.propagate = False
    log.setLevel(logging.INFO)
    state: dict[str, Any] = {}

    def stamp(record: logging.LogRecord) -> bool:
        record.created = state["when"]
        record.msecs = 0.0
        record.process = pid
        record.vllm_process_name = process_name
        if "site" in state:  # a line graphfit's generator writes: its stated call site
            record.filename, record.lineno = state.pop("site")
        return True

    log.filters = [stamp]
    mode_enum = config.CUDAGraphMode[mode]
    for when, message, site, shapes in intervals:
        state["when"] = when
        state["site"] = site
        log.info(message)
        table = cuda_graph.CUDAGraphLogging(mode_enum, list(capture_sizes))
        for unpadded, padded, paddings, runtime in shapes:
            table.observe(cuda_graph.CUDAGraphStat(unpadded, padded, paddings, runtime))
        table.log(log_fn=log.info)
    handler.flush()
    return stream.getvalue()


def default_iteration_buckets(root: Path) -> list[float]:
    """vLLM's default buckets for `vllm:iteration_tokens_total` (v1/metrics/buckets.py)."""
    buckets = _import(root, "vllm.v1.metrics.buckets")
    return list(buckets.histogram_buckets("iteration_tokens"))


def render_prometheus(root: Path, steps: Iterable[tuple[int, int]], *,
                      buckets: Sequence[float] | None, model: str) -> str:
    """`/metrics` after vLLM's PrometheusStatLogger recorded one IterationStats per step with
    outputs: (prompt tokens of the prefills finishing in it, tokens generated)."""
    loggers = _import(root, "vllm.v1.metrics.loggers")
    stats = _import(root, "vllm.v1.metrics.stats")
    prometheus = _import(root, "vllm.v1.metrics.prometheus")
    import prometheus_client

    observability = types.SimpleNamespace(
        show_hidden_metrics=False, kv_cache_metrics=False, enable_mfu_metrics=False,
        cudagraph_metrics=False,
        custom_histogram_buckets=None if buckets is None else {"iteration_tokens": list(buckets)})
    vllm_config = types.SimpleNamespace(
        observability_config=observability,
        model_config=types.SimpleNamespace(served_model_name=model, max_model_len=8192,
                                           is_diffusion=False),
        speculative_config=None, kv_transfer_config=None, ec_transfer_config=None,
        cache_config=types.SimpleNamespace(num_gpu_blocks=16384), lora_config=None,
        parallel_config=types.SimpleNamespace(data_parallel_size=1), watermark_config=None)
    stat_logger = loggers.PrometheusStatLogger(vllm_config, [0])
    try:
        for prompt, generated in steps:
            iteration = stats.IterationStats()
            iteration.num_generation_tokens = generated
            if prompt:
                iteration.prompt_token_stats.update_from_output(
                    stats.PrefillStats(num_prompt_tokens=prompt, num_computed_tokens=prompt))
            stat_logger.record(scheduler_stats=None, iteration_stats=iteration, engine_idx=0)
        text: str = prometheus_client.generate_latest(prometheus_client.REGISTRY).decode()
    finally:
        prometheus.unregister_vllm_metrics()
    return text
