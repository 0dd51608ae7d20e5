"""Regenerate the synthetic batch-size traces in this folder (fixed seeds).

    PYTHONPATH=. python examples/traces/generate.py

Each trace comes from a small simulation of vLLM's V1 scheduler with chunked prefill: requests
arrive as a Poisson process whose rate drifts (a slow cycle plus bursts), running requests
decode first (q = 1 + k tokens each, spec decode accepting each draft token with probability
`accept`), and the rest of the step's token budget T goes to prefill chunks, continuing
partial prefills before admitting new requests while fewer than S run. A step's num_tokens
is what the engine would pad to a capture size. The files are synthetic, not production logs;
the workload shapes (prompt/output length distributions, load) are stated below.

Besides graphfit's CSV/JSON, the same simulations are written in the formats a vLLM 0.33
server records itself (`SERVER_SAMPLES`):
- `vllm_cudagraph_metrics.log`: the log of `vllm serve --cudagraph-metrics`, one
  `CUDAGraphLogging` table per 10-second interval (here: every 400 steps), each row's padded
  size and runtime mode from graphfit's plan of the workload's config;
- `vllm_metrics_*.prom`: `/metrics` as Prometheus text, the `vllm:iteration_tokens_total`
  histogram fed what vLLM observes per step with outputs (prompt tokens of the prefills that
  finish in it plus generated tokens, not the scheduled tokens), once with
  `--custom-histogram-buckets` (one-token buckets up to the max capture size 512) and once with
  vLLM's default buckets;
- `decode_batches.csv`: the chat simulation's decode batches in requests (`batch_size,count`), the
  trace a batch-size engine (SGLang, TensorRT-LLM) optimises on.
The writers are graphfit's own; tests/oracle/test_trace_formats.py renders the same steps with
vLLM's own code (CUDAGraphLogging, its log formatter, PrometheusStatLogger) and checks the
files match it byte for byte.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from graphfit import EngineConfig

HERE = Path(__file__).resolve().parent
# the vLLM release whose server the traces simulate (its ladders, its log formats)
RELEASE = "0.33.0"


@dataclass(frozen=True)
class Workload:
    name: str
    seed: int
    steps: int
    max_num_seqs: int  # S
    max_num_batched_tokens: int  # T
    num_speculative_tokens: int  # k
    mean_arrivals: float  # requests per step at the mean load
    prompt_median: float  # lognormal prompt length (tokens after prefix caching)
    prompt_sigma: float
    output_median: float
    output_sigma: float
    accept: float = 0.7  # per-draft-token acceptance probability
    max_model_len: int = 8192
    method: str = "eagle"  # the spec-decode method, when k > 0

    @property
    def file_name(self) -> str:
        return f"{self.name}.json" if self.name.startswith("interactive") else f"{self.name}.csv"

    def config_flags(self) -> list[str]:
        """The engine flags the trace was simulated for (pass them to `graphfit optimize`)."""
        flags = ["--engine-version", RELEASE, "--max-num-seqs", str(self.max_num_seqs),
                 "--max-num-batched-tokens", str(self.max_num_batched_tokens)]
        if self.num_speculative_tokens:
            flags += ["--num-speculative-tokens", str(self.num_speculative_tokens),
                      "--method", self.method]
        return flags


@dataclass
class Request:
    prompt_left: int
    output_left: int
    prompt: int = 0  # the whole prompt (what vLLM's metrics count when the prefill finishes)
    cached: int = 0  # tokens held in the KV cache


class Step(NamedTuple):
    """One non-idle engine step of the simulation."""

    num_tokens: int  # scheduled tokens: what the runner pads to a capture size
    num_reqs: int
    decode_only: int
    prompt_tokens: int  # prompt tokens vLLM's metrics count: prompts whose prefill finished
    generated: int  # tokens generated (accepted + bonus; 1 for a finished prefill)
    running: int
    waiting: int
    kv_tokens: int
    decode_reqs: int  # requests decoding in the step: a batch-size engine's decode batch

    @property
    def has_outputs(self) -> bool:
        """vLLM observes iteration stats only for steps with outputs (async_llm.py:884)."""
        return self.generated > 0

    @property
    def iteration_tokens(self) -> int:
        """What vllm:iteration_tokens_total observes (v1/metrics/loggers.py:1273-1276)."""
        return self.prompt_tokens + self.generated


def _lognormal(rng: random.Random, median: float, sigma: float, cap: int) -> int:
    return max(1, min(cap, round(median * math.exp(rng.gauss(0.0, sigma)))))


def _poisson(rng: random.Random, lam: float) -> int:
    # Knuth's method: fine for the small rates used here
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def simulate(w: Workload) -> list[Step]:
    """Every non-idle engine step, in order."""
    rng = random.Random(w.seed)
    q = 1 + w.num_speculative_tokens
    waiting: list[Request] = []
    running: list[Request] = []
    out: list[Step] = []
    burst = 0
    step = 0
    while len(out) < w.steps:
        step += 1
        cycle = 1.0 + 0.6 * math.sin(2 * math.pi * step / 3000.0)
        if burst == 0 and rng.random() < 0.002:
            burst = rng.randint(50, 300)
        rate = w.mean_arrivals * cycle * (2.5 if burst else 1.0)
        burst = max(0, burst - 1)
        for _ in range(_poisson(rng, rate)):
            prompt = _lognormal(rng, w.prompt_median, w.prompt_sigma, w.max_model_len // 2)
            output = _lognormal(rng, w.output_median, w.output_sigma, w.max_model_len // 2)
            waiting.append(Request(prompt, output, prompt))
        budget = w.max_num_batched_tokens
        decode = [r for r in running if r.prompt_left == 0]
        decode_tokens = scheduled = generated = finished_prompts = 0
        for r in decode:
            if budget < q:
                break
            budget -= q
            decode_tokens += q
            scheduled += 1
            accepted = 0
            while accepted < w.num_speculative_tokens and rng.random() < w.accept:
                accepted += 1
            r.output_left -= accepted + 1
            r.cached += accepted + 1
            generated += accepted + 1
        prefill_tokens = 0
        admitted: list[Request] = []
        for r in running:  # continue partial prefills first
            if r.prompt_left and budget:
                chunk = min(r.prompt_left, budget)
                r.prompt_left -= chunk
                budget -= chunk
                prefill_tokens += chunk
                scheduled += 1
                admitted.append(r)
        while waiting and budget and len(running) < w.max_num_seqs:
            r = waiting.pop(0)
            chunk = min(r.prompt_left, budget)
            r.prompt_left -= chunk
            budget -= chunk
            prefill_tokens += chunk
            scheduled += 1
            running.append(r)
            admitted.append(r)
        for r in admitted:
            r.cached = r.prompt - r.prompt_left
            if r.prompt_left == 0:  # the prefill finished: the first token comes out
                finished_prompts += r.prompt
                generated += 1
        running = [r for r in running if r.output_left > 0]
        total = decode_tokens + prefill_tokens
        if total:
            out.append(Step(total, scheduled, int(prefill_tokens == 0), finished_prompts,
                            generated, len(running), len(waiting),
                            sum(r.cached for r in running), decode_tokens // q))
    return out


WORKLOADS = (
    # decode-heavy serving with EAGLE spec decode (k=3, q=4): short cached prompts, long
    # answers; most steps are uniform decodes of r*4 tokens
    Workload("decode_heavy_spec", seed=50488, steps=12000, max_num_seqs=64,
             max_num_batched_tokens=8192, num_speculative_tokens=3, mean_arrivals=0.12,
             prompt_median=120, prompt_sigma=0.9, output_median=350, output_sigma=0.8),
    # chat with chunked prefill (T=2048): long prompts split into chunks beside the decodes
    Workload("chat_chunked_prefill", seed=57355, steps=12000, max_num_seqs=256,
             max_num_batched_tokens=2048, num_speculative_tokens=0, mean_arrivals=0.35,
             prompt_median=700, prompt_sigma=1.1, output_median=220, output_sigma=0.9),
    # low-concurrency interactive serving: small batches, written as a distribution
    Workload("interactive_low_concurrency", seed=54933, steps=20000, max_num_seqs=32,
             max_num_batched_tokens=8192, num_speculative_tokens=0, mean_arrivals=0.02,
             prompt_median=60, prompt_sigma=0.8, output_median=300, output_sigma=0.7),
)


def write_step_log(w: Workload, steps: list[Step], folder: Path) -> Path:
    path = folder / w.file_name
    with path.open("w", newline="") as f:
        f.write(f"# synthetic: examples/traces/generate.py, seed {w.seed}, S={w.max_num_seqs}, "
                f"T={w.max_num_batched_tokens}, k={w.num_speculative_tokens}\n")
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["step", "num_tokens", "num_reqs", "decode_only"])
        for i, step in enumerate(steps):
            writer.writerow([i, step.num_tokens, step.num_reqs, step.decode_only])
    return path


def write_distribution(w: Workload, steps: list[Step], folder: Path) -> Path:
    path = folder / w.file_name
    counts = Counter(step.num_tokens for step in steps)
    doc = {
        "schema": "graphfit.trace/1",
        "notes": f"synthetic: examples/traces/generate.py, seed {w.seed}, S={w.max_num_seqs}, "
                 f"T={w.max_num_batched_tokens}, k={w.num_speculative_tokens}",
        "distribution": {str(n): c for n, c in sorted(counts.items())},
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


# --- what a vLLM 0.33 server records ---------------------------------------------------------

# vLLM's default iteration-tokens buckets (v1/metrics/buckets.py:107-121; the oracle test
# checks them against vLLM's own `histogram_buckets`)
DEFAULT_ITERATION_BUCKETS: tuple[float, ...] = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                                4096, 8192, 16384)
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
PID = 4127  # the API server's pid in the log prefix
START = 1748779200.0  # 2025-06-01 12:00:00 UTC: the first logging interval starts here
INTERVAL_STEPS = 400  # steps per 10-second logging interval (25 ms per step)
INTERVAL_S = 10.0
KV_CAPACITY = 262144  # tokens the KV cache holds (for the "KV cache usage" figure)
# where vLLM 0.33 logs from: the table (compilation/cuda_graph.py:123) and the throughput line
# (v1/metrics/loggers.py:335)
TABLE_SITE = ("cuda_graph.py", 123)
THROUGHPUT_SITE = ("loggers.py", 335)


@dataclass(frozen=True)
class ServerSample:
    """A file in a vLLM server's own format: the first `steps` steps of `workload`."""

    file_name: str
    workload: Workload
    steps: int
    kind: str  # "log" or "prometheus"
    buckets: tuple[float, ...] | None = None  # Prometheus: custom buckets (None: vLLM's)


