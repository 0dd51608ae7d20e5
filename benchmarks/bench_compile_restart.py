"""Capture time in genuinely fresh processes (an engine restart): the compiled backend with
graphfit's `CompileCache` vs with torch's own on-disk caches only, each against the CPU
backend's capture measured in the same process.

    python benchmarks/bench_compile_restart.py

bench_compile_capture.py times restarts inside one process, after torch's one-off warm-up
(imports, inductor's CPU probes); here each start is a new Python process, so that warm-up is
in the compiled figure: it is what a real restart pays. The first process starts cold (fills
both caches, shown on its own); then the settings alternate, 3 processes each (medians):

- the CompileCache hit as graphfit runs it (inductor's vec-ISA probes answered from the key
  folder's record, its prefix-header preprocessing skipped: compile_cache.py);
- the same hit with those two skips turned off (what the hit cost before them);
- the hit with torch's dynamo / inductor runtime modules imported before the clock starts
  (what is left once the imports are paid: loading the artifact itself);
- torch's on-disk caches only (no CompileCache).

Same toy drafter and 49-size ladder as bench_compile_capture.py.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from common import fmt_seconds, table

RUNS = 3


MODES = {"cache": "restart, graphfit CompileCache (artifact loaded)",
         "noskip": "  same, ISA probes + header preprocessing not skipped",
         "preimported": "  same, dynamo/inductor imported before the clock",
         "torch": "restart, torch's on-disk caches only"}


def child(mode: str, root: str) -> None:
    """One engine start: the CPU backend's capture (median of 5), then the compiled one."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(root, "inductor")
    import contextlib

    import torch
    from bench_compile_capture import CONFIG, NAMES, toy_drafter

    from graphfit import plan
    from graphfit.cudagraph import (
        CaptureSession,
        CompileCache,
        CompiledBackend,
        CPUBackend,
        GraphRunner,
        StaticBuffers,
        compile_cache,
    )

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    torch.set_num_threads(1)
    p = plan(CONFIG)
    drafter = toy_drafter()

    def timed(backend: object) -> float:
        bufs = StaticBuffers.allocate(p, "cpu", "drafter")
        session = CaptureSession(backend, freeze_gc=False)  # type: ignore[arg-type]
        GraphRunner(drafter, p, bufs, session=session, graph_inputs=NAMES)
        start = time.perf_counter()
        session.capture()
        return time.perf_counter() - start

    cpu = statistics.median(timed(CPUBackend()) for _ in range(5))
    if mode == "noskip":
        compile_cache.isa_probes = lambda folder: contextlib.nullcontext()  # type: ignore
        compile_cache.no_header_precompile = contextlib.nullcontext  # type: ignore
    if mode == "preimported":
        import torch._dynamo.aot_compile
        import torch._inductor.async_compile
        import torch._inductor.codecache
        import torch._inductor.select_algorithm
    backend = (CompiledBackend(cache=CompileCache(Path(root) / "graphfit-aot"))
               if mode != "torch" else CompiledBackend())
    compiled = timed(backend)
    print(json.dumps({"cpu": cpu, "compiled": compiled, "loads": backend.cache_loads,
                      "calls": backend.compiler_calls}))


def start(mode: str, root: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", mode, root], check=True,
                         capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        print(f"bench_compile_restart: skipped ({exc}); needs torch")
        return 0
    root = tempfile.mkdtemp(prefix="graphfit-bench-restart-")
    try:
        cold = start("cache", root)
        runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for _ in range(RUNS):
            for mode in runs:
                runs[mode].append(start(mode, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = [("cold first start (fills both caches)", fmt_seconds(cold["cpu"]),
             fmt_seconds(cold["compiled"]), f"{cold['compiled'] / cold['cpu']:.0f}x",
             f"{cold['loads']:.0f} / {cold['calls']:.0f}")]
    for mode, rs in runs.items():
        rows.append((f"{MODES[mode]} (median of {RUNS})",
                     fmt_seconds(statistics.median(r["cpu"] for r in rs)),
                     fmt_seconds(statistics.median(r["compiled"] for r in rs)),
                     f"{statistics.median(r['compiled'] / r['cpu'] for r in rs):.0f}x",
                     f"{sum(r['loads'] for r in rs):.0f} / {sum(r['calls'] for r in rs):.0f}"))
    print(table("First capture in a fresh process (49 drafter sizes, inductor)",
                ["start", "cpu backend, same process", "compiled", "ratio (goal <= 10x)",
                 "artifacts loaded / compiler calls"], rows))
    print("The compiled figure includes torch's one-off start in a new process (importing "
          "dynamo/inductor, running inductor's generated module); the CPU backend has none.")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
