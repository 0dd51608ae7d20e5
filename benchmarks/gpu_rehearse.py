"""Rehearse every engine's plans with real CUDA graphs, next to the CPU backend in the same run.

    python benchmarks/gpu_rehearse.py [--json FILE]

For each engine, speculative method and runner graphfit models, at one reference size (S=33
requests, k=3 draft tokens, T=8192 tokens, hidden size 256), the plan is rehearsed twice in
this process: on the CPU backend and with real CUDA graphs on the first GPU (one memory pool,
as an engine captures). Each rehearsal allocates every buffer the plan sizes, captures every
graph of every component, and replays one batch per graph against eager. Printed per config:
graphs captured, batches replayed equal to eager on CUDA, the capture pool's device bytes, and
the seconds of the CUDA rehearsal against the CPU one (a ratio: these machines are noisy).

Exits 1 when any CUDA replay differs from eager or a graph is unreached, 2 without a GPU.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from graphfit import EngineConfig, plan
from graphfit.cudagraph.rehearsal import Rehearsal, rehearse
from graphfit.planner.core.errors import ConfigError
from graphfit.testing import method_configs

REFERENCE: dict[str, object] = dict(max_num_seqs=33, num_speculative_tokens=3,
                                    max_num_batched_tokens=8192, hidden_size=256)


def configs() -> list[tuple[str, EngineConfig]]:
    """Every method each engine models at the reference size, plus engine-specific shapes."""
    out = method_configs(REFERENCE)
    extra = {
        "sglang eagle (topk 1)": dict(
            engine="sglang", spec_method="eagle", speculative_eagle_topk=1,
            speculative_num_draft_tokens=4),
        "sglang eagle (tree, topk 4)": dict(
            engine="sglang", spec_method="eagle", speculative_eagle_topk=4,
            speculative_num_draft_tokens=8),
        "trtllm none, breakable prefill graphs (shared buffers)": dict(
            engine="trtllm", num_speculative_tokens=0, prefill_cuda_graph_backend="breakable"),
        "sglang eagle (multi-layer, topk 1)": dict(
            engine="sglang", spec_method="eagle", speculative_eagle_topk=1,
            multi_layer_eagle=True),
        "sglang FROZEN_KV_MTP (topk 2)": dict(
            engine="sglang", spec_method="mtp", frozen_kv_mtp=True,
            speculative_eagle_topk=2, speculative_num_draft_tokens=6),
        "sglang DFLASH (block 8)": dict(
            engine="sglang", spec_method="dflash", speculative_num_draft_tokens=8),
        "trtllm encoder-only graphs (keyed on requests, tokens, longest)": dict(
            engine="trtllm", num_speculative_tokens=0, max_num_seqs=8,
            max_num_batched_tokens=1024, max_model_len=512, cuda_graph_mode="encode",
            encode_num_tokens=(64, 256, 1024), encode_seq_lens=(64, 128, 512)),
        "sglang DSPARK (gamma 7)": dict(
            engine="sglang", spec_method="dspark", speculative_num_draft_tokens=8),
        "sglang eagle, adaptive steps": dict(
            engine="sglang", spec_method="eagle", speculative_eagle_topk=1,
            speculative_num_draft_tokens=4, speculative_adaptive=True),
    }
    for label, fields in extra.items():
        try:
            out.append((label, EngineConfig.from_dict({**REFERENCE, **fields})))
        except ConfigError as exc:
            print(f"skipped {label}: {exc}", file=sys.stderr)
    return out


def _timed(p: object, device: str) -> tuple[Rehearsal, float]:
    # the previous config's graphs and buffers are freed before, not during, this capture:
    # their pool going back to the driver would show as negative per-graph deltas
    gc.collect()
    if device != "cpu":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    start = time.perf_counter()
    result = rehearse(p, device=device)  # type: ignore[arg-type]
    if device != "cpu":
        torch.cuda.synchronize()
    return result, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path, help="write the rows here as JSON")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("error: no CUDA device: this benchmark rehearses real CUDA graphs", file=sys.stderr)
        return 2
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    rows, ratios, failed = [], [], 0
    print("| config | graphs | CUDA replays == eager | pool MiB | CUDA s | CPU s | CUDA/CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, config in configs():
        p = plan(config)
        cpu, cpu_s = _timed(p, "cpu")
        cuda, cuda_s = _timed(p, "cuda")
        pool = cuda.capture.pool_bytes
        ok = cuda.ok and cpu.ok and cuda.graphs == cpu.graphs
        failed += not ok
        ratios.append(cuda_s / cpu_s)
        mism = sum(len(c.mismatches) for c in cuda.components)
        unreached = sum(len(c.unreached) for c in cuda.components)
        print(f"| {label} | {cuda.graphs} | {cuda.replayed - mism}/{cuda.replayed}"
              f"{'' if not unreached else f' ({unreached} unreached)'} | "
              f"{(pool or 0) / 2**20:.1f} | {cuda_s:.2f} | {cpu_s:.2f} | {cuda_s / cpu_s:.2f} |")
        rows.append(dict(config=label, graphs=cuda.graphs, replayed=cuda.replayed,
                         mismatches=mism, unreached=unreached, pool_bytes=pool,
                         cuda_seconds=cuda_s, cpu_seconds=cpu_s,
                         cpu_graphs=cpu.graphs, cpu_ok=cpu.ok))
    graphs = sum(int(str(r["graphs"])) for r in rows)
    print(f"{len(rows)} configs, {graphs} CUDA graphs; {len(rows) - failed} configs with every "
          f"replay equal to eager; median CUDA/CPU rehearsal time {statistics.median(ratios):.2f}")
    if args.json:
        args.json.write_text(json.dumps(dict(device=torch.cuda.get_device_name(0),
                                              torch=torch.__version__, rows=rows), indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
