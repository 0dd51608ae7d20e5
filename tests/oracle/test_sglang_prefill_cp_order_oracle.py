"""SGLang's prefill-CP refusals before graphfit's "not modelled" of a flag (issue 23 s60r):
`--chunked-prefill-size -1` and `--language-only`, which graphfit's flag readers do not model,
on lines SGLang 0.5.23 refuses for prefill CP (graphfit.inputs.sglang_prefill_cp.
refusal_first); on the MI300X SGLang's HIP refusal (parallel_hook.py:114-121) comes first,
on a pasted line and in graphfit's own config file.
SGLang resolves each line (sglang_prefill_cp_oracle.compare / the platform oracle's)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_oracle as cp  # noqa: E402
from tests.oracle import sglang_prefill_cp_platform_oracle as po  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--tp-size", "2")
PREFILL_ONLY = ("--prefill-only-disable-kv-cache", "--is-embedding", "--chunked-prefill-size",
                "-1", "--disable-radix-cache")
LINES: list[tuple[cp.Case, str]] = [
    # prefill-only's own checks pass (chunking off among them), then it refuses prefill CP
    (((*CP, "--cp-strategy", "zigzag", *PREFILL_ONLY), "H100", "llama"), "same refusal"),
    # --language-only on MiMo-V2, whose prefill CP needs zigzag
    (((*CP, "--cp-strategy", "interleave", "--language-only"), "H100", "mimo"),
     "same refusal"),
    # chunking off and no --cp-strategy
    (((*CP, "--chunked-prefill-size", "-1"), "H100", "llama"), "same refusal"),
]
ROCM: list[tuple[cp.Case, str]] = [
    # SGLang accepts the line up to its HIP check: the HIP sentence, not the flag's answer
    (((*CP, "--cp-strategy", "zigzag", "--chunked-prefill-size", "-1"), po.GPU, "llama"),
     "same refusal"),
]


@pytest.mark.parametrize(("case", "expected"), LINES, ids=["prefill-only", "mimo", "no-strategy"])
def test_sglangs_refusal_before_a_flags_not_modelled(case: cp.Case, expected: str) -> None:
    outcome, diffs = cp.compare(case)
    assert outcome == expected, diffs
    # the same keys in graphfit's own config file (graphfit.inputs.sglang_prefill_cp.
    # file_refusal_first)
    outcome, diffs = cp.file_compare(case)
    assert outcome == expected, diffs


@pytest.mark.parametrize(("case", "expected"), ROCM, ids=["chunked-off"])
def test_hip_refusal_before_a_flags_not_modelled(case: cp.Case, expected: str) -> None:
    outcome, diffs = po.compare(case)
    assert outcome == expected, diffs
    outcome, diffs = po.file_compare(case)
    assert outcome == expected, diffs


def test_hip_refusal_first_in_graphfits_config_file() -> None:
    # no --cp-strategy (parallel_hook.py:151-154) comes after the HIP check (:114-121)
    case = ((*CP, "--cp-strategy", "zigzag"), po.GPU, "llama")
    assert po.file_compare(case) == ("same refusal", [])
    assert po.file_compare(((*CP,), po.GPU, "llama")) == ("same refusal", [])
