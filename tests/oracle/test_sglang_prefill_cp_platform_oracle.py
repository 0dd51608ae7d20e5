"""Prefill context parallelism on ROCm (issue 23 s55g): SGLang 0.5.23's HIP refusal
(parallel_hook.py:114-121) against graphfit's (graphfit.inputs.sglang_prefill_cp_platform),
each line resolved by SGLang on the fake MI300X platform
(tests/oracle/sglang_prefill_cp_platform_oracle.compare). Larger counts:
measure_sglang_prefill_cp_platform."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_platform_oracle as po  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
LINES: list[tuple[po.Case, str]] = [
    # lines graphfit plans on NVIDIA GPUs: SGLang refuses them on HIP
    (((*CP, "--tp-size", "2", "--cp-strategy", "zigzag"), po.GPU, "llama"), "same refusal"),
    (((*CP, "--tp-size", "2", "--cp-strategy", "zigzag", "--attn-cp-size", "2"), po.GPU,
      "llama"), "same refusal"),
    (((*CP, "--tp-size", "4", "--cp-strategy", "interleave", "--attn-cp-size", "2"), po.GPU,
      "llama"), "same refusal"),
    # refusals SGLang meets after the HIP check (issue 23 s60r): the HIP sentence first
    (((*CP, "--tp-size", "2"), po.GPU, "llama"), "same refusal"),  # no --cp-strategy
    (((*CP, "--tp-size", "2", "--cp-strategy", "interleave"), po.GPU, "mimo"),
     "same refusal"),  # MiMo-V2 needs zigzag
]


@pytest.mark.parametrize(("case", "expected"), LINES, ids=[" ".join(c[0][3:]) for c, _ in LINES])
def test_rocm_refuses_prefill_cp_as_sglang(case: po.Case, expected: str) -> None:
    outcome, diffs = po.compare(case)
    assert outcome == expected, diffs
