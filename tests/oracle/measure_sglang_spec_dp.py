"""Agreement of graphfit with SGLang 0.5.23 over N generated DFLASH / DSPARK lines under
attention DP (not a test).

    python -m tests.oracle.measure_sglang_spec_dp 200

Prints how many lines both plan with the draft's graphs (DSPARK), both plan without draft
graphs (DFLASH's eager draft), both reject, and how many differ (with the first differences);
how many lines were DFLASH / DSPARK, carried --enable-dp-lm-head, compact or cap-accept
(tests/oracle/sglang_spec_dp_compare, tests/oracle/sglang_block_drafts.measure).
"""

from __future__ import annotations

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_spec_dp_compare as dp

COUNTERS = {
    "DFLASH": lambda case: "DFLASH" in (w.upper() for w in case[0]),
    "DSPARK": lambda case: "DSPARK" in (w.upper() for w in case[0]),
    "--enable-dp-lm-head": lambda case: "--enable-dp-lm-head" in case[0],
    "compact": lambda case: "SGLANG_RAGGED_VERIFY_MODE=compact" in case[0],
    "cap-accept": lambda case: "SGLANG_RAGGED_VERIFY_MODE=cap-accept" in case[0],
}

if __name__ == "__main__":
    bd.main("attention-DP block-draft", dp.dp_lines(), dp.compare_line, COUNTERS)
