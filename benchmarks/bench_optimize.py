"""Ladder optimiser: DP solve time, and expected padding vs vLLM's default ladder.

    python benchmarks/bench_optimize.py

Part 1 times `optimal_ladder` on the worst case for its size: every num_tokens 1..T present
(m = T candidates). Goal: < 1 s for T = 8192, K = 67.
Part 2 runs `tune` on the committed traces (examples/traces, simulated with fixed seeds by
examples/traces/generate.py) with the configs they were simulated for. Goal: >= 30% less
expected padding than vLLM's default ladder at equal graph count.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from typing import Any

from common import ROOT, best_of, fmt_seconds, table

from graphfit import EngineConfig
from graphfit.planner.tuning.optimize import optimal_ladder
from graphfit.planner.tuning.trace import Trace, load_trace
from graphfit.planner.tuning.tune import tune

GOAL = 0.30


def dp_times() -> str:
    rng = random.Random(8192)
    rows = []
    for T, K in ((512, 51), (2048, 67), (8192, 16), (8192, 51), (8192, 67), (8192, 128),
                 (65536, 67)):
        trace = Trace.from_weights({n: rng.randint(1, 1000) for n in range(1, T + 1)})
        seconds = best_of(lambda t=trace, k=K, top=T: optimal_ladder(t, k, top),
                          repeat=3 if T <= 8192 else 1)
        verdict = ("PASS" if seconds < 1 else "MISS") if (T, K) == (8192, 67) else ""
        rows.append((T, T, K, fmt_seconds(seconds), verdict))
    return table("Exact DP solve time (all sizes 1..T present; best of 3)",
                 ["T", "candidates m", "K", "time", "goal < 1 s"], rows)


def _workloads() -> list[Any]:
    path = ROOT / "examples" / "traces" / "generate.py"
    spec = importlib.util.spec_from_file_location("trace_generate", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return list(module.WORKLOADS)


def trace_reductions() -> str:
    rows = []
    for w in _workloads():
        config = EngineConfig(
            max_num_seqs=w.max_num_seqs, max_num_batched_tokens=w.max_num_batched_tokens,
            num_speculative_tokens=w.num_speculative_tokens,
            spec_method=w.method if w.num_speculative_tokens else "none")
        result = tune(config, load_trace(ROOT / "examples" / "traces" / w.file_name))
        base, opt = result.baseline, result.equal_count
        rows.append((
            w.file_name, f"S={w.max_num_seqs} T={w.max_num_batched_tokens} "
            f"k={w.num_speculative_tokens}", base.num_graphs, result.max_size,
            f"{base.expected_waste:.2f}", f"{opt.expected_waste:.2f}",
            f"{100 * result.reduction:.1f}%", "PASS" if result.reduction >= GOAL else "MISS",
            f"{100 * (1 - base.graphed_fraction):.1f}%"))
    return table("Expected padding waste per step, optimised vs vLLM default at equal graph count",
                 ["trace", "config", "graphs", "max", "vLLM waste tok/step",
                  "optimised tok/step", "reduction", "goal >= 30%", "eager steps"], rows)


if __name__ == "__main__":
    print(dp_times())
    print(trace_reductions())
