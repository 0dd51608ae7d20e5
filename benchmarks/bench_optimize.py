"""Ladder optimiser: DP solve time, and expected padding vs vLLM's default ladder.

    python benchmarks/bench_optimize.py

Part 1: the whole `graphfit optimize` command for T = 8192, K = 67 (a trace with every
num_tokens 1..8192, max capture 8192, so the default ladder has 531 graphs), CPU seconds
(goal <= 1.5 s), next to the same programme in a compiled loop (benchmarks/dp_kernel.c,
built with the system C compiler when there is one) and graphfit's pure-Python solve alone.
Part 2 times `optimal_ladder` on the worst case for its size: every num_tokens 1..T present
(m = T candidates).
Part 3 runs `tune` on the committed traces (examples/traces, simulated with fixed seeds by
examples/traces/generate.py) with the configs they were simulated for. Goal: >= 30% less
expected padding than vLLM's default ladder at equal graph count.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import ROOT, best_of, fmt_seconds, paired_medians, table

from graphfit import EngineConfig
from graphfit.inputs.traces import load_trace
from graphfit.planner.tuning.optimize import (
    candidate_sizes,
    expected_waste_total,
    optimal_ladder,
)
from graphfit.planner.tuning.trace import Trace
from graphfit.planner.tuning.tune import tune

HERE = Path(__file__).resolve().parent

GOAL = 0.30


def _trace_8192() -> Trace:
    rng = random.Random(8192)
    return Trace.from_weights({n: rng.randint(1, 1000) for n in range(1, 8193)})


def _kernel(workdir: Path) -> Any | None:
    """benchmarks/dp_kernel.c compiled and loaded, or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    lib = workdir / "dp_kernel.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", str(HERE / "dp_kernel.c"), "-o", str(lib)],
                   check=True)
    kernel = ctypes.CDLL(str(lib)).optimal_ladder
    kernel.restype = ctypes.c_int64
    return kernel


def _kernel_call(kernel: Any, trace: Trace, K: int, M: int) -> tuple[float, int]:
    """Seconds (median of 7) of the compiled programme, and the waste it finds."""
    cands = (0, *candidate_sizes(trace, M))
    m = len(cands) - 1
    A, B = [0] * (m + 1), [0] * (m + 1)
    t = a = b = 0
    for j in range(1, m + 1):
        while t < len(trace.sizes) and trace.sizes[t] <= cands[j]:
            a += int(trace.weights[t])
            b += trace.sizes[t] * int(trace.weights[t])
            t += 1
        A[j], B[j] = a, b
    arr = ctypes.c_int64 * (m + 1)
    c_c, c_a, c_b = arr(*cands), arr(*A), arr(*B)
    chosen = (ctypes.c_int32 * K)()
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        waste = kernel(m, K, c_c, c_a, c_b, chosen)
        rounds.append(time.perf_counter() - start)
    assert expected_waste_total(tuple(cands[j] for j in chosen), trace) == waste
    return statistics.median(rounds), waste


def optimize_command() -> dict[str, Any]:
    """The whole CLI for T = 8192, K = 67 (CPU seconds, median of 3), the Python solve alone
    and the compiled kernel, with the verdict line the command printed."""
    trace = _trace_8192()
    K, M = 67, 8192
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t8192.json"
        path.write_text(json.dumps({"schema": "graphfit.trace/1", "distribution": {
            str(n): int(w) for n, w in zip(trace.sizes, trace.weights)}}))
        argv = [sys.executable, "-m", "graphfit", "optimize", "--max-num-seqs", "256",
                "--max-num-batched-tokens", "8192", "--max-cudagraph-capture-size", "8192",
                "--trace", str(path), "--max-graphs", str(K)]
        cpu, verdict = [], ""
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            verdict = next(line for line in done.stdout.splitlines()
                           if "expected padding than the default" in line)
        kernel = _kernel(Path(tmp))
        ladder = optimal_ladder(trace, K, M)
        waste = expected_waste_total(ladder, trace)
        [solve] = paired_medians([lambda: optimal_ladder(trace, K, M)], repeat=3)
        compiled = None if kernel is None else _kernel_call(kernel, trace, K, M)
    if compiled is not None:
        assert compiled[1] == waste, "the compiled programme found another optimum"
    return {"cli_cpu": statistics.median(cpu), "solve": solve,
            "kernel": None if compiled is None else compiled[0], "verdict": verdict.strip()}


def command_table(m: dict[str, Any]) -> str:
    kernel = ("no C compiler: skipped" if m["kernel"] is None
              else fmt_seconds(m["kernel"]))
    rows = [("`graphfit optimize`, whole command (CPU)", fmt_seconds(m["cli_cpu"]), "<= 1.5 s"),
            ("the exact DP alone, pure Python", fmt_seconds(m["solve"]), ""),
            ("the same DP compiled (dp_kernel.c, -O2)", kernel, "reference")]
    return table("optimize, T = 8192, K = 67 (trace: every size 1..8192; default ladder: 531 "
                 "graphs); medians", ["what", "time", "goal"], rows) + \
        f"\nverdict printed: {m['verdict']}\n"


def dp_times() -> str:
    rng = random.Random(8192)
    rows = []
    for T, K in ((512, 51), (2048, 67), (8192, 16), (8192, 51), (8192, 67), (8192, 128),
                 (65536, 67)):
        trace = Trace.from_weights({n: rng.randint(1, 1000) for n in range(1, T + 1)})
        seconds = best_of(lambda t=trace, k=K, top=T: optimal_ladder(t, k, top),
                          repeat=3 if T <= 8192 else 1)
        rows.append((T, T, K, fmt_seconds(seconds)))
    return table("Exact DP solve time (all sizes 1..T present; best of 3)",
                 ["T", "candidates m", "K", "time"], rows)


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
        assert opt is not None  # no --max-graphs: the count is the default ladder's
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
    figures = optimize_command()
    print(command_table(figures))
    print(dp_times())
    print(trace_reductions())
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        Path(sys.argv[2]).write_text(json.dumps(figures))
