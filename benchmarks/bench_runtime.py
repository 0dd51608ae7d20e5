"""Runtime step overhead on the CPU: `GraphRunner.step` vs calling the model eagerly.

    python benchmarks/bench_runtime.py

The runner's per-step work is dispatch (a table lookup), copying real rows into the static
buffers, filling the padded tails and slicing the outputs; on the CPU backend "replay" runs
the model on the padded static views. The overhead column is step time minus a plain eager
call of the same model on the real rows: a cheap model (x + 1) shows the bookkeeping alone,
a small MLP a realistic mix. Needs torch and graphfit.cudagraph; skips otherwise.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from common import best_of, fmt_seconds, table

from graphfit import EngineConfig, plan


def main() -> int:
    try:
        import torch

        from graphfit.cudagraph import GraphRunner, StaticBuffers
    except ImportError as exc:  # torch missing, or the runtime not built yet
        print(f"bench_runtime: skipped ({exc}); needs torch and graphfit.cudagraph "
              "(StaticBuffers, GraphRunner)")
        return 0
    torch.set_num_threads(1)
    config = EngineConfig(max_num_seqs=32, num_speculative_tokens=3, spec_method="dflash",
                          max_num_batched_tokens=1024, max_model_len=2048, hidden_size=64,
                          dtype="float32")
    p = plan(config)
    width = 64
    torch.manual_seed(0)
    emb = torch.nn.Embedding(1024, width)
    mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                              torch.nn.Linear(4 * width, width))

    def cheap(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return views["positions"] + 1

    def small_mlp(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return mlp(emb(views["input_ids"].long() % 1024) + views["positions"].unsqueeze(-1))

    models: list[tuple[str, Callable[[Mapping[str, torch.Tensor]], torch.Tensor]]] = [
        ("x + 1", cheap), ("embedding + MLP", small_mlp)]
    rows = []
    gen = torch.Generator().manual_seed(1)
    q = config.uniform_query_len
    for label, fn in models:
        bufs = StaticBuffers.allocate(p, "cpu", "drafter")
        runner = GraphRunner(fn, p, bufs, backend="cpu", graph_inputs=("input_ids", "positions"))
        for num_reqs in (1, 5, 32):
            n = num_reqs * q
            inputs = {"input_ids": torch.randint(0, 1024, (n,), generator=gen, dtype=torch.int32),
                      "positions": torch.randint(0, 1000, (n,), generator=gen)}
            with torch.no_grad():
                step = best_of(lambda i=inputs, r=runner: r.step(i), repeat=7, number=200)
                eager = best_of(lambda i=inputs, f=fn: f(i), repeat=7, number=200)
            d = runner.dispatch(n)
            rows.append((label, n, f"{d.mode.value} {d.padded}", fmt_seconds(eager),
                         fmt_seconds(step), f"{(step - eager) * 1e6:+.1f} µs"))
    print(table("GraphRunner.step vs eager call, CPU backend, DFlash drafter (S=32, q=4)",
                ["model", "num_tokens", "dispatch", "eager call", "runner.step", "overhead"],
                rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