def _workload(name: str) -> Workload:
    return next(w for w in WORKLOADS if w.name == name)


SERVER_SAMPLES = (
    # the EAGLE k=3 decode-heavy server, first 3000 steps (its CSV's first 3000 rows)
    ServerSample("vllm_cudagraph_metrics.log", _workload("decode_heavy_spec"), 3000, "log"),
    # the chat server (max capture size 512), exact up to 512, coarse above
    ServerSample("vllm_metrics_exact.prom", _workload("chat_chunked_prefill"), 12000,
                 "prometheus", (*range(1, 513), 1024, 2048, 4096, 8192)),
    ServerSample("vllm_metrics_default.prom", _workload("chat_chunked_prefill"), 12000,
                 "prometheus"),
    # the chat server's decode batches in requests: what SGLang's / TensorRT-LLM's decode
    # graphs (captured per batch size) see
    ServerSample("decode_batches.csv", _workload("chat_chunked_prefill"), 12000,
                 "decode-batches"),
)


def step_shapes(w: Workload, steps: Sequence[Step]) -> list[tuple[int, int, int, str]]:
    """(unpadded, padded, paddings, runtime mode) per step, as vLLM's V1 runner records them
    (gpu_model_runner.py:3772-3778), from graphfit's plan of the workload's config."""
    from graphfit import plan

    p = plan(workload_config(w))
    out = []
    for step in steps:
        d = p.pad(step.num_tokens, uniform_decode=bool(step.decode_only))
        out.append((step.num_tokens, d.padded, d.padded - step.num_tokens, d.mode.value))
    return out


