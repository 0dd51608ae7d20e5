"""Which captured bucket a prefill-CP batch replays under CP's own breakable graphs (issue 23
s60r): SGLang 0.5.23's `is_cp_active` and `select_replay_bucket_for_batch` (run by
tests/oracle/sglang_prefill_cp_replay_oracle) vs graphfit's `PrefillGraphs.replays_cp` and
the plan's prefill dispatch table, over generated batches. The large count is in
measure_sglang_prefill_cp_replay."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_replay_oracle as ro  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--cp-strategy", "zigzag")
LINES = [
    # cp 4: buckets 8..64, a bucket's local rows 8 up to 32 tokens, 16 above
    ((*CP, "--tp-size", "4", "--attn-cp-size", "4", "--cuda-graph-max-bs-prefill", "64"),
     "B200", "llama"),
    # cp 2 on the default ladder
    ((*CP, "--tp-size", "2", "--attn-cp-size", "2", "--attention-backend", "trtllm_mha"),
     "B200", "llama"),
]


@pytest.mark.parametrize("case", LINES, ids=["cp4-64", "cp2-default"])
def test_replayed_bucket_is_sglangs(case: ro.bo.Case) -> None:
    outcome, diffs, compared = ro.compare(case, 40, 7)
    assert (outcome, diffs) == ("agree", []) and compared == 40
