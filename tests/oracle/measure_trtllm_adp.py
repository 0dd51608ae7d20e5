"""Attention DP's idle ranks, measured (not a test; tests/oracle/test_trtllm_adp_reference.py
is): over N generated lines with tensor parallelism (derandomized, so every run draws the same
lines), 20 per-rank request counts each, those with an idle rank, and whether graphfit's
`plan_adp_dispatch` is the restated engine's padding after the executor's dummy requests
(`trtllm_reference.adp_batches_with_dummies`; no request anywhere: both refuse):

    python -m tests.oracle.measure_trtllm_adp 200
    # the same lines against another checkout's graphfit (from that checkout):
    cd /work/main && PYTHONPATH=$PWD python /work/wt/s32t/tests/oracle/measure_trtllm_adp.py 200

The reference is loaded from this file's directory, so an older checkout is measured against
the same restatement.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings


def main() -> int:
    from graphfit import ConfigError, plan
    from graphfit.planner.engines.trtllm import attention_dp_ranks, plan_adp_dispatch
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_parallel_reference import parallel_lines
    from tests.oracle.test_trtllm_reference import graphfit_config

    ref = load_module(Path(__file__).with_name("trtllm_reference.py"),
                      "trtllm_reference_measured")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    counts = {"total": 0, "agree": 0}

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(parallel_lines())
    def run(case: tuple[dict[str, Any], int]) -> None:
        raw, seed = case
        engine = ref.model_engine(ref.llm_args(raw))
        p = plan(graphfit_config(raw))
        sizes = p.capture_sizes if p.has_graphs else ()
        ranks = attention_dp_ranks(p.config)
        if ranks == 1:
            return
        rng = random.Random(seed)
        for _ in range(20):
            active = [rng.choice([0, rng.randint(1, raw["max_batch_size"])])
                      for _ in range(ranks)]
            if 0 not in active:
                continue
            joined = ref.adp_batches_with_dummies(active, ranks)
            want = engine.adp_dispatch(joined) if joined is not None else "refused"
            try:
                got: Any = plan_adp_dispatch(p.config, sizes, tuple(active))
            except ConfigError:
                got = "refused"
            counts["total"] += 1
            counts["agree"] += got == want

    run()
    print(f"batch sets with an idle rank: {counts['total']}; graphfit == the engine after its "
          f"dummy requests: {counts['agree']}/{counts['total']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
