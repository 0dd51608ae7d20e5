"""Prefill context parallelism's own breakable prefill graphs on the live check and in
graphfit's own config file (issue 23 s55g): SGLang 0.5.23 resolves the line on CPU and builds
its prefill runner's CP setup under the fake GPU; graphfit reads the resolved ServerArgs
record (`from_sglang`, the GPU named: SGLang's resolved prefill backend off the record's
declarations) and the line's flags as its own `--config` file (the file's backend, else
SGLang's default for the named GPU). Each must refuse with SGLang's sentence, or plan what the
pasted line plans and what SGLang's prefill runner captures and allocates
(sglang_prefill_cp_bcg_oracle.live_file_compare). The generated counts are in
measure_sglang_prefill_cp_bcg_live."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_bcg_oracle as bo  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG = ("--cp-strategy", "zigzag")
# (line, the live check's outcome, the config file's outcome)
LINES: list[tuple[bo.Case, str, str]] = [
    # Blackwell's default trtllm_mha: CP's graphs, buckets >= 2 x cp, the two CP inputs
    (((*CP, "--tp-size", "4", *ZIG, "--attn-cp-size", "4",
       "--cuda-graph-max-bs-prefill", "20"), "B200", "llama"), "agree", "agree"),
    # every bucket below 2 x cp: SGLang's prefill runner refuses (bcg/bcg.py:60-65)
    (((*CP, "--tp-size", "8", *ZIG, "--attn-cp-size", "8",
       "--cuda-graph-max-bs-prefill", "8"), "B200", "llama"), "same refusal", "same refusal"),
    # a named flashinfer backend: no CP graphs, prefill graphs off
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2", "--attention-backend",
       "flashinfer"), "B200", "llama"), "agree", "agree"),
]


@pytest.mark.parametrize(("case", "live", "file"), LINES,
                         ids=[f"{c[1]}-{' '.join(c[0][3:])}" for c, _, _ in LINES])
def test_live_check_and_config_file_plan_cp_graphs_as_sglang(case: bo.Case, live: str,
                                                             file: str) -> None:
    found = bo.live_file_compare(case)
    assert (found["live"][0], found["file"][0]) == (live, file), found
