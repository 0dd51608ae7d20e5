"""Attention DP's idle ranks, measured (not a test; tests/oracle/test_trtllm_adp_reference.py
is): over N generated lines with tensor parallelism (derandomized, so every run draws the same
lines), 20 per-rank request counts each, those with an idle rank, and whether graphfit's
`plan_adp_dispatch` is the restated engine's padding after the executor's dummy requests
(`trtllm_reference.adp_batches_with_dummies`; no request anywhere: both refuse):

    python -m tests.oracle.measure_trtllm_adp 200 [--before /work/wt/base]

The lines are drawn once, here; with `--before CHECKOUT` the same lines are scored again by
that checkout's graphfit and tests, its HEAD commit copied once (`measure_before.emit_before`
through `before_tree.frozen`; issue 23, s70m: it used to be run from the other checkout with
its PYTHONPATH, so a merge mid-run could split the figure), in a subprocess that loads this
file by path. The reference is loaded from this file's directory, so an older checkout is
measured against the same restatement.

Since issue 23 (s37t) it also measures a generation-only disaggregated server on the same
lines (`trtllm_reference.adp_disagg_dummies`: requests waiting for their KV cache are held,
not active): graphfit's `plan_adp_dispatch(.., waiting=)`; a checkout without `waiting` is
given the ranks' ready counts alone (its non-disaggregated rule).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings


def emit(cases: list[list[Any]]) -> list[int]:
    """The four counts (batch sets with an idle rank, graphfit == the engine; generation-server
    sets, graphfit == the engine) of `cases` ([raw line, seed] each) with the graphfit on
    sys.path."""
    from graphfit import ConfigError, plan
    from graphfit.planner.engines.trtllm import attention_dp_ranks, plan_adp_dispatch
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_reference import graphfit_config

    ref = load_module(Path(__file__).with_name("trtllm_reference.py"),
                      "trtllm_reference_measured")
    counts = {"total": 0, "agree": 0, "disagg": 0, "disagg_agree": 0}

    def disagg(p: Any, engine: Any, sizes: Any, ranks: int, rng: random.Random, top: int
               ) -> None:
        states = (ref.GEN_READY, ref.GEN_INIT, ref.GEN_TRANSFER)
        active = [[rng.choice(states) for _ in range(rng.choice([0, rng.randint(1, top)]))]
                  for _ in range(ranks)]
        new = [(ref.GENERATION_ONLY, rng.randint(1, 64))
               for _ in range(rng.choice([0, rng.randint(1, ranks)]))]
        _, taken = ref.adp_assign_new_requests([len(a) for a in active],
                                               [m for _, m in new], ranks)
        ready = tuple(a.count(ref.GEN_READY) for a in active)
        if 0 not in ready:
            return
        waiting = tuple(len(a) - r + len(t) for a, r, t in zip(active, ready, taken,
                                                               strict=True))
        theirs = ref.adp_disagg_dummies(active, new, ranks)
        want = ("refused" if theirs is None else
                engine.adp_dispatch([c + (d is not None) for c, d in theirs]))
        try:
            try:
                got: Any = plan_adp_dispatch(p.config, sizes, ready, waiting=waiting)
            except TypeError:  # a checkout before the disaggregated rule
                got = plan_adp_dispatch(p.config, sizes, ready)
        except ConfigError:
            got = "refused"
        counts["disagg"] += 1
        counts["disagg_agree"] += got == want

    for raw, seed in cases:
        engine = ref.model_engine(ref.llm_args(raw))
        p = plan(graphfit_config(raw))
        sizes = p.capture_sizes if p.has_graphs else ()
        ranks = attention_dp_ranks(p.config)
        if ranks == 1:
            continue
        rng = random.Random(seed)
        for _ in range(20):
            active = [rng.choice([0, rng.randint(1, raw["max_batch_size"])])
                      for _ in range(ranks)]
            if 0 not in active:
                continue
            joined = ref.adp_batches_with_dummies(active, ranks)
            want = engine.adp_dispatch(joined) if joined is not None else "refused"
            try:
                got = plan_adp_dispatch(p.config, sizes, tuple(active))
            except ConfigError:
                got = "refused"
            counts["total"] += 1
            counts["agree"] += got == want
        drng = random.Random(seed + 1)
        for _ in range(20):
            disagg(p, engine, sizes, ranks, drng, raw["max_batch_size"])
    return [counts["total"], counts["agree"], counts["disagg"], counts["disagg_agree"]]


def draw(n: int) -> list[list[Any]]:
    """N lines with tensor parallelism (derandomized: every run draws the same), as
    [raw line, seed] pairs (JSON, for the `--before` subprocess)."""
    from tests.oracle.test_trtllm_parallel_reference import parallel_lines

    cases: list[list[Any]] = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(parallel_lines())
    def run(case: tuple[dict[str, Any], int]) -> None:
        cases.append([case[0], case[1]])

    run()
    return cases


def show(label: str, counts: list[int]) -> None:
    total, agree, disagg, disagg_agree = counts
    print(f"{label}: batch sets with an idle rank: {total}; graphfit == the engine after its "
          f"dummy requests: {agree}/{total}")
    print(f"{label}: generation-server batch sets with a rank holding no ready request: "
          f"{disagg}; graphfit == the engine after its dummy requests: "
          f"{disagg_agree}/{disagg}")


def main() -> int:
    from tests.oracle.measure_before import measure

    return measure(__file__, sys.argv[1:], "lines drawn", draw, emit, show)


if __name__ == "__main__":
    sys.exit(main())
