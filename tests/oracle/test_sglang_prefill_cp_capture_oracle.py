"""A zigzag line whose prefill CP capture batch ends in a request under 2 x cp tokens (issue
23 s62p): SGLang 0.5.23's own `prepare_cp_forward` assert on each capture batch, largest
bucket first (tests/oracle/sglang_prefill_cp_capture_oracle), vs graphfit's refusal naming
the same bucket. The large count is in measure_sglang_prefill_cp_capture."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_capture_oracle as co  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--cp-strategy", "zigzag",
      "--attention-backend", "trtllm_mha")
LINES = [
    # cp 2, context 127: bucket 384 is 3 x 127 + 3, under 4
    ((*CP, "--tp-size", "2", "--attn-cp-size", "2", "--context-length", "127"), "B200",
     "llama"),
    # cp 2, context 100: every bucket's last request is at least 4 tokens
    ((*CP, "--tp-size", "2", "--attn-cp-size", "2", "--context-length", "100"), "B200",
     "llama"),
]


@pytest.mark.parametrize("case", LINES + co.generate(3, 3),
                         ids=["cp2-127", "cp2-100", "gen0", "gen1", "gen2"])
def test_capture_failure_is_sglangs(case: co.bo.Case) -> None:
    assert co.compare(case)[0] == "agree", co.compare(case)[1]


def test_the_fixed_lines_cover_both_answers() -> None:
    assert [co.graphfit_failing_bucket(case) for case in LINES] == [384, None]
