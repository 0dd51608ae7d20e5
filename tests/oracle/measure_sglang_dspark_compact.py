"""Agreement of graphfit's compact ragged verify dispatch with SGLang 0.5.23's own runner
methods over N generated DSPARK lines under SGLANG_RAGGED_VERIFY_MODE=compact (not a test).

    python -m tests.oracle.measure_sglang_dspark_compact 200

Prints how many lines both build the token-tier dispatch for ("runner"), both plan without
graphs, both reject, and how many differ (tests/oracle/sglang_dspark_compact.compare_compact).
"""

from __future__ import annotations

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_dspark_compact as cc

COUNTERS = {
    "S defaulted": lambda case: "--max-running-requests" not in case[0],
    "a draft naming its target layers": lambda case: any(
        "graphfit-dspark-layered-" in word for word in case[0]),
    # block_accept_lens in SGLang's epilogue (EnvBool's true spellings, environ.py:143-150)
    "SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH set true": lambda case: bd.split_env(case[0])[0].get(
        "SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH", "").lower() in ("1", "true", "yes", "y"),
}

if __name__ == "__main__":
    bd.main("DSPARK compact", cc.compact_lines(), cc.compare_compact, COUNTERS)
