"""Regenerate the synthetic batch-size traces in this folder (fixed seeds, stdlib only).

    python examples/traces/generate.py

Each trace comes from a small simulation of vLLM's V1 scheduler with chunked prefill: requests
arrive as a Poisson process whose rate drifts (a slow cycle plus bursts), running requests
decode first (q = 1 + k tokens each, spec decode accepting each draft token with probability
`accept`), and the rest of the step's token budget T goes to prefill chunks, continuing
partial prefills before admitting new requests while fewer than S run. A step's num_tokens
is what the engine would pad to a capture size. The files are synthetic, not production logs;
the workload shapes (prompt/output length distributions, load) are stated below.
"""

from __future__ import annotations

import csv
import json
import math
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


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
        flags = ["--max-num-seqs", str(self.max_num_seqs),
                 "--max-num-batched-tokens", str(self.max_num_batched_tokens)]
        if self.num_speculative_tokens:
            flags += ["--num-speculative-tokens", str(self.num_speculative_tokens),
                      "--method", self.method]
        return flags


@dataclass
class Request:
    prompt_left: int
    output_left: int


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


def simulate(w: Workload) -> list[tuple[int, int, int]]:
    """(num_tokens, num_reqs, decode_only) for each non-idle engine step."""
    rng = random.Random(w.seed)
    q = 1 + w.num_speculative_tokens
    waiting: list[Request] = []
    running: list[Request] = []
    out: list[tuple[int, int, int]] = []
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
            waiting.append(Request(prompt, output))
        budget = w.max_num_batched_tokens
        decode = [r for r in running if r.prompt_left == 0]
        decode_tokens = scheduled = 0
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
        prefill_tokens = 0
        for r in running:  # continue partial prefills first
            if r.prompt_left and budget:
                chunk = min(r.prompt_left, budget)
                r.prompt_left -= chunk
                budget -= chunk
                prefill_tokens += chunk
                scheduled += 1
        while waiting and budget and len(running) < w.max_num_seqs:
            r = waiting.pop(0)
            chunk = min(r.prompt_left, budget)
            r.prompt_left -= chunk
            budget -= chunk
            prefill_tokens += chunk
            scheduled += 1
            running.append(r)
        running = [r for r in running if r.output_left > 0]
        total = decode_tokens + prefill_tokens
        if total:
            out.append((total, scheduled, int(prefill_tokens == 0)))
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


def write_step_log(w: Workload, steps: list[tuple[int, int, int]], folder: Path) -> Path:
    path = folder / w.file_name
    with path.open("w", newline="") as f:
        f.write(f"# synthetic: examples/traces/generate.py, seed {w.seed}, S={w.max_num_seqs}, "
                f"T={w.max_num_batched_tokens}, k={w.num_speculative_tokens}\n")
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["step", "num_tokens", "num_reqs", "decode_only"])
        for i, (n, reqs, decode_only) in enumerate(steps):
            writer.writerow([i, n, reqs, decode_only])
    return path


def write_distribution(w: Workload, steps: list[tuple[int, int, int]], folder: Path) -> Path:
    path = folder / w.file_name
    counts = Counter(n for n, _, _ in steps)
    doc = {
        "schema": "graphfit.trace/1",
        "notes": f"synthetic: examples/traces/generate.py, seed {w.seed}, S={w.max_num_seqs}, "
                 f"T={w.max_num_batched_tokens}, k={w.num_speculative_tokens}",
        "distribution": {str(n): c for n, c in sorted(counts.items())},
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def write_all(folder: Path = HERE) -> list[Path]:
    """Simulate every workload and write its file into `folder`; returns the paths."""
    paths = []
    for w in WORKLOADS:
        writer = write_distribution if w.file_name.endswith(".json") else write_step_log
        paths.append(writer(w, simulate(w), folder))
    return paths


def main() -> None:
    for w in WORKLOADS:
        steps = simulate(w)
        writer = write_distribution if w.file_name.endswith(".json") else write_step_log
        path = writer(w, steps, HERE)
        sizes = [n for n, _, _ in steps]
        print(f"{path.name}: {len(sizes)} steps, mean {sum(sizes) / len(sizes):.1f}, "
              f"max {max(sizes)}, decode-only {sum(d for _, _, d in steps) / len(steps):.0%}")


if __name__ == "__main__":
    main()
