"""Prefill context parallelism's own breakable prefill graphs (issue 23 s54g): SGLang 0.5.23's
prefill runner's CP setup (`supports_prefill_cp_bcg`, `filter_prefill_cp_bcg_capture_num_tokens`,
`PrefillCPBCGInput.create`, run under the fake GPU by sglang_prefill_oracle.cp_bcg) vs
graphfit's prefill component of the same pasted line (tests/oracle/
sglang_prefill_cp_bcg_oracle.compare: SGLang's refusal sentence, or the same backend, captured
token counts and buffers, besides the prefill-CP oracle's decode comparison). The large
generated count is in measure_sglang_prefill_cp_bcg."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_bcg_oracle as bo  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
LINES: list[tuple[bo.Case, str]] = [
    # zigzag on Blackwell's default trtllm_mha: CP's graphs, buckets >= 2 x cp, two inputs
    (((*CP, "--tp-size", "4", *ZIG, "--attn-cp-size", "4",
       "--cuda-graph-max-bs-prefill", "20"), "B200", "llama"), "agree"),
    # trtllm_mha named: SGLang's memory hook already reserves CP's graphs (s55g's fraction)
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2", "--attention-backend",
       "trtllm_mha", "--cuda-graph-max-bs-prefill", "64"), "B200", "llama"), "agree"),
    # every bucket below 2 x cp: the runner's filter refuses (bcg/bcg.py:60-65)
    (((*CP, "--tp-size", "8", *ZIG, "--attn-cp-size", "8",
       "--cuda-graph-max-bs-prefill", "8"), "B200", "llama"), "same refusal"),
    # attention CP width 1 binds no strategy: the runner's input type refuses
    (((*CP, "--tp-size", "1", *ZIG), "B200", "llama"), "same refusal"),
    # trtllm_mha prefill with attention CP off SM100: the attention hook refuses
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2", "--attention-backend",
       "trtllm_mha"), "H100", "llama"), "same refusal"),
    # interleave on an MHA backend, and zigzag on Hopper's fa3: no CP graphs, prefill off
    (((*CP, "--tp-size", "2", *INTER, "--attn-cp-size", "2"), "B200", "llama"), "agree"),
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2"), "H100", "llama"), "agree"),
]


@pytest.mark.parametrize(("case", "expected"), LINES,
                         ids=[f"{c[1]}-{' '.join(c[0][3:])}" for c, _ in LINES])
def test_cp_breakable_prefill_graphs_as_sglang_builds_them(case: bo.Case,
                                                           expected: str) -> None:
    outcome, diffs = bo.compare(case)
    assert outcome == expected, diffs


def test_generated_lines_never_differ() -> None:
    found = [(case, *bo.compare(case)) for case in bo.generate(4, 54)]
    assert not [f for f in found if f[1] == "differs"], found
