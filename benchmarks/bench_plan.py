"""Planning with exhaustive verification, next to the same checks done per batch with numpy
(the CLI's start-up: bench_startup.py).

    python benchmarks/bench_plan.py

`plan(config)` + `Plan.verify()` (every reachable batch of every buffer, proven by
intervals) against `plan(config)` + `numpy_ref.verify_batches` (the same batches checked one
by one as arrays; the check counts must match), DFlash, S up to 1024, T up to 65536. Medians
of rounds that alternate between the two.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from common import fmt_seconds, paired_medians, table
from numpy_ref import verify_batches

from graphfit import EngineConfig, VllmOptions, plan

GRID = ((1, 2048, 3), (64, 8192, 3), (256, 8192, 7), (1024, 8192, 15), (1024, 65536, 3),
        (1024, 65536, 15))
HEADLINE = (1024, 65536, 15)


def _config(S: int, T: int, k: int) -> EngineConfig:
    # the support levels given (the target's and, on vLLM 0.33's default V2 runner, the DFlash
    # draft's own), so there is one scenario to check (an unknown level adds a scenario: about
    # twice the checks and the time)
    return EngineConfig(max_num_seqs=S, max_num_batched_tokens=T, num_speculative_tokens=k,
                        spec_method="dflash", options=VllmOptions(
                            attention_cudagraph_support="ALWAYS",
                            drafter_attention_cudagraph_support="ALWAYS"))


def planning() -> list[dict[str, Any]]:
    rows = []
    for S, T, k in GRID:
        config = _config(S, T, k)
        p = plan(config)
        ours, ref = p.verify(), verify_batches(p)
        assert ours.ok and ref.ok and ours.checked == ref.checked, "the two proofs disagree"
        t_ours, t_ref = paired_medians([lambda c=config: plan(c).verify(),
                                        lambda c=config: verify_batches(plan(c))], repeat=9)
        rows.append({"S": S, "T": T, "k": k, "graphs": len(p.capture_sizes),
                     "checked": ours.checked, "graphfit": t_ours, "numpy": t_ref})
    return rows


def report(rows: list[dict[str, Any]]) -> str:
    return table(
        "plan() + exhaustive verify(), DFlash: graphfit by intervals vs numpy per batch "
        "(medians)", ["S", "T", "k", "graphs", "batch/buffer checks", "graphfit",
                      "plan() + numpy checks", "numpy / graphfit"],
        [(r["S"], r["T"], r["k"], r["graphs"], f"{r['checked']:,}", fmt_seconds(r["graphfit"]),
          fmt_seconds(r["numpy"]), f"{r['numpy'] / r['graphfit']:.1f}x") for r in rows])


if __name__ == "__main__":
    figures = {"planning": planning()}
    print(report(figures["planning"]))
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        with open(sys.argv[2], "w") as fh:
            json.dump(figures, fh)
