"""Runtime step cost on the CPU: `GraphRunner.step` vs a lean hand-written step.

    python benchmarks/bench_runtime.py

Two references, written inline and validating nothing: the lean step (the issue's: a
padding table and per-size static views; each step slices `view[:n]` to copy into and
`view[n:]` to zero, runs the model on the static views and slices the output) and the
leanest (the same with the destination rows and tails precomputed per batch size too, so a
step is the torch calls alone). `GraphRunner.step` does the same from the plan and validates
the batch as well (counts read off the inputs, shapes, capacities, the graph's static rows).
Goal: step <= 1.3x the lean step. A cheap model (x + 1) shows the bookkeeping alone, a
small MLP a realistic mix. Needs torch; skips otherwise.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from common import fmt_seconds, paired_medians, table

from graphfit import EngineConfig, padding_table, plan

# the V1 runner: its DFlash drafter replays PIECEWISE graphs for every batch, so each step
# measured is a replay (MRV2's DFlash drafter runs mixed batches eagerly, with nothing to pad)
CONFIG = dict(max_num_seqs=32, num_speculative_tokens=3, spec_method="dflash", runner="v1",
              engine_version="0.33.0",  # the V1 runner: vLLM 0.33 and earlier
              max_num_batched_tokens=1024, max_model_len=2048, hidden_size=64,
              dtype="float32")
NAMES = ("input_ids", "positions")


def lean_step(fn: Callable[[Mapping[str, Any]], Any], bufs: Any, sizes: tuple[int, ...]
              ) -> Callable[[Mapping[str, Any], int], Any]:
    """The lean step: a padding table and each size's static views; a step looks the size
    up, copies into `view[:n]`, zeroes `view[n:]`, runs and slices (it validates nothing)."""
    pad = padding_table(sizes)
    static = {size: {name: bufs.view(name, size) for name in NAMES} for size in sizes}

    def step(inputs: Mapping[str, Any], n: int) -> Any:
        views = static[pad[n]]
        for name, tensor in inputs.items():
            views[name][:n].copy_(tensor)
        for name in NAMES:
            views[name][n:].zero_()
        return fn(views)[:n]

    return step


def leanest_step(fn: Callable[[Mapping[str, Any]], Any], bufs: Any, sizes: tuple[int, ...]
                 ) -> Callable[[Mapping[str, Any], int], Any]:
    """The leanest step: also the destination rows and the tails precomputed per batch
    size, so a step is only the copies, the fills, the run and the slice."""
    pad = padding_table(sizes)
    static = {size: {name: bufs.view(name, size) for name in NAMES} for size in sizes}
    per_n = {n: (static[pad[n]],
                 {name: static[pad[n]][name][:n] for name in NAMES},
                 [static[pad[n]][name][n:] for name in NAMES])
             for n in range(1, sizes[-1] + 1)}

    def step(inputs: Mapping[str, Any], n: int) -> Any:
        views, dst, tails = per_n[n]
        for name, tensor in inputs.items():
            dst[name].copy_(tensor)
        for tail in tails:
            tail.zero_()
        return fn(views)[:n]

    return step


def step_rows(repeat: int = 61, number: int = 50) -> list[dict[str, Any]]:
    """Per model and batch: lean and runner medians (seconds) and their ratio."""
    import torch

    from graphfit.cudagraph import GraphRunner, StaticBuffers

    torch.set_num_threads(1)
    p = plan(EngineConfig(**CONFIG))  # type: ignore[arg-type]
    width = 64
    torch.manual_seed(0)
    emb = torch.nn.Embedding(1024, width)
    mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                              torch.nn.Linear(4 * width, width))

    def cheap(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return views["positions"] + 1

    def small_mlp(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return mlp(emb(views["input_ids"].long() % 1024) + views["positions"].unsqueeze(-1))

    rows = []
    gen = torch.Generator().manual_seed(1)
    q = p.config.uniform_query_len
    for label, fn in (("x + 1", cheap), ("embedding + MLP", small_mlp)):
        bufs = StaticBuffers.allocate(p, "cpu", "drafter")
        runner = GraphRunner(fn, p, bufs, backend="cpu", graph_inputs=NAMES)
        lean = lean_step(fn, bufs, p.graph_sizes("drafter"))
        leanest = leanest_step(fn, bufs, p.graph_sizes("drafter"))
        for num_reqs in (1, 5, 32):
            n = num_reqs * q
            inputs = {"input_ids": torch.randint(0, 1024, (n,), generator=gen,
                                                 dtype=torch.int32),
                      "positions": torch.randint(0, 1000, (n,), generator=gen)}
            with torch.no_grad():
                assert torch.equal(runner.step(inputs), lean(inputs, n))
                assert torch.equal(runner.step(inputs), leanest(inputs, n))
                t_lean, t_leanest, t_step = paired_medians(
                    [lambda i=inputs, f=lean, n=n: f(i, n),
                     lambda i=inputs, f=leanest, n=n: f(i, n),
                     lambda i=inputs, r=runner: r.step(i)], repeat=repeat, number=number)
            d = runner.dispatch(n)
            rows.append({"model": label, "n": n, "dispatch": f"{d.mode.value} {d.padded}",
                         "lean": t_lean, "leanest": t_leanest, "step": t_step,
                         "ratio": t_step / t_lean, "ratio_leanest": t_step / t_leanest})
    return rows


def main() -> int:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        print(f"bench_runtime: skipped ({exc}); needs torch")
        return 0
    rows = step_rows()
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        with open(sys.argv[2], "w") as fh:
            json.dump({"rows": rows}, fh)
    print(table("GraphRunner.step vs lean steps, CPU backend, DFlash drafter (S=32, q=4); "
                "medians", ["model", "num_tokens", "dispatch", "lean step", "leanest step",
                            "runner.step", "step / lean (goal <= 1.3x)", "step / leanest"],
                [(r["model"], r["n"], r["dispatch"], fmt_seconds(r["lean"]),
                  fmt_seconds(r["leanest"]), fmt_seconds(r["step"]), f"{r['ratio']:.2f}x",
                  f"{r['ratio_leanest']:.2f}x") for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
