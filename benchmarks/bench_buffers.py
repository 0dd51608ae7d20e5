"""Persistent buffer bytes: graphfit's tight capacities vs vLLM 0.33's formulas.

    python benchmarks/bench_buffers.py

Over a sweep grid of S, k, T and drafter methods, the ratio graphfit bytes / vLLM bytes
(< 1: graphfit allocates less). "vLLM short" counts configs where vLLM's own allocation
fails `Plan.verify_engine()`: some buffer holds fewer rows than vLLM's own code pads to or
writes (a short-tensor bug), in any attention support level the config leaves open.
"""

from __future__ import annotations

import statistics

from common import table

from graphfit import ConfigError, EngineConfig, VllmOptions, plan

GRID_S = (1, 7, 33, 64, 97, 128, 256, 512, 1024)
GRID_K = (1, 3, 7, 15)
GRID_T = (2048, 8192, 65536)
METHODS = ("eagle", "draft_model", "dflash", "dspark")
RUNNERS = ("v1", "v2")


def sweep() -> str:
    rows = []
    for method in METHODS:
        for runner in RUNNERS:
            ratios, short, configs = [], 0, 0
            saved = 0
            for S in GRID_S:
                for k in GRID_K:
                    for T in GRID_T:
                        if T < S:
                            continue
                        try:
                            p = plan(EngineConfig(
                                max_num_seqs=S, max_num_batched_tokens=T,
                                num_speculative_tokens=k, spec_method=method,
                                options=VllmOptions(runner=runner),
                                engine_version="0.33.0"))  # vs vLLM 0.33's formulas (V1 too)
                        except ConfigError:  # e.g. dspark on V1: vLLM rejects it
                            continue
                        configs += 1
                        ratios.append(p.total_bytes / p.reference_bytes)
                        saved += max(p.reference_bytes - p.total_bytes, 0)
                        short += not p.verify_engine().ok
            if not configs:
                continue
            rows.append((method, runner, configs, f"{min(ratios):.3f}",
                         f"{statistics.median(ratios):.3f}", f"{max(ratios):.3f}",
                         f"{saved / configs / 2**20:.1f} MiB", short))
    return table("Buffer bytes, graphfit / vLLM formula, over S x k x T "
                 f"(S in {GRID_S}, k in {GRID_K}, T in {GRID_T})",
                 ["method", "runner", "configs", "min ratio", "median ratio", "max ratio",
                  "mean saved", "configs where vLLM is short"], rows)


if __name__ == "__main__":
    print(sweep())