def workload_config(w: Workload) -> EngineConfig:
    """The EngineConfig the workload's server runs."""
    from graphfit import EngineConfig

    return EngineConfig(max_num_seqs=w.max_num_seqs, engine_version=RELEASE,
                        max_num_batched_tokens=w.max_num_batched_tokens,
                        num_speculative_tokens=w.num_speculative_tokens,
                        spec_method=w.method if w.num_speculative_tokens else "none")


def logged_settings(w: Workload) -> tuple[str, list[int]]:
    """The mode and capture sizes the front-end's config holds (cuda_graph.py:58-64)."""
    from graphfit import plan

    p = plan(workload_config(w))
    return p.config.cudagraph_mode.value, list(p.config_capture_sizes)


def metrics_table(mode: str, sizes: list[int], shapes: Sequence[tuple[int, int, int, str]]) -> str:
    """One interval's --cudagraph-metrics message: settings, then a row per distinct shape,
    most frequent first (ties in order of first appearance), columns padded to width."""
    headers = ["Unpadded Tokens", "Padded Tokens", "Num Paddings", "Runtime Mode", "Count"]
    counts = Counter(shapes)
    rows = [[str(u), str(p), str(n), m, str(c)]
            for (u, p, n, m), c in sorted(counts.items(), key=lambda kv: kv[1], reverse=True)]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(wd) for c, wd in zip(cells, widths)) + " |"

    return ("**CUDAGraph Config Settings:**\n\n"
            f"- Mode: {mode}\n- Capture sizes: {sizes}\n\n**CUDAGraph Stats:**\n\n"
            + line(headers) + "\n" + "|" + "|".join("-" * (wd + 2) for wd in widths) + "|\n"
            + "\n".join(line(r) for r in rows) + "\n")


