"""Agreement of graphfit with SGLang 0.5.23 over N generated DSPARK lines (not a test).

    python -m tests.oracle.measure_sglang_dspark 300

Prints how many lines both plan with the DSPARK draft runner, both plan without draft graphs,
both reject, and how many differ (with the first differences), how many graphfit refuses as
not modelled (a MiniMax M3.1 draft at TP > 1 that SGLang builds); how many lines carried an
environment prefix, how many left S to SGLang's default and how many ran under
SGLANG_RAGGED_VERIFY_MODE=compact / cap-accept
(tests/oracle/sglang_block_drafts.measure).
"""

from __future__ import annotations

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_dspark_compare as kc

COUNTERS = {
    "an environment prefix": lambda case: bool(bd.split_env(case[0])[0]),
    "S defaulted": lambda case: "--max-running-requests" not in case[0],
    # a local draft carrying more of the fields SGLang's DSPARK parse reads (valid or not)
    "a draft with parsed fields": lambda case: any(
        "graphfit-dspark-drafts-" in word and not word.endswith(kc.NO_FIELDS)
        for word in case[0]),
    # SGLANG_RAGGED_VERIFY_MODE=compact / cap-accept: the confidence outputs (and under
    # compact the verify epilogue: measure_sglang_dspark_compact) compared too
    # a MiniMax M3.1 draft (sglang_dspark_compare.minimax_dir)
    "a MiniMax M3.1 draft": lambda case: any("/minimax-" in word for word in case[0]),
    "compact": lambda case: bd.split_env(case[0])[0].get(
        "SGLANG_RAGGED_VERIFY_MODE") == "compact",
    "cap-accept": lambda case: bd.split_env(case[0])[0].get(
        "SGLANG_RAGGED_VERIFY_MODE") == "cap-accept",
}

if __name__ == "__main__":
    bd.main("DSPARK", kc.dspark_lines(), kc.compare_line, COUNTERS)
