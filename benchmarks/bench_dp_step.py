"""Data-parallel step cost on the CPU: `step(dispatch=...)` vs a plain `step`, same run.

    python benchmarks/bench_dp_step.py

Data-parallel ranks replay the dispatch they agreed on (`sync_dp_padding`), so each step passes
`dispatch=`. That path used to re-validate the batch every step (46.7 us vs 15.0 us plain);
it now replays what was prepared for the batch shape and the dispatch, as the plain step
does. Rows: the rank's own dispatch, and a larger one agreed with another rank. Goal: the
dispatch step <= 1.3x the plain step. A cheap model (x + 1) shows the bookkeeping alone.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from common import fmt_seconds, paired_medians, table

from graphfit import EngineConfig, plan

CONFIG = dict(max_num_seqs=32, num_speculative_tokens=3, spec_method="dflash", runner="v1",
              engine_version="0.33.0",  # the V1 runner: vLLM 0.33 and earlier
              max_num_batched_tokens=1024, max_model_len=2048, hidden_size=64,
              dtype="float32")
NAMES = ("input_ids", "positions")


def main(repeat: int = 61, number: int = 50) -> int:
    try:
        import torch
    except ImportError as exc:
        print(f"bench_dp_step: skipped ({exc}); needs torch")
        return 0
    from graphfit.cudagraph import GraphRunner, StaticBuffers

    torch.set_num_threads(1)
    p = plan(EngineConfig(**CONFIG))  # type: ignore[arg-type]

    def cheap(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return views["positions"] + 1

    bufs = StaticBuffers.allocate(p, "cpu", "target")
    runner = GraphRunner(cheap, p, bufs, graph_inputs=NAMES)
    gen = torch.Generator().manual_seed(0)
    rows = []
    for n, other in ((5, 40), (64, 64), (100, 200)):
        inputs = {"input_ids": torch.randint(0, 1024, (n,), generator=gen, dtype=torch.int32),
                  "positions": torch.randint(0, 1000, (n,), generator=gen)}
        own = runner.dispatch(n)
        agreed = p.pad(max(own.padded, p.pad(other).padded))
        for label, d in (("own", own), (f"agreed with a rank of {other}", agreed)):
            with torch.no_grad():
                ref = runner.step(inputs)
                assert torch.equal(runner.step(inputs, dispatch=d), ref)
                t_plain, t_dp = paired_medians(
                    [lambda i=inputs: runner.step(i),
                     lambda i=inputs, d=d: runner.step(i, dispatch=d)],
                    repeat=repeat, number=number)
            rows.append((n, label, f"{d.mode.value} {d.padded}", fmt_seconds(t_plain),
                         fmt_seconds(t_dp), f"{t_dp / t_plain:.2f}x"))
    print(table("step(dispatch=...) vs plain step, CPU backend, target runner (x + 1); medians",
                ["num_tokens", "dispatch given", "replays", "plain step", "step(dispatch=)",
                 "ratio (goal <= 1.3x)"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:3])))
