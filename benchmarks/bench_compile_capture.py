"""Capture time: the compiled backend (one dynamic compile + a graph per size) vs the CPU
backend, in the same run, on a toy DFlash drafter's full ladder.

    python benchmarks/bench_compile_capture.py

Reference figures measured in the same run: the CPU backend's capture of the same ladder, and
compiling once per size (`dynamic=False`, the old behaviour: a toy drafter's 68 sizes took
1,087 s) on the ladder's first few sizes, whose per-size median is shown times the ladder's
size count (labelled as extrapolated). Goal: compiled capture <= 10x the CPU backend's. Compiled
graphs are not bit-exact with eager (inductor fuses floating-point arithmetic): outputs are
compared with a tolerance.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from collections.abc import Mapping

from common import fmt_seconds, table

from graphfit import EngineConfig, plan

CONFIG = EngineConfig(runner="v1", engine_version="0.33.0", max_num_seqs=128,
                      num_speculative_tokens=3,
                      spec_method="dflash", max_num_batched_tokens=2048, hidden_size=16,
                      dtype="float32")
NAMES = ("input_ids", "positions")
STATIC_SAMPLE = 4  # sizes compiled one by one for the per-size reference (the first warms up)


def main(compile_backend: str = "inductor") -> int:
    # cold compiles on both sides: inductor's on-disk caches would otherwise serve the
    # per-size reference from an earlier run
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    try:
        import torch
    except ImportError as exc:
        print(f"bench_compile_capture: skipped ({exc}); needs torch")
        return 0
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from graphfit.cudagraph import (
        CaptureSession,
        CompiledBackend,
        CPUBackend,
        GraphRunner,
        StaticBuffers,
    )

    torch.set_num_threads(1)
    p = plan(CONFIG)
    sizes = p.graph_sizes("drafter")
    torch.manual_seed(0)
    emb = torch.nn.Embedding(64, 16)
    mlp = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 64))

    def drafter(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = emb(views["input_ids"].long() % 64) + torch.sin(views["positions"].float() / 97)[
            :, None]
        return mlp(x)

    def timed(backend: object) -> tuple[float, float, GraphRunner]:
        """Whole capture, and the graphs after the first (the compile) summed."""
        bufs = StaticBuffers.allocate(p, "cpu", "drafter")
        session = CaptureSession(backend, freeze_gc=False)  # type: ignore[arg-type]
        runner = GraphRunner(drafter, p, bufs, session=session, graph_inputs=NAMES)
        start = time.perf_counter()
        report = session.capture()
        return (time.perf_counter() - start, sum(e.seconds for e in report.events[1:]),
                runner)

    # the per-size reference: compile each of the first few sizes on its own
    static = CompiledBackend(compile_backend, dynamic=False)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    per_size = []
    with torch.no_grad():
        for n in sizes[:STATIC_SAMPLE]:
            views = {name: bufs.view(name, n) for name in NAMES}
            start = time.perf_counter()
            static.capture(drafter, views)
            per_size.append(time.perf_counter() - start)
    t_static = statistics.median(per_size[1:]) * len(sizes)
    # after the per-size reference, so the process's one-off compiler warm-up (imports,
    # worker start) is not charged to the dynamic compile
    t_cpu, rest_cpu, cpu = timed(CPUBackend())
    dynamic = CompiledBackend(compile_backend)
    t_dyn, rest_dyn, compiled = timed(dynamic)
    gen = torch.Generator().manual_seed(1)
    worst = 0.0
    with torch.no_grad():
        for r in (1, 7, 64, 128):
            n = r * CONFIG.uniform_query_len
            batch = {"input_ids": torch.randint(0, 64, (n,), generator=gen, dtype=torch.int32),
                     "positions": torch.randint(0, 1000, (n,), generator=gen)}
            worst = max(worst, float((compiled.step(batch) - cpu.step(batch)).abs().max()))
    print(table(f"Capture of {len(sizes)} drafter sizes ({compile_backend}), same run",
                ["backend", "artifacts (compiler calls)", "capture",
                 "vs CPU backend (goal <= 10x)"],
                [("cpu", 0, fmt_seconds(t_cpu), "1.00x"),
                 ("compiled, dynamic (one compile + a graph per size)",
                  f"{dynamic.compiles} ({dynamic.compiler_calls})",
                  fmt_seconds(t_dyn), f"{t_dyn / t_cpu:.1f}x"),
                 (f"compiled, dynamic: the {len(sizes) - 1} sizes after the first "
                  "(vs the CPU backend's same sizes)", "-", fmt_seconds(rest_dyn),
                  f"{rest_dyn / rest_cpu:.1f}x"),
                 (f"compiled per size (median of {STATIC_SAMPLE - 1} x {len(sizes)}, "
                  "extrapolated)", len(sizes), fmt_seconds(t_static),
                  f"{t_static / t_cpu:.1f}x")]))
    print(f"max |compiled - cpu| over 4 batches: {worst:.2e} (not bit-exact: fused float math)")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