def log_record(when: float, site: tuple[str, int], message: str) -> str:
    """A log record as vLLM's NewLineFormatter writes it: the prefix (logger.py:28-33) on
    every line of the message, lines joined by CR LF (logging_utils/formatter.py:77)."""
    stamp = time.strftime("%m-%d %H:%M:%S", time.gmtime(when))
    prefix = f"(APIServer pid={PID}) INFO {stamp} [{site[0]}:{site[1]}] "
    return prefix + message.replace("\n", "\r\n" + prefix) + "\n"


def throughput_message(steps: Sequence[Step]) -> str:
    """The stat logger's interval line (our figures, vLLM's wording at loggers.py:282-321)."""
    last = steps[-1]
    prompt = sum(s.prompt_tokens for s in steps) / INTERVAL_S
    generated = sum(s.generated for s in steps) / INTERVAL_S
    return (f"Engine 000: Avg prompt throughput: {prompt:.1f} tokens/s, Avg generation "
            f"throughput: {generated:.1f} tokens/s, Running: {last.running} reqs, Waiting: "
            f"{last.waiting} reqs, GPU KV cache usage: {100 * last.kv_tokens / KV_CAPACITY:.1f}%")


def intervals(steps: Sequence[Step]) -> list[tuple[float, list[Step]]]:
    """(log time, steps) of each logging interval."""
    return [(START + INTERVAL_S * (i // INTERVAL_STEPS + 1), list(steps[i:i + INTERVAL_STEPS]))
            for i in range(0, len(steps), INTERVAL_STEPS)]


def write_vllm_log(sample: ServerSample, steps: Sequence[Step], folder: Path) -> Path:
    w = sample.workload
    mode, sizes = logged_settings(w)
    shapes = step_shapes(w, steps)
    path = folder / sample.file_name
    with path.open("w", newline="") as f:
        for i, (when, chunk) in enumerate(intervals(steps)):
            f.write(log_record(when, THROUGHPUT_SITE, throughput_message(chunk)))
            start = i * INTERVAL_STEPS
            table = metrics_table(mode, sizes, shapes[start:start + len(chunk)])
            f.write(log_record(when, TABLE_SITE, table))
    return path


def go_float(value: float) -> str:
    """A sample value as prometheus_client writes it (Go's float formatting)."""
    if value == math.inf:
        return "+Inf"
    text = repr(float(value))
    dot = text.find(".")
    if value > 0 and dot > 6:
        mantissa = f"{text[0]}.{text[1:dot]}{text[dot + 1:]}".rstrip("0.")
        return f"{mantissa}e+0{dot - 1}"
    return text


def histogram_lines(name: str, help_text: str, labels: dict[str, str],
                    buckets: Sequence[float], values: Sequence[int]) -> list[str]:
    """A prometheus_client histogram family (labels sorted by name, as it writes them)."""
    def lab(extra: dict[str, str]) -> str:
        merged = {**labels, **extra}
        return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(merged.items())) + "}"

    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
    for bound in (*buckets, math.inf):
        count = sum(1 for v in values if v <= bound)
        lines.append(f"{name}_bucket{lab({'le': go_float(bound)})} {go_float(count)}")
    lines.append(f"{name}_count{lab({})} {go_float(len(values))}")
    lines.append(f"{name}_sum{lab({})} {go_float(sum(values))}")
    lines += [f"# HELP {name}_created {help_text}", f"# TYPE {name}_created gauge",
              f"{name}_created{lab({})} {go_float(START)}"]
    return lines


def counter_lines(name: str, help_text: str, labels: dict[str, str], value: int) -> list[str]:
    lab = "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
    return [f"# HELP {name}_total {help_text}", f"# TYPE {name}_total counter",
            f"{name}_total{lab} {go_float(value)}",
            f"# HELP {name}_created {help_text}", f"# TYPE {name}_created gauge",
            f"{name}_created{lab} {go_float(START)}"]


def write_prometheus(sample: ServerSample, steps: Sequence[Step], folder: Path) -> Path:
    """The families of vLLM's /metrics this trace reads (names and help texts from
    v1/metrics/loggers.py:746-802, 887-894), after the steps with outputs."""
    labels = {"model_name": MODEL, "engine": "0"}
    observed = [s.iteration_tokens for s in steps if s.has_outputs]
    lines = [
        *counter_lines("vllm:prompt_tokens", "Number of prefill tokens processed.", labels,
                       sum(s.prompt_tokens for s in steps if s.has_outputs)),
        *counter_lines("vllm:generation_tokens", "Number of generation tokens processed.",
                       labels, sum(s.generated for s in steps if s.has_outputs)),
        *histogram_lines("vllm:iteration_tokens_total",
                         "Histogram of number of tokens per engine_step.", labels,
                         sample.buckets or DEFAULT_ITERATION_BUCKETS, observed),
    ]
    path = folder / sample.file_name
    path.write_text("\n".join(lines) + "\n")
    return path


def write_decode_batches(sample: ServerSample, steps: Sequence[Step], folder: Path) -> Path:
    """Requests per decode batch as a distribution (`batch_size,count`, one row per size)."""
    w = sample.workload
    counts = Counter(step.decode_reqs for step in steps if step.decode_reqs)
    path = folder / sample.file_name
    with path.open("w", newline="") as f:
        f.write(f"# synthetic: examples/traces/generate.py, seed {w.seed}, S={w.max_num_seqs}, "
                f"T={w.max_num_batched_tokens}, k={w.num_speculative_tokens}: requests per "
                "decode batch\n")
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["batch_size", "count"])
        for size, count in sorted(counts.items()):
            writer.writerow([size, count])
    return path


WRITERS = {"log": write_vllm_log, "prometheus": write_prometheus,
           "decode-batches": write_decode_batches}


@functools.cache
def simulated(w: Workload) -> tuple[Step, ...]:
    """`simulate(w)`, once per workload (several files share a simulation)."""
    return tuple(simulate(w))


def server_steps(sample: ServerSample) -> list[Step]:
    return list(simulated(replace(sample.workload, steps=sample.steps)))


def write_all(folder: Path = HERE) -> list[Path]:
    """Simulate every workload and write its files into `folder`; returns the paths."""
    paths = []
    for w in WORKLOADS:
        writer = write_distribution if w.file_name.endswith(".json") else write_step_log
        paths.append(writer(w, list(simulated(w)), folder))
    for sample in SERVER_SAMPLES:
        paths.append(WRITERS[sample.kind](sample, server_steps(sample), folder))
    return paths


def main() -> None:
    for path in write_all():
        print(f"wrote {path.name} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
